// Admin routes for Connection profiles and grants (CONTRACT §4). Anyone but
// an instance admin gets 404, as if the routes did not exist; the body is
// looked at only after that.
import { Elysia } from 'elysia';
import { jsonBody, rawBody } from '../http/json-body.ts';
import { managementActor } from '../canvases/guard.ts';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
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

export function connectionAdminRoutes(ctx: AppContext) {
  const answer = (status: number, body: unknown) => json(status, body, { 'cache-control': 'no-store' });
  const admin = (request: Request) => {
    const actor = managementActor(ctx, request);
    if (!actor.isAdmin) throw new AppError('NOT_FOUND', 'no such route');
    return actor;
  };

  return new Elysia({ name: 'connection-admin' })
    .get('/api/admin/connections', ({ request }) => {
      admin(request);
      return answer(200, { connections: listProfiles(ctx) });
    })
    .post(
      '/api/admin/connections',
      ({ request, body }) => {
        const actor = admin(request);
        return answer(201, profileView(ctx, createProfile(ctx, actor, jsonBody(CreateProfileBody, request, body))));
      },
      rawBody,
    )
    .get('/api/admin/connections/:name', ({ request, params }) => {
      admin(request);
      return answer(200, profileView(ctx, getProfile(ctx, params.name)));
    })
    .patch(
      '/api/admin/connections/:name',
      ({ request, params, body }) => {
        const actor = admin(request);
        return answer(200, profileView(ctx, updateProfile(ctx, actor, params.name, jsonBody(PatchProfileBody, request, body))));
      },
      rawBody,
    )
    .delete('/api/admin/connections/:name', ({ request, params }) => {
      const actor = admin(request);
      deleteProfile(ctx, actor, params.name);
      return answer(200, { ok: true });
    })
    .get('/api/admin/canvases/:id/connections', ({ request, params }) => {
      admin(request);
      return answer(200, { connections: grantsOfCanvas(ctx, params.id) });
    })
    .put(
      '/api/admin/canvases/:id/connections/:name',
      ({ request, params }) => {
        const actor = admin(request);
        return answer(200, grantProfile(ctx, actor, params.id, params.name));
      },
      { parse: 'none' },
    )
    .delete('/api/admin/canvases/:id/connections/:name', ({ request, params }) => {
      const actor = admin(request);
      revokeProfile(ctx, actor, params.id, params.name);
      return answer(200, { ok: true });
    });
}
