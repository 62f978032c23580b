// Admin routes (CONTRACT §4): users, canvas disable/enable, instance settings.
// Anyone but an instance admin gets 404, as if the routes did not exist.
// (Connection profile routes live with the Connections feature.)
import { Elysia } from 'elysia';
import type { DiskUsageReport } from './disk-usage.ts';
import type { CanvasWithRole } from '../canvases/service.ts';
import { canvasView } from '../canvases/view.ts';
import type { AppContext } from '../context.ts';
import type { AuthKinds } from '../http/auth-kinds.ts';
import { readJson } from '../http/json-body.ts';
import { json } from '../http/respond.ts';
import { DisableBody, PatchSettingsBody, PatchUserBody } from './model.ts';
import { adminUserView, getUser, setCanvasDisabled, updateSettings, updateUser } from './service.ts';

export function adminRoutes(ctx: AppContext, auth: AuthKinds, diskUsage: DiskUsageReport) {
  const ok = (body: unknown) => json(200, body, { 'cache-control': 'no-store' });
  const view = (r: CanvasWithRole) => canvasView(ctx.config, r.canvas, r.role);

  return new Elysia({ name: 'admin' }).use(auth).guard({ admin: true, parse: 'none' }, (app) =>
    app
      .get('/api/admin/users', () => ok({ users: ctx.users.list().map((u) => adminUserView(ctx, u)) }))
      .get('/api/admin/users/:id', ({ params }) => ok(adminUserView(ctx, getUser(ctx, params.id))))
      .patch('/api/admin/users/:id', async ({ actor, params, request }) =>
        ok(adminUserView(ctx, updateUser(ctx, actor, params.id, await readJson(request, PatchUserBody)))),
      )
      .post('/api/admin/canvases/:id/disable', async ({ actor, params, request }) => {
        const { reason } = await readJson(request, DisableBody, { emptyAs: {} });
        return ok(view(setCanvasDisabled(ctx, actor, params.id, true, reason)));
      })
      .post('/api/admin/canvases/:id/enable', async ({ actor, params, request }) => {
        await readJson(request, DisableBody, { emptyAs: {} });
        return ok(view(setCanvasDisabled(ctx, actor, params.id, false)));
      })
      .get('/api/admin/usage', () => ok(diskUsage.read()))
      .get('/api/admin/settings', () => ok(ctx.settings.publicView()))
      .patch('/api/admin/settings', async ({ actor, request }) =>
        ok(updateSettings(ctx, actor, await readJson(request, PatchSettingsBody))),
      ),
  );
}
