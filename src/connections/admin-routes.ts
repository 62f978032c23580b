// Admin routes for Connection profiles and grants (CONTRACT §4). Anyone but
// an instance admin gets 404, as if the routes did not exist (the admin
// door); the body is looked at only after that.
import { adminRoute } from '../auth/door-routes.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { declaredRoutes } from '../http/declared-route.ts';
import { Ok } from '../openapi/schemas.ts';
import { CanvasGrants, CreateProfileBody, GrantAnswer, PatchProfileBody, ProfileAnswer, ProfileList } from './model.ts';
import type { ConnectionProfiles } from './profiles.ts';

export function connectionAdminRoutes(profiles: ConnectionProfiles, auth: AuthKinds) {
  const BODY = ['INVALID_BODY'] as const;

  return declaredRoutes('connection-admin', auth, [
    adminRoute(
      { method: 'GET', path: '/api/admin/connections', summary: 'Connection profiles (header names only)', answer: ProfileList },
      async () => ({ connections: await profiles.list() }),
    ),
    adminRoute(
      {
        method: 'POST',
        path: '/api/admin/connections',
        summary: 'Create a Connection profile',
        body: CreateProfileBody,
        answer: ProfileAnswer,
        status: 201,
        errors: [...BODY, 'CONNECTION_EXISTS', 'SECRET_KEY_MISSING'],
      },
      async ({ actor, body }) => profiles.view(await profiles.create(actor, body)),
    ),
    adminRoute(
      { method: 'GET', path: '/api/admin/connections/:name', summary: 'One Connection profile', answer: ProfileAnswer },
      async ({ params }) => profiles.view(profiles.get(params.name)),
    ),
    adminRoute(
      {
        method: 'PATCH',
        path: '/api/admin/connections/:name',
        summary: 'Change a Connection profile',
        body: PatchProfileBody,
        answer: ProfileAnswer,
        errors: [...BODY, 'SECRET_KEY_MISSING'],
      },
      async ({ actor, params, body }) => profiles.view(await profiles.update(actor, params.name, body)),
    ),
    adminRoute(
      { method: 'DELETE', path: '/api/admin/connections/:name', summary: 'Delete a Connection profile', answer: Ok },
      async ({ actor, params }) => {
        await profiles.delete(actor, params.name);
        return { ok: true } as const;
      },
    ),
    adminRoute(
      { method: 'GET', path: '/api/admin/canvases/:id/connections', summary: 'Connections granted to a canvas', answer: CanvasGrants },
      async ({ params }) => ({ connections: await profiles.grantsOf(params.id) }),
    ),
    adminRoute(
      {
        method: 'PUT',
        path: '/api/admin/canvases/:id/connections/:name',
        summary: 'Grant a Connection to a canvas',
        answer: GrantAnswer,
      },
      async ({ actor, params }) => profiles.grant(actor, params.id, params.name),
    ),
    adminRoute(
      {
        method: 'DELETE',
        path: '/api/admin/canvases/:id/connections/:name',
        summary: 'Withdraw a Connection from a canvas',
        answer: Ok,
      },
      async ({ actor, params }) => {
        await profiles.revoke(actor, params.id, params.name);
        return { ok: true } as const;
      },
    ),
  ]);
}
