// Admin routes for Connection profiles and grants (CONTRACT §4). Anyone but
// an instance admin gets 404, as if the routes did not exist; the body is
// looked at only after that.
import { Elysia } from 'elysia';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { readJson } from '../http/json-body.ts';
import type { AppContext } from '../context.ts';
import { json } from '../http/respond.ts';
import { CreateProfileBody, PatchProfileBody } from './model.ts';
import {
  createProfile,
  deleteProfile,
  getProfile,
  grantProfile,
  grantsOfCanvas,
  listProfiles,
  profileView,
  revokeProfile,
  updateProfile,
} from './profiles.ts';

export function connectionAdminRoutes(ctx: AppContext, auth: AuthKinds) {
  const answer = (status: number, body: unknown) => json(status, body, { 'cache-control': 'no-store' });

  return new Elysia({ name: 'connection-admin' }).use(auth).guard({ admin: true, parse: 'none' }, (app) =>
    app
      .get('/api/admin/connections', async () => answer(200, { connections: await listProfiles(ctx) }))
      .post('/api/admin/connections', async ({ actor, request }) =>
        answer(201, await profileView(ctx, await createProfile(ctx, actor, await readJson(request, CreateProfileBody)))),
      )
      .get('/api/admin/connections/:name', async ({ params }) => answer(200, await profileView(ctx, getProfile(ctx, params.name))))
      .patch('/api/admin/connections/:name', async ({ actor, params, request }) =>
        answer(200, await profileView(ctx, await updateProfile(ctx, actor, params.name, await readJson(request, PatchProfileBody)))),
      )
      .delete('/api/admin/connections/:name', async ({ actor, params }) => {
        await deleteProfile(ctx, actor, params.name);
        return answer(200, { ok: true });
      })
      .get('/api/admin/canvases/:id/connections', async ({ params }) => answer(200, { connections: await grantsOfCanvas(ctx, params.id) }))
      .put('/api/admin/canvases/:id/connections/:name', async ({ actor, params }) =>
        answer(200, await grantProfile(ctx, actor, params.id, params.name)),
      )
      .delete('/api/admin/canvases/:id/connections/:name', async ({ actor, params }) => {
        await revokeProfile(ctx, actor, params.id, params.name);
        return answer(200, { ok: true });
      }),
  );
}
