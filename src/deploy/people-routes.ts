// The Deploy API for people (issue 22 items 1 and 2): the owner, editors and
// admins, with a session or a personal access token, deploy (ZIP or staged),
// read back, roll back and unpublish exactly as the canvas key does, through
// the same services and codes, audited as themselves.
import { Elysia } from 'elysia';
import { managedCanvas, type Actor } from '../canvases/authority.ts';
import type { AppContext } from '../context.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { readJson } from '../http/json-body.ts';
import { json } from '../http/respond.ts';
import { enforceDeployRate } from './key-auth.ts';
import { rollback, unpublish, type LifecycleActor } from './lifecycle.ts';
import { RollbackBody } from './model.ts';
import { readBeginBody, readFinalizeBody } from './upload/body.ts';
import type { UploadService } from './upload/service.ts';
import { fileListing, liveFile, readBackResponse, versionList } from './views.ts';
import { deployZipRequest } from './zip/request.ts';

export function peopleDeployRoutes(ctx: AppContext, auth: AuthKinds, uploads: UploadService) {
  const ok = (body: unknown) => json(200, body, { 'cache-control': 'no-store' });
  const canvasOf = (actor: Actor, id: string) => managedCanvas(ctx, actor, id, 'manage');
  const as = (actor: Actor, asAdmin: boolean): LifecycleActor => ({ id: actor.user.id, kind: asAdmin ? 'admin' : 'user' });
  return new Elysia({ name: 'deploy-for-people' }).use(auth).guard({ management: true, parse: 'none' }, (app) =>
    app
      .get('/api/canvases/:id/versions', async ({ actor, params }) => ok(await versionList(ctx, (await canvasOf(actor, params.id)).canvas)))
      .get('/api/canvases/:id/files', async ({ actor, params, request }) => {
        const { canvas } = await canvasOf(actor, params.id);
        const path = new URL(request.url).searchParams.get('path');
        if (path === null) return ok(await fileListing(ctx, canvas));
        return readBackResponse(ctx, await liveFile(ctx, canvas, path));
      })
      .post('/api/canvases/:id/rollback', async ({ actor, params, request }) => {
        const m = await canvasOf(actor, params.id);
        await enforceDeployRate(ctx, m.canvas.id);
        const { version } = await readJson(request, RollbackBody);
        return ok(await rollback(ctx, m.canvas, version, as(actor, m.asAdmin)));
      })
      .post('/api/canvases/:id/unpublish', async ({ actor, params, request }) => {
        const m = await canvasOf(actor, params.id);
        await request.body?.cancel().catch(() => {});
        return ok(await unpublish(ctx, m.canvas, as(actor, m.asAdmin)));
      })
      .put('/api/canvases/:id/deploy', async ({ actor, params, request }) => {
        const m = await canvasOf(actor, params.id);
        await enforceDeployRate(ctx, m.canvas.id);
        return ok(await deployZipRequest(ctx, m.canvas, request, as(actor, m.asAdmin)));
      })
      .post('/api/canvases/:id/uploads', async ({ actor, params, request }) => {
        const { canvas } = await canvasOf(actor, params.id);
        await enforceDeployRate(ctx, canvas.id);
        const begun = await uploads.begin(canvas, actor.user.id, await readBeginBody(request));
        if (begun.kind === 'already_current') return ok(begun.result);
        return ok({ uploadId: begun.uploadId, missingHashes: begun.missingHashes });
      })
      .put('/api/canvases/:id/uploads/:uploadId/blobs/:hash', async ({ actor, params, request }) => {
        const { canvas } = await canvasOf(actor, params.id);
        const length = request.headers.get('content-length');
        const contentLength = length !== null && /^\d+$/.test(length) ? Number(length) : null;
        await uploads.stage(canvas.id, actor.user.id, params.uploadId, params.hash, request.body, contentLength);
        return new Response(null, { status: 204 });
      })
      .post('/api/canvases/:id/uploads/:uploadId/finalize', async ({ actor, params, request }) => {
        const m = await canvasOf(actor, params.id);
        await enforceDeployRate(ctx, m.canvas.id);
        const body = await readFinalizeBody(request);
        return ok(await uploads.finalize(m.canvas, actor.user.id, params.uploadId, body, { auditKind: as(actor, m.asAdmin).kind }));
      }),
  );
}
