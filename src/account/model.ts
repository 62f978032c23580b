// GET /api/me's answer: the dashboard's identity.
import { Type as T, type Static } from '@sinclair/typebox';

export const DashboardIdentity = T.Object({
  id: T.String(),
  email: T.String(),
  name: T.String(),
  avatarUrl: T.Union([T.String(), T.Null()]),
  isAdmin: T.Boolean(),
  orgs: T.Array(T.Object({ id: T.String(), name: T.String() }), { description: 'with tenancy off, the one implicit org' }),
  isGuest: T.Literal(false),
  canPublishPublic: T.Boolean({ description: "the account's right and the instance switch together" }),
  authMode: T.Union([T.Literal('dev'), T.Literal('oidc'), T.Literal('proxy')]),
  urlMode: T.Union([T.Literal('path'), T.Literal('subdomain')]),
  baseUrl: T.String(),
  designSkin: T.Literal('default'),
});
export type DashboardIdentity = Static<typeof DashboardIdentity>;
