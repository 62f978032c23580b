import type { Core } from '../../foundation.ts';
import { declaredRoutes } from '../../http/declared-route.ts';
import type { AuthKinds } from '../../server/auth-kinds.ts';
import { runtimeRoute } from '../door-routes.ts';
import { RuntimeIdentity } from './model.ts';
import { identityOf } from './service.ts';

/** GET /v1/c/{slug}/me: the identity capability. */
export function meRoutes(ctx: Pick<Core, 'config' | 'connections' | 'settings'>, auth: AuthKinds) {
  return declaredRoutes('runtime-me', auth, [
    runtimeRoute(
      {
        method: 'GET',
        path: '/v1/c/:slug/me',
        doorOption: 'identity',
        summary: 'The viewer, their role and the canvas capabilities',
        answer: RuntimeIdentity,
      },
      ({ caller }) => identityOf(ctx, caller),
    ),
  ]);
}
