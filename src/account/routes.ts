// GET /api/me: the dashboard's identity (spec, Adjacent routes). Canvas code
// uses /v1/c/{slug}/me instead. Not capability-gated; management rate class.
import { Elysia } from 'elysia';
import type { User } from '../auth/users.ts';
import type { AppContext } from '../context.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { json } from '../http/respond.ts';

/** With tenancy off every user belongs to this one implicit org. */
export const IMPLICIT_ORG = { id: 'default', name: 'Everyone' } as const;

export interface DashboardIdentity {
  id: string;
  email: string;
  name: string;
  avatarUrl: string | null;
  isAdmin: boolean;
  orgs: Array<{ id: string; name: string }>;
  isGuest: false;
  canPublishPublic: boolean;
  authMode: AppContext['config']['authMode'];
  urlMode: AppContext['config']['urlMode'];
  baseUrl: string;
  designSkin: 'default';
}

export async function dashboardIdentity(ctx: AppContext, user: User, isAdmin: boolean): Promise<DashboardIdentity> {
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

export function apiMeRoutes(ctx: AppContext, auth: AuthKinds) {
  return new Elysia({ name: 'api-me' })
    .use(auth)
    .get(
      '/api/me',
      async ({ actor }) => json(200, await dashboardIdentity(ctx, actor.user, actor.isAdmin), { 'cache-control': 'no-store' }),
      {
        management: true,
      },
    );
}
