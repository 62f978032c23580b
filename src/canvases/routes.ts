// Management API: /api/canvases (CONTRACT §4, minus guest invites and tokens).
// Every route: the caller (401, 429), then their right to the canvas (404,
// 403), then the body (400), then the rule itself.
import { Type as T } from '@sinclair/typebox';
import type { Core } from '../foundation.ts';
import { declaredRoutes } from '../http/declared-route.ts';
import { CanvasCreated, CanvasList, CanvasView, Member, MemberList, Ok } from '../openapi/schemas.ts';
import { sessionRoute } from '../auth/door-routes.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import type { Actor, Need } from './authority.ts';
import { CapabilitiesBody, CreateCanvasBody, PatchCanvasBody, PutMemberBody, PutOwnerBody } from './model.ts';
import type { CanvasService, CanvasWithRole } from './service.ts';
import type { Canvas } from './record.ts';
import { canvasView, listedCanvasView } from './view.ts';

/** What other features add to a manager's view of a canvas (authoring: where it was published from). */
export type ViewExtras = (canvas: Canvas) => Promise<Record<string, unknown>>;

/** The same for each managed canvas of a person's list, read once for the whole list (where it was published from, AI spend this month). */
export type ListExtras = (actor: Actor) => Promise<(canvas: Canvas) => Record<string, unknown>>;

