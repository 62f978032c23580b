// The dashboard's data browser (issue 39): GET …/data/{kind}/items pages
// through what the export of that kind gives, with a search; DELETE
// …/data/{kind}/items/{item} removes one item as the runtime API would let
// the caller. Owners, editors and admins reach the canvas (anyone else 404,
// checked before anything is read); an admin without a role there is 403, as
// for exports, since the runtime rules give them nothing.
import type { Core } from '../foundation.ts';
import { managedCanvas, type Actor } from '../canvases/authority.ts';
import { sessionRoute } from '../auth/door-routes.ts';
import type { ErrorCode } from '../errors.ts';
import { declaredRoutes } from '../http/declared-route.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import type { BrowseKind } from './browse.ts';
import { BrowseAnswer, BrowseQueryDoc, EXPORT_ERRORS, PRIVATE, RemovedAnswer } from './model.ts';
import type { CanvasDataService } from './service.ts';

/** The canvases answer who may manage one; the data is the service's. */
export function canvasDataBrowseRoutes(ctx: Pick<Core, 'canvases'>, auth: AuthKinds, data: CanvasDataService) {
  const browse = async (actor: Actor, id: string, request: Request, kind: BrowseKind, name: string | null) => {
    const managed = await managedCanvas(ctx, actor, id, 'manage');
    // The whole query goes to the page reader, which refuses unknown parameters.
    const query = Object.fromEntries(new URL(request.url).searchParams);
    const text = await data.browse(managed.canvas, actor.user, managed.role, kind, name, query);
    return new Response(text, { headers: { 'content-type': 'application/json; charset=utf-8', ...PRIVATE } });
  };
  const remove = async (actor: Actor, id: string, kind: BrowseKind, name: string | null, item: string | null) => {
    const managed = await managedCanvas(ctx, actor, id, 'manage');
    return data.remove(managed.canvas, actor.user, managed.role, kind, name, item);
  };
  const listing = <P extends string>(path: P, what: string, more: ErrorCode[] = []) =>
    ({
      method: 'GET',
      path,
      tag: 'Management',
      summary: `Browse ${what}: a page, with a search (the export's rows and rules)`,
      query: BrowseQueryDoc,
      answer: BrowseAnswer,
      errors: [...EXPORT_ERRORS, ...more],
    }) as const;
  const removal = <P extends string>(path: P, what: string, more: ErrorCode[] = []) =>
    ({
      method: 'DELETE',
      path,
      tag: 'Management',
      summary: `Delete ${what} as the runtime API would let the caller (audited)`,
      answer: RemovedAnswer,
      errors: [...EXPORT_ERRORS, ...more],
      headers: PRIVATE,
    }) as const;
  const base = '/api/canvases/:id/data';
  return declaredRoutes('canvas-data-browse', auth, [
    sessionRoute(listing(`${base}/kv/items`, 'the shared KV keys'), ({ actor, params, request }) =>
      browse(actor, params.id, request, 'kv', null),
    ),
    sessionRoute(
      removal(`${base}/kv/items/:key`, 'a shared key (owners and editors; idempotent)', ['KEY_TOO_LARGE']),
      ({ actor, params }) => remove(actor, params.id, 'kv', null, params.key),
    ),
    sessionRoute(
      listing(`${base}/collections/:name/items`, "a collection's records the caller may read", ['COLLECTION_NOT_CONFIGURED']),
      ({ actor, params, request }) => browse(actor, params.id, request, 'collection', params.name),
    ),
    sessionRoute(
      removal(`${base}/collections/:name/items/:record`, "a collection record (the policy's delete rule)", ['COLLECTION_NOT_CONFIGURED']),
      ({ actor, params }) => remove(actor, params.id, 'collection', params.name, params.record),
    ),
    sessionRoute(
      listing(`${base}/submissions/:collection/items`, 'a submissions collection (owners and editors)'),
      ({ actor, params, request }) => browse(actor, params.id, request, 'submissions', params.collection),
    ),
    sessionRoute(
      removal(`${base}/submissions/:collection/items/:userId`, "someone's submission (owners and editors; idempotent)"),
      ({ actor, params }) => remove(actor, params.id, 'submissions', params.collection, params.userId),
    ),
    sessionRoute(listing(`${base}/files/items`, 'the runtime files the caller may read'), ({ actor, params, request }) =>
      browse(actor, params.id, request, 'files', null),
    ),
    sessionRoute(removal(`${base}/files/items/:file`, 'a runtime file'), ({ actor, params }) =>
      remove(actor, params.id, 'files', null, params.file),
    ),
  ]);
}
