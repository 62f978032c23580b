import { Elysia } from 'elysia';
import type { AppContext } from '../../context.ts';
import type { AuthKinds } from '../../server/auth-kinds.ts';
import { json } from '../../http/respond.ts';
import { enforceDeployRate } from '../key-auth.ts';
import { readBeginBody, readFinalizeBody } from './body.ts';
import type { UploadService } from './service.ts';

/**
 * The staged upload (Deploy API): begin, stage a blob, finalize. Key-based
 * writes act as the canvas owner. Begin and finalize count against the
 * deploy-class rate; staging does not (spec Limits).
 */
export function uploadRoutes(ctx: AppContext, auth: AuthKinds, uploads: UploadService) {
  return new Elysia({ name: 'deploy-uploads' })
    .use(auth)
    .post(
      '/v1/canvases/:id/uploads',
      async ({ request, canvas }) => {
        await enforceDeployRate(ctx, canvas.id);
        const body = await readBeginBody(request);
        const begun = await uploads.begin(canvas, canvas.ownerId, body);
        if (begun.kind === 'already_current') return json(200, begun.result);
        return json(200, { uploadId: begun.uploadId, missingHashes: begun.missingHashes });
      },
      { deployKey: true, parse: 'none' },
    )
    .put(
      '/v1/canvases/:id/uploads/:uploadId/blobs/:hash',
      async ({ request, params, canvas }) => {
        const length = request.headers.get('content-length');
        const contentLength = length !== null && /^\d+$/.test(length) ? Number(length) : null;
        await uploads.stage(canvas.id, canvas.ownerId, params.uploadId, params.hash, request.body, contentLength);
        return new Response(null, { status: 204 });
      },
      { deployKey: true, parse: 'none' },
    )
    .post(
      '/v1/canvases/:id/uploads/:uploadId/finalize',
      async ({ request, params, canvas }) => {
        await enforceDeployRate(ctx, canvas.id);
        const body = await readFinalizeBody(request);
        return json(200, await uploads.finalize(canvas, canvas.ownerId, params.uploadId, body));
      },
      { deployKey: 'finalize', parse: 'none' },
    );
}
