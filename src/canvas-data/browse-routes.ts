// The dashboard's data browser (issue 39): GET …/data/{kind}/items pages
// through what the export of that kind gives, with a search; DELETE
// …/data/{kind}/items/{item} removes one item as the runtime API would let
// the caller. Owners, editors and admins reach the canvas (anyone else 404,
// checked before anything is read); an admin without a role there is 403, as
// for exports, since the runtime rules give them nothing.
import { Elysia } from 'elysia';
import type { AppContext } from '../context.ts';
import { managedCanvas, type Actor } from '../canvases/authority.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { json } from '../http/respond.ts';
import type { BrowseKind } from './browse.ts';
import type { CanvasDataService } from './service.ts';

const PRIVATE = { 'cache-control': 'private, no-store' };

export function canvasDataBrowseRoutes(ctx: AppContext, auth: AuthKinds, data: CanvasDataService) {
  const browse = async (actor: Actor, id: string, request: Request, kind: BrowseKind, name: string | null) => {
    const managed = await managedCanvas(ctx, actor, id, 'manage');
    const query = Object.fromEntries(new URL(request.url).searchParams);
    const text = await data.browse(managed.canvas, actor.user, managed.role, kind, name, query);
    return new Response(text, { headers: { 'content-type': 'application/json; charset=utf-8', ...PRIVATE } });
  };
  const remove = async (actor: Actor, id: string, kind: BrowseKind, name: string | null, item: string | null) => {
    const managed = await managedCanvas(ctx, actor, id, 'manage');
    return json(200, await data.remove(managed.canvas, actor.user, managed.role, kind, name, item), PRIVATE);
  };
  const base = '/api/canvases/:id/data';
  return new Elysia({ name: 'canvas-data-browse' }).use(auth).guard({ management: true, parse: 'none' }, (app) =>
    app
      .get(`${base}/kv/items`, ({ actor, params, request }) => browse(actor, params.id, request, 'kv', null))
      .delete(`${base}/kv/items/:key`, ({ actor, params }) => remove(actor, params.id, 'kv', null, params.key))
      .get(`${base}/collections/:name/items`, ({ actor, params, request }) => browse(actor, params.id, request, 'collection', params.name))
      .delete(`${base}/collections/:name/items/:record`, ({ actor, params }) =>
        remove(actor, params.id, 'collection', params.name, params.record),
      )
      .get(`${base}/submissions/:collection/items`, ({ actor, params, request }) =>
        browse(actor, params.id, request, 'submissions', params.collection),
      )
      .delete(`${base}/submissions/:collection/items/:userId`, ({ actor, params }) =>
        remove(actor, params.id, 'submissions', params.collection, params.userId),
      )
      .get(`${base}/files/items`, ({ actor, params, request }) => browse(actor, params.id, request, 'files', null))
      .delete(`${base}/files/items/:file`, ({ actor, params }) => remove(actor, params.id, 'files', null, params.file)),
  );
}
