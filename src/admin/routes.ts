// Admin routes (CONTRACT §4): users, canvas disable/enable, instance settings.
// Anyone but an instance admin gets 404, as if the routes did not exist.
// (Connection profile routes live with the Connections feature.)
import { Elysia } from 'elysia';
import type { DiskUsageReport } from './disk-usage.ts';
import type { CanvasWithRole } from '../canvases/service.ts';
import { canvasView } from '../canvases/view.ts';
import type { AppContext } from '../context.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { readJson } from '../http/json-body.ts';
import { json } from '../http/respond.ts';
import { DisableBody, PatchSettingsBody, PatchUserBody } from './model.ts';
import { adminUserView, getUser, setCanvasDisabled, updateSettings, updateUser } from './service.ts';

/** A page of at most 200 rows (50 unless asked). */
export function listLimit(raw: string | null): number {
  const n = Number(raw);
  return Number.isInteger(n) && n >= 1 ? Math.min(n, 200) : 50;
}

export function adminRoutes(ctx: AppContext, auth: AuthKinds, diskUsage: DiskUsageReport) {
  const ok = (body: unknown) => json(200, body, { 'cache-control': 'no-store' });
  const view = (r: CanvasWithRole) => canvasView(ctx.config, r.canvas, r.role);

  return new Elysia({ name: 'admin' }).use(auth).guard({ admin: true, parse: 'none' }, (app) =>
    app
      // `tenancy`: whether home orgs mean anything here (the dashboard offers the field only then).
      .get('/api/admin/users', async () =>
        ok({ users: (await ctx.users.list()).map((u) => adminUserView(ctx, u)), tenancy: ctx.config.tenancy }),
      )
      .get('/api/admin/users/:id', async ({ params }) => ok(adminUserView(ctx, await getUser(ctx, params.id))))
      .patch('/api/admin/users/:id', async ({ actor, params, request }) =>
        ok(adminUserView(ctx, await updateUser(ctx, actor, params.id, await readJson(request, PatchUserBody)))),
      )
      .post('/api/admin/canvases/:id/disable', async ({ actor, params, request }) => {
        const { reason } = await readJson(request, DisableBody, { emptyAs: {} });
        return ok(view(await setCanvasDisabled(ctx, actor, params.id, true, reason)));
      })
      .post('/api/admin/canvases/:id/enable', async ({ actor, params, request }) => {
        await readJson(request, DisableBody, { emptyAs: {} });
        return ok(view(await setCanvasDisabled(ctx, actor, params.id, false)));
      })
      .get('/api/admin/canvases', async ({ request }) => {
        const q = new URL(request.url).searchParams;
        const found = await ctx.canvases.search((q.get('q') ?? '').trim().slice(0, 200), listLimit(q.get('limit')));
        const owners = await Promise.all(found.map((c) => ctx.users.byId(c.ownerId)));
        return ok({
          canvases: found.map((c, i) => ({
            ...canvasView(ctx.config, c, 'admin'),
            ownerEmail: owners[i]?.email ?? null,
            disabledReason: c.disabledReason,
          })),
        });
      })
      .get('/api/admin/audit', async ({ request }) => {
        const q = new URL(request.url).searchParams;
        const before = Number(q.get('before'));
        const filter = {
          action: q.get('action')?.trim().slice(0, 100) || undefined,
          canvasId: q.get('canvasId')?.trim() || undefined,
          actorId: q.get('actorId')?.trim() || undefined,
          before: Number.isSafeInteger(before) && before > 0 ? before : undefined,
        };
        const entries = await ctx.audit.search(filter, listLimit(q.get('limit')));
        return ok({ entries, nextBefore: entries.length > 0 ? entries.at(-1)!.id : null });
      })
      .get('/api/admin/usage', () => ok(diskUsage.read()))
      .get('/api/admin/settings', () => ok(ctx.settings.publicView()))
      .patch('/api/admin/settings', async ({ actor, request }) =>
        ok(await updateSettings(ctx, actor, await readJson(request, PatchSettingsBody))),
      ),
  );
}
