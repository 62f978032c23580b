// The Deploy API (spec "Endpoints / Deploy API") except the staged upload
// (upload/routes.ts): PUT deploy, read-back, rollback, unpublish. Every route
// authenticates with the canvas key only: no cookies, no CORS.
import { Elysia } from 'elysia';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import type { AuthKinds } from '../http/auth-kinds.ts';
import { readJson } from '../http/json-body.ts';
import { json } from '../http/respond.ts';
import { enforceDeployRate } from './key-auth.ts';
import { RollbackBody } from './model.ts';
import { rollback, unpublish } from './lifecycle.ts';
import { validateCoordination } from './publish.ts';
import { canvasView, fileListing, liveFile, liveFileResponse, versionList } from './views.ts';
import { deployZip, tooLargeBody, ZIP_LIMITS } from './zip/deploy.ts';

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
            enforceDeployRate(ctx, canvas.id);
            const coordination = validateCoordination(coordinationQuery(new URL(request.url).searchParams));
            const declared = request.headers.get('content-length');
            if (declared !== null && Number(declared) > ZIP_LIMITS.bodyBytes) throw tooLargeBody();
            try {
              return json(200, await deployZip(ctx, canvas, request.body, coordination));
            } catch (err) {
              throw withRawBodyHint(err, request.headers.get('content-type'));
            }
          })
          .get('/v1/canvases/:id', ({ canvas }) => json(200, canvasView(ctx, canvas)))
          .get('/v1/canvases/:id/versions', ({ canvas }) => json(200, versionList(ctx, canvas)))
          .get('/v1/canvases/:id/files', ({ request, canvas }) => {
            const path = new URL(request.url).searchParams.get('path');
            if (path === null) return json(200, fileListing(ctx, canvas));
            return liveFileResponse(ctx, liveFile(ctx, canvas, path));
          })
          .post('/v1/canvases/:id/rollback', async ({ request, canvas }) => {
            enforceDeployRate(ctx, canvas.id);
            const { version } = await readJson(request, RollbackBody, {
              maxBytes: ROLLBACK_BODY_MAX,
              jsonTypeOnly: false,
              invalid: invalidBody,
              tooLarge: invalidBody,
            });
            return json(200, rollback(ctx, canvas, version));
          })
          .post('/v1/canvases/:id/unpublish', async ({ request, canvas }) => {
            // The body (if any) carries nothing; it is drained so the connection stays reusable.
            await request.body?.cancel().catch(() => {});
            return json(200, unpublish(ctx, canvas));
          }),
      )
  );
}

/**
 * `curl -d @site.zip` sends a form (and drops the archive's line breaks),
 * `curl -F file=@site.zip` a multipart body around it: neither is the ZIP.
 * The refusal says how to send the raw bytes.
 */
function withRawBodyHint(err: unknown, contentType: string | null): unknown {
  if (!(err instanceof AppError) || !['INVALID_ZIP', 'EMPTY_DEPLOY'].includes(err.errorCode)) return err;
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const sentAs =
    type === 'application/x-www-form-urlencoded'
      ? 'a form (curl -d)'
      : type === 'multipart/form-data'
        ? 'a multipart form (curl -F)'
        : null;
  if (sentAs === null) return err;
  return new AppError(
    err.errorCode,
    `${err.message}. The body was sent as ${sentAs}; send the ZIP's raw bytes instead: curl -X PUT --data-binary @site.zip -H 'Content-Type: application/zip' …`,
    err.extra,
  );
}

/** `releaseId` and `expectedPublicationToken` from the query; a repeated one is not a string. */
function coordinationQuery(query: URLSearchParams): { releaseId?: unknown; expectedPublicationToken?: unknown } {
  const one = (name: string): unknown => {
    const all = query.getAll(name);
    return all.length === 0 ? undefined : all.length === 1 ? all[0] : all;
  };
  return { releaseId: one('releaseId'), expectedPublicationToken: one('expectedPublicationToken') };
}

const invalidBody = () => new AppError('invalid_body', 'rollback takes {"version": <positive integer>}');
