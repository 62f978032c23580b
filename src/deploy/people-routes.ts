// The Deploy API's history and read-back for people (issue 22 item 1): the
// owner, editors and admins, with a session or a personal access token, get
// exactly what the canvas key gets, through the same services and codes.
import { Elysia } from 'elysia';
import { managedCanvas, type Actor } from '../canvases/authority.ts';
import type { AppContext } from '../context.ts';
import type { AuthKinds } from '../http/auth-kinds.ts';
import { readJson } from '../http/json-body.ts';
import { json } from '../http/respond.ts';
import { enforceDeployRate } from './key-auth.ts';
import { rollback, unpublish, type LifecycleActor } from './lifecycle.ts';
import { RollbackBody } from './model.ts';
import { fileListing, liveFile, liveFileResponse, versionList } from './views.ts';

export function peopleDeployRoutes(ctx: AppContext, auth: AuthKinds) {
  const ok = (body: unknown) => json(200, body, { 'cache-control': 'no-store' });
  const canvasOf = (actor: Actor, id: string) => managedCanvas(ctx, actor, id, 'manage');
  const as = (actor: Actor, asAdmin: boolean): LifecycleActor => ({ id: actor.user.id, kind: asAdmin ? 'admin' : 'user' });
  return new Elysia({ name: 'deploy-for-people' }).use(auth).guard({ management: true, parse: 'none' }, (app) =>
    app
      .get('/api/canvases/:id/versions', ({ actor, params }) => ok(versionList(ctx, canvasOf(actor, params.id).canvas)))
      .get('/api/canvases/:id/files', ({ actor, params, request }) => {
        const { canvas } = canvasOf(actor, params.id);
        const path = new URL(request.url).searchParams.get('path');
        if (path === null) return ok(fileListing(ctx, canvas));
        return liveFileResponse(ctx, liveFile(ctx, canvas, path));
      })
      .post('/api/canvases/:id/rollback', async ({ actor, params, request }) => {
        const m = canvasOf(actor, params.id);
        enforceDeployRate(ctx, m.canvas.id);
        const { version } = await readJson(request, RollbackBody);
        return ok(rollback(ctx, m.canvas, version, as(actor, m.asAdmin)));
      })
      .post('/api/canvases/:id/unpublish', async ({ actor, params, request }) => {
        const m = canvasOf(actor, params.id);
        await request.body?.cancel().catch(() => {});
        return ok(unpublish(ctx, m.canvas, as(actor, m.asAdmin)));
      }),
  );
}
