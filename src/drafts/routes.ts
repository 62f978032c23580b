// The caller's browser draft of a canvas (owners, editors, admins):
// GET/DELETE /api/canvases/{id}/draft, GET/PUT/DELETE …/draft/file?path=,
// POST …/draft/revert, …/draft/rebase, …/draft/publish.
import type { Static } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import { managedCanvas } from '../canvases/authority.ts';
import type { AppContext } from '../context.ts';
import { enforceDeployRate } from '../deploy/key-auth.ts';
import { readBackResponse } from '../deploy/views.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { checkStrict, readJson } from '../http/json-body.ts';
import { json } from '../http/respond.ts';
import { DraftFileQuery, DraftPathBody, DraftWriteQuery, PublishDraftBody } from './model.ts';
import type { DraftService } from './service.ts';

function queryOf<S extends typeof DraftFileQuery | typeof DraftWriteQuery>(request: Request, schema: S): Static<S> {
  const query = Object.fromEntries(new URL(request.url).searchParams);
  checkStrict(schema, query);
  return query;
}

export function draftRoutes(ctx: AppContext, auth: AuthKinds, drafts: DraftService) {
  const ok = (body: unknown) => json(200, body, { 'cache-control': 'no-store' });
  return new Elysia({ name: 'drafts' }).use(auth).guard({ management: true, parse: 'none' }, (app) =>
    app
      .get('/api/canvases/:id/draft', async ({ actor, params }) => ok(await drafts.open(actor, params.id)))
      .delete('/api/canvases/:id/draft', async ({ actor, params }) => {
        await drafts.discard(actor, params.id);
        return new Response(null, { status: 204 });
      })
      .get('/api/canvases/:id/draft/file', async ({ actor, params, request }) => {
        const { path, from } = queryOf(request, DraftFileQuery);
        return readBackResponse(ctx, await drafts.file(actor, params.id, path, from ?? 'draft'));
      })
      .put('/api/canvases/:id/draft/file', async ({ actor, params, request }) => {
        const { path } = queryOf(request, DraftWriteQuery);
        return ok(await drafts.write(actor, params.id, path, request.body));
      })
      .delete('/api/canvases/:id/draft/file', async ({ actor, params, request }) =>
        ok(await drafts.remove(actor, params.id, queryOf(request, DraftWriteQuery).path)),
      )
      .post('/api/canvases/:id/draft/revert', async ({ actor, params, request }) => {
        const { path } = await readJson(request, DraftPathBody);
        return ok(await drafts.revert(actor, params.id, path));
      })
      .post('/api/canvases/:id/draft/rebase', async ({ actor, params, request }) => {
        await request.body?.cancel().catch(() => {});
        return ok(await drafts.rebase(actor, params.id));
      })
      .post('/api/canvases/:id/draft/publish', async ({ actor, params, request }) => {
        const { canvas } = await managedCanvas(ctx, actor, params.id, 'manage');
        await enforceDeployRate(ctx, canvas.id);
        const { expectedPublicationToken } = await readJson(request, PublishDraftBody, { emptyAs: {} });
        return ok(await drafts.publish(actor, params.id, expectedPublicationToken ?? null));
      }),
  );
}
