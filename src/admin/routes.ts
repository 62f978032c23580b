// Admin routes (CONTRACT §4): users, canvas disable/enable, instance settings.
// Anyone but an instance admin gets 404, as if the routes did not exist (the
// admin door). (Connection profile routes live with the Connections feature.)
import { Type as T } from '@sinclair/typebox';
import type { DiskUsageReport } from './disk-usage.ts';
import { adminRoute } from '../auth/door-routes.ts';
import type { CanvasWithRole } from '../canvases/service.ts';
import { canvasView } from '../canvases/view.ts';
import type { Core } from '../foundation.ts';
import { declaredRoutes } from '../http/declared-route.ts';
import { CanvasView } from '../openapi/schemas.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import {
  AdminUser,
  AdminUserList,
  AuditPage,
  DisableBody,
  DiskUsageAnswer,
  PatchSettingsBody,
  PatchUserBody,
  SettingsView,
} from './model.ts';
import type { AdminService } from './service.ts';

/** A page of at most 200 rows (50 unless asked). */
export function listLimit(raw: string | null | undefined): number {
  const n = Number(raw);
  return Number.isInteger(n) && n >= 1 ? Math.min(n, 200) : 50;
}

/** The `limit` query parameter of the admin lists. */
export const LIMIT_QUERY = T.Optional(T.String({ description: '1-200 (default 50)' }));

const AdminCanvasList = T.Object({
  canvases: T.Array(
    T.Intersect([CanvasView, T.Object({ ownerEmail: T.Union([T.String(), T.Null()]), disabledReason: T.Union([T.String(), T.Null()]) })]),
  ),
});

/** The service does the work; `ctx.config` gives the canvas views their URLs and says whether tenancy is on. */
export function adminRoutes(admin: AdminService, ctx: Pick<Core, 'config'>, auth: AuthKinds, diskUsage: DiskUsageReport) {
  const view = (r: CanvasWithRole) => canvasView(ctx.config, r.canvas, r.role);
  const BODY = ['INVALID_BODY'] as const;

  return declaredRoutes('admin', auth, [
    adminRoute(
      // `tenancy`: whether home orgs mean anything here (the dashboard offers the field only then).
      {
        method: 'GET',
        path: '/api/admin/users',
        tag: 'Admin',
        summary: 'Every user',
        answer: AdminUserList,
      },
      async () => ({ users: await admin.listUsers(), tenancy: ctx.config.tenancy }),
    ),
    adminRoute({ method: 'GET', path: '/api/admin/users/:id', summary: 'One user', answer: AdminUser }, async ({ params }) =>
      admin.userView(await admin.getUser(params.id)),
    ),
    adminRoute(
      {
        method: 'PATCH',
        path: '/api/admin/users/:id',
        summary: 'Deactivate, reactivate or limit a user',
        body: PatchUserBody,
        answer: AdminUser,
        errors: BODY,
      },
      async ({ actor, params, body }) => admin.userView(await admin.updateUser(actor, params.id, body)),
    ),
    adminRoute(
      {
        method: 'POST',
        path: '/api/admin/canvases/:id/disable',
        summary: 'Disable a canvas',
        body: DisableBody,
        bodyOptions: { emptyAs: {} },
        answer: CanvasView,
        errors: BODY,
      },
      async ({ actor, params, body }) => view(await admin.setCanvasDisabled(actor, params.id, true, body.reason)),
    ),
    adminRoute(
      {
        method: 'POST',
        path: '/api/admin/canvases/:id/enable',
        summary: 'Enable a disabled canvas',
        // The disable body is accepted (and checked) here too, its reason unused: the dashboard sends one shape for both.
        body: DisableBody,
        bodyOptions: { emptyAs: {} },
        answer: CanvasView,
        errors: BODY,
      },
      async ({ actor, params }) => view(await admin.setCanvasDisabled(actor, params.id, false)),
    ),
    adminRoute(
      {
        method: 'GET',
        path: '/api/admin/canvases',
        summary: 'Every canvas, newest first, searched by title, slug or owner email',
        query: T.Object({ q: T.Optional(T.String({ description: 'search text' })), limit: LIMIT_QUERY }),
        answer: AdminCanvasList,
      },
      async ({ query }) => {
        const found = await admin.searchCanvases((query.q ?? '').trim().slice(0, 200), listLimit(query.limit));
        return {
          canvases: found.map(({ canvas, ownerEmail }) => ({
            ...canvasView(ctx.config, canvas, 'admin'),
            ownerEmail,
            disabledReason: canvas.disabledReason,
          })),
        };
      },
    ),
    adminRoute(
      {
        method: 'GET',
        path: '/api/admin/audit',
        summary: 'The audit log, newest first, filtered',
        query: T.Object({
          action: T.Optional(T.String({ description: 'action prefix, e.g. canvas.' })),
          canvasId: T.Optional(T.String({ description: 'one canvas' })),
          actorId: T.Optional(T.String({ description: 'one person' })),
          before: T.Optional(T.String({ description: 'entries older than this id (paging)' })),
          limit: LIMIT_QUERY,
        }),
        answer: AuditPage,
      },
      async ({ query }) => {
        const before = Number(query.before ?? null);
        const filter = {
          action: query.action?.trim().slice(0, 100) || undefined,
          canvasId: query.canvasId?.trim() || undefined,
          actorId: query.actorId?.trim() || undefined,
          before: Number.isSafeInteger(before) && before > 0 ? before : undefined,
        };
        const entries = await admin.searchAudit(filter, listLimit(query.limit));
        return { entries, nextBefore: entries.length > 0 ? entries.at(-1)!.id : null };
      },
    ),
    adminRoute({ method: 'GET', path: '/api/admin/usage', summary: 'Database, blob store and disk usage', answer: DiskUsageAnswer }, () =>
      diskUsage.read(),
    ),
    adminRoute({ method: 'GET', path: '/api/admin/settings', summary: 'Instance settings', answer: SettingsView }, () => admin.settings()),
    adminRoute(
      {
        method: 'PATCH',
        path: '/api/admin/settings',
        summary: 'Change instance settings',
        body: PatchSettingsBody,
        answer: SettingsView,
        errors: [...BODY, 'SECRET_KEY_MISSING'],
      },
      async ({ actor, body }) => admin.updateSettings(actor, body),
    ),
  ]);
}
