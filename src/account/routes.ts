// GET /api/me: the dashboard's identity (spec, Adjacent routes). Canvas code
// uses /v1/c/{slug}/me instead. Not capability-gated; management rate class.
import type { User } from '../auth/users.ts';
import { sessionRoute } from '../auth/door-routes.ts';
import type { Core } from '../foundation.ts';
import { declaredRoutes } from '../http/declared-route.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { DashboardIdentity } from './model.ts';

/** With tenancy off every user belongs to this one implicit org. */
export const IMPLICIT_ORG = { id: 'default', name: 'Everyone' } as const;

export async function dashboardIdentity(
  ctx: Pick<Core, 'config' | 'settings' | 'users'>,
  user: User,
  isAdmin: boolean,
): Promise<DashboardIdentity> {
  const orgs = !ctx.config.tenancy
    ? [{ ...IMPLICIT_ORG }]
    : user.orgId
      ? [{ id: user.orgId, name: (await ctx.users.orgName(user.orgId)) ?? user.orgId }]
      : [];
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    avatarUrl: user.avatarUrl,
    isAdmin,
    orgs,
    isGuest: false,
    // What the dashboard may offer now: the account's right and the instance switch together.
    canPublishPublic: user.canPublishPublic && ctx.settings.get().publicLinks,
    authMode: ctx.config.authMode,
    urlMode: ctx.config.urlMode,
    baseUrl: ctx.config.baseUrl,
    designSkin: 'default',
  };
}

export function apiMeRoutes(ctx: Pick<Core, 'config' | 'settings' | 'users'>, auth: AuthKinds) {
  return declaredRoutes('api-me', auth, [
    sessionRoute({ method: 'GET', path: '/api/me', summary: 'Who is signed in', answer: DashboardIdentity }, ({ actor }) =>
      dashboardIdentity(ctx, actor.user, actor.isAdmin),
    ),
  ]);
}
