// The Deploy API (spec "Endpoints / Deploy API") except the staged upload
// (upload/routes.ts): PUT deploy, read-back, rollback, unpublish. Every route
// authenticates with the canvas key only: no cookies, no CORS.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { readTextCapped } from '../http/read-capped.ts';
import { json } from '../http/respond.ts';
import { authenticateDeployKey, enforceDeployRate } from './key-auth.ts';
import { rollback, unpublish } from './lifecycle.ts';
import { validateCoordination } from './publish.ts';
import { canvasView, fileListing, liveFile, versionList } from './views.ts';
import { deployZip, tooLargeBody, ZIP_LIMITS } from './zip/deploy.ts';

const CanvasParams = t.Object({ id: t.String() });
/** A rollback body is one small object. */
const ROLLBACK_BODY_MAX = 16 * 1024;

export function deployRoutes(ctx: AppContext) {
  return new Elysia({ name: 'deploy-api' })
    .put(
      '/v1/canvases/:id/deploy',
      async ({ request, params }) => {
        const canvas = authenticateDeployKey(ctx, request, params.id);
        enforceDeployRate(ctx, canvas.id);
        const coordination = validateCoordination(coordinationQuery(new URL(request.url).searchParams));
        const declared = request.headers.get('content-length');
        if (declared !== null && Number(declared) > ZIP_LIMITS.bodyBytes) throw tooLargeBody();
        return json(200, await deployZip(ctx, canvas, request.body, coordination));
      },
      // The body is read as a ZIP whatever its Content-Type, as a stream.
      { parse: 'none', params: CanvasParams },
    )
    .get('/v1/canvases/:id', ({ request, params }) => json(200, canvasView(ctx, authenticateDeployKey(ctx, request, params.id))), {
      params: CanvasParams,
    })
    .get(
      '/v1/canvases/:id/versions',
      ({ request, params }) => json(200, versionList(ctx, authenticateDeployKey(ctx, request, params.id))),
      {
        params: CanvasParams,
      },
    )
    .get(
      '/v1/canvases/:id/files',
      ({ request, params }) => {
        const canvas = authenticateDeployKey(ctx, request, params.id);
        const path = new URL(request.url).searchParams.get('path');
        if (path === null) return json(200, fileListing(ctx, canvas));
        const file = liveFile(ctx, canvas, path);
        if (!ctx.blobs.has(file.hash)) throw new Error(`blob ${file.hash} of a live version is missing`);
        return new Response(ctx.blobs.file(file.hash), {
          headers: {
            'content-type': file.mime,
            'content-length': String(file.size),
            etag: `"${file.hash}"`,
            'cache-control': 'no-store',
            // The API host must never run a deployed page as its own.
            'x-content-type-options': 'nosniff',
            'content-security-policy': "sandbox; default-src 'none'",
          },
        });
      },
      { params: CanvasParams },
    )
    .post(
      '/v1/canvases/:id/rollback',
      async ({ request, params }) => {
        const canvas = authenticateDeployKey(ctx, request, params.id);
        enforceDeployRate(ctx, canvas.id);
        return json(200, rollback(ctx, canvas, await readRollbackVersion(request)));
      },
      { parse: 'none', params: CanvasParams },
    )
    .post(
      '/v1/canvases/:id/unpublish',
      async ({ request, params }) => {
        const canvas = authenticateDeployKey(ctx, request, params.id);
        // The body (if any) carries nothing; it is drained so the connection stays reusable.
        await request.body?.cancel().catch(() => {});
        return json(200, unpublish(ctx, canvas));
      },
      { parse: 'none', params: CanvasParams },
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

/** `{version: positive integer}`, read whatever the Content-Type; anything else is `{error: "invalid_body"}`. */
async function readRollbackVersion(request: Request): Promise<number> {
  const text = await readTextCapped(request, ROLLBACK_BODY_MAX);
  if (text === null) throw invalidBody();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw invalidBody();
  }
  const version = (body as { version?: unknown } | null)?.version;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1) throw invalidBody();
  return version;
}

const invalidBody = () => new AppError('invalid_body', 'rollback takes {"version": <positive integer>}');
