// Admin routes (CONTRACT §4): users, canvas disable/enable, instance settings.
// Anyone but an instance admin gets 404, as if the routes did not exist.
// (Connection profile routes live with the Connections feature.)
import { Elysia } from 'elysia';
import { jsonBody, rawBody } from '../http/json-body.ts';
import { managementActor } from '../canvases/guard.ts';
import type { CanvasWithRole } from '../canvases/service.ts';
import { canvasView } from '../canvases/view.ts';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { json } from '../http/respond.ts';
import { DisableBody, PatchSettingsBody, PatchUserBody } from './model.ts';
import { adminUserView, getUser, setCanvasDisabled, updateSettings, updateUser } from './service.ts';

export function adminRoutes(ctx: AppContext) {
  const ok = (body: unknown) => json(200, body, { 'cache-control': 'no-store' });
  const view = (r: CanvasWithRole) => canvasView(ctx.config, r.canvas, r.role);
  const admin = (request: Request) => {
    const actor = managementActor(ctx, request);
    if (!actor.isAdmin) throw new AppError('NOT_FOUND', 'no such route');
    return actor;
  };

  return new Elysia({ name: 'admin' })
    .get('/api/admin/users', ({ request }) => {
      admin(request);
      return ok({ users: ctx.users.list().map((u) => adminUserView(ctx, u)) });
    })
    .get('/api/admin/users/:id', ({ request, params }) => {
      admin(request);
      return ok(adminUserView(ctx, getUser(ctx, params.id)));
    })
    .patch(
      '/api/admin/users/:id',
      ({ request, params, body }) => {
        const actor = admin(request);
        return ok(adminUserView(ctx, updateUser(ctx, actor, params.id, jsonBody(PatchUserBody, request, body))));
      },
      rawBody,
    )
    .post(
      '/api/admin/canvases/:id/disable',
      ({ request, params, body }) => {
        const actor = admin(request);
        const { reason } = jsonBody(DisableBody, request, body, {});
        return ok(view(setCanvasDisabled(ctx, actor, params.id, true, reason)));
      },
      rawBody,
    )
    .post(
      '/api/admin/canvases/:id/enable',
      ({ request, params, body }) => {
        const actor = admin(request);
        jsonBody(DisableBody, request, body, {});
        return ok(view(setCanvasDisabled(ctx, actor, params.id, false)));
      },
      rawBody,
    )
    .get('/api/admin/settings', ({ request }) => {
      admin(request);
      return ok(ctx.settings.publicView());
    })
    .patch(
      '/api/admin/settings',
      ({ request, body }) => {
        const actor = admin(request);
        return ok(updateSettings(ctx, actor, jsonBody(PatchSettingsBody, request, body)));
      },
      rawBody,
    );
}