/** The service does the work; `ctx.config` gives the views their URLs. */
export function canvasRoutes(
  canvases: CanvasService,
  ctx: Pick<Core, 'config'>,
  auth: AuthKinds,
  extras: ViewExtras = async () => ({}),
  listExtras: ListExtras = async () => () => ({}),
) {
  const view = async (r: CanvasWithRole) => ({ ...canvasView(ctx.config, r.canvas, r.role), ...(await extras(r.canvas)) });
  /** The right to the canvas is checked before its body is read. */
  const authorize = async (actor: Actor, id: string, need: Need): Promise<void> => void (await canvases.managed(actor, id, need));

  const BODY = ['INVALID_BODY'] as const;

  return declaredRoutes('canvas-management', auth, [
    sessionRoute(
      {
        method: 'POST',
        path: '/api/canvases',
        summary: 'Create a canvas (answers its deploy key once)',
        body: CreateCanvasBody,
        answer: CanvasCreated,
        status: 201,
        errors: [...BODY, 'SLUG_TAKEN', 'QUOTA_EXCEEDED'],
      },
      async ({ actor, body }) => {
        const created = await canvases.create(actor, body);
        return { ...(await view(created)), apiKey: created.apiKey };
      },
    ),
    sessionRoute(
      { method: 'GET', path: '/api/canvases', summary: 'Canvases you own or that are shared with you', answer: CanvasList },
      async ({ actor }) => {
        const [rows, facts, more] = await Promise.all([canvases.list(actor), canvases.homeFacts(actor), listExtras(actor)]);
        // Those who manage a canvas also see how widely it is shared, when it was last deployed and what other features add.
        const withFacts = (r: CanvasWithRole) =>
          r.role === 'viewer'
            ? listedCanvasView(ctx.config, r.canvas, r.role)
            : {
                ...listedCanvasView(ctx.config, r.canvas, r.role),
                ...(facts.get(r.canvas.id) ?? { people: 0, lastDeployAt: null }),
                ...more(r.canvas),
              };
        return { canvases: rows.map(withFacts) };
      },
    ),
    sessionRoute(
      { method: 'GET', path: '/api/canvases/:id', summary: 'One canvas', answer: CanvasView, errors: ['NOT_FOUND'] },
      async ({ actor, params }) => view(await canvases.get(actor, params.id)),
    ),
    sessionRoute(
      {
        method: 'PATCH',
        path: '/api/canvases/:id',
        summary: 'Title, slug, sharing, password, expiry',
        body: PatchCanvasBody,
        answer: CanvasView,
        errors: ['NOT_FOUND', ...BODY, 'SLUG_TAKEN', 'PUBLIC_LINKS_DISABLED', 'PUBLIC_NOT_ALLOWED', 'ORG_REQUIRED', 'PERMISSION_DENIED'],
      },
      {
        check: ({ actor, params }) => authorize(actor, params.id, 'manage'),
        handle: async ({ actor, params, body }) => view(await canvases.update(actor, params.id, body)),
      },
    ),
    sessionRoute(
      {
        method: 'DELETE',
        path: '/api/canvases/:id',
        summary: 'Delete a canvas',
        answer: Ok,
        errors: ['NOT_FOUND', 'PERMISSION_DENIED'],
      },
      async ({ actor, params }) => {
        await canvases.delete(actor, params.id);
        return { ok: true } as const;
      },
    ),
    sessionRoute(
      {
        method: 'PATCH',
        path: '/api/canvases/:id/capabilities',
        summary: 'Capability switches, audiences and the runtime policy (compare-and-swap)',
        body: CapabilitiesBody,
        answer: CanvasView,
        errors: ['NOT_FOUND', ...BODY, 'POLICY_CONFLICT', 'PERMISSION_DENIED'],
      },
      {
        check: ({ actor, params }) => authorize(actor, params.id, 'manage'),
        handle: async ({ actor, params, body }) => view(await canvases.capabilities.set(actor, params.id, body)),
      },
    ),
    sessionRoute(
      {
        method: 'POST',
        path: '/api/canvases/:id/regenerate-key',
        summary: 'A new deploy key (the old one stops working)',
        answer: T.Object({ apiKey: T.String() }),
        errors: ['NOT_FOUND', 'PERMISSION_DENIED'],
      },
      async ({ actor, params }) => canvases.regenerateKey(actor, params.id),
    ),
    sessionRoute(
      {
        method: 'POST',
        path: '/api/canvases/:id/archive',
        summary: 'Archive',
        answer: CanvasView,
        errors: ['NOT_FOUND', 'PERMISSION_DENIED'],
      },
      async ({ actor, params }) => view(await canvases.setArchived(actor, params.id, true)),
    ),
    sessionRoute(
      {
        method: 'POST',
        path: '/api/canvases/:id/restore',
        summary: 'Restore an archived canvas',
        answer: CanvasView,
        errors: ['NOT_FOUND', 'PERMISSION_DENIED'],
      },
      async ({ actor, params }) => view(await canvases.setArchived(actor, params.id, false)),
    ),
    sessionRoute(
      {
        method: 'GET',
        path: '/api/canvases/:id/members',
        summary: 'The people on the list',
        answer: MemberList,
        errors: ['NOT_FOUND'],
      },
      async ({ actor, params }) => ({ members: await canvases.members.list(actor, params.id) }),
    ),
    sessionRoute(
      {
        method: 'PUT',
        path: '/api/canvases/:id/members',
        summary: 'Add or change a member (editor or viewer)',
        body: PutMemberBody,
        answer: Member,
        errors: ['NOT_FOUND', ...BODY, 'PERMISSION_DENIED'],
      },
      {
        check: ({ actor, params }) => authorize(actor, params.id, 'manage'),
        handle: async ({ actor, params, body }) => canvases.members.put(actor, params.id, body),
      },
    ),
    sessionRoute(
      {
        method: 'PUT',
        path: '/api/canvases/:id/owner',
        summary:
          'Give the canvas to another active user, by email (owner or admin; the previous owner stays as an editor; an unknown or deactivated person: 404)',
        body: PutOwnerBody,
        answer: CanvasView,
        errors: ['NOT_FOUND', 'PERMISSION_DENIED', ...BODY, 'QUOTA_EXCEEDED'],
      },
      {
        check: ({ actor, params }) => authorize(actor, params.id, 'own'),
        handle: async ({ actor, params, body }) => {
          const { canvas } = await canvases.ownership.transfer(actor, params.id, body);
          return view({ canvas, role: (await canvases.viewRoleFor(actor, canvas)) ?? 'viewer' });
        },
      },
    ),
    sessionRoute(
      {
        method: 'DELETE',
        path: '/api/canvases/:id/members/:userId',
        summary: 'Remove a member',
        answer: Ok,
        // A user id that is not one (a malformed escape in the path) is 400.
        errors: ['NOT_FOUND', 'PERMISSION_DENIED', 'INVALID_BODY'],
      },
      async ({ actor, params }) => {
        await canvases.members.remove(actor, params.id, params.userId);
        return { ok: true } as const;
      },
    ),
  ]);
}
