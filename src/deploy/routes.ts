// The Deploy API (spec "Endpoints / Deploy API") except the staged upload
// (upload/routes.ts): PUT deploy, read-back, rollback, unpublish. Every route
// authenticates with the canvas key only: no cookies, no CORS.
import { Elysia } from 'elysia';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { readJson } from '../http/json-body.ts';
import { json } from '../http/respond.ts';
import { enforceDeployRate } from './key-auth.ts';
import { RollbackBody } from './model.ts';
import { rollback, unpublish } from './lifecycle.ts';
import { canvasView, fileListing, liveFile, readBackResponse, versionList } from './views.ts';
import { deployZipRequest } from './zip/request.ts';

/** A rollback body is one small object. */
const ROLLBACK_BODY_MAX = 16 * 1024;

export function deployRoutes(ctx: AppContext, auth: AuthKinds) {
  return (
    new Elysia({ name: 'deploy-api' })
      .use(auth)
      // The body is read by the handler, after the key: a ZIP whatever its Content-Type, as a stream.
      .guard({ deployKey: true, parse: 'none' }, (app) =>
        app
          .put('/v1/canvases/:id/deploy', async ({ request, canvas }) => {
            await enforceDeployRate(ctx, canvas.id);
            return json(200, await deployZipRequest(ctx, canvas, request));
          })
          .get('/v1/canvases/:id', async ({ canvas }) => json(200, await canvasView(ctx, canvas)))
          .get('/v1/canvases/:id/versions', async ({ canvas }) => json(200, await versionList(ctx, canvas)))
          .get('/v1/canvases/:id/files', async ({ request, canvas }) => {
            const path = new URL(request.url).searchParams.get('path');
            if (path === null) return json(200, await fileListing(ctx, canvas));
            return readBackResponse(ctx, await liveFile(ctx, canvas, path));
          })
          .post('/v1/canvases/:id/rollback', async ({ request, canvas }) => {
            await enforceDeployRate(ctx, canvas.id);
            const { version } = await readJson(request, RollbackBody, {
              maxBytes: ROLLBACK_BODY_MAX,
              jsonTypeOnly: false,
              invalid: invalidBody,
              tooLarge: invalidBody,
            });
            return json(200, await rollback(ctx, canvas, version));
          })
          .post('/v1/canvases/:id/unpublish', async ({ request, canvas }) => {
            // The body (if any) carries nothing; it is drained so the connection stays reusable.
            await request.body?.cancel().catch(() => {});
            return json(200, await unpublish(ctx, canvas));
          }),
      )
  );
}

const invalidBody = () => new AppError('invalid_body', 'rollback takes {"version": <positive integer>}');
