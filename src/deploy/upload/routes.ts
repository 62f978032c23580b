import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context.ts';
import { json } from '../../http/respond.ts';
import { authenticateDeployKey, enforceDeployRate } from '../key-auth.ts';
import { readBeginBody, readFinalizeBody } from './body.ts';
import type { UploadService } from './service.ts';

const CanvasParams = t.Object({ id: t.String() });
const UploadParams = t.Object({ id: t.String(), uploadId: t.String() });
const BlobParams = t.Object({ id: t.String(), uploadId: t.String(), hash: t.String() });

/**
 * The staged upload (Deploy API): begin, stage a blob, finalize. Key-based
 * writes act as the canvas owner. Begin and finalize count against the
 * deploy-class rate; staging does not (spec Limits).
 */
export function uploadRoutes(ctx: AppContext, uploads: UploadService) {
  return new Elysia({ name: 'deploy-uploads' })
    .post(
      '/v1/canvases/:id/uploads',
      async ({ request, params }) => {
        const canvas = authenticateDeployKey(ctx, request, params.id);
        enforceDeployRate(ctx, canvas.id);
        const body = await readBeginBody(request);
        const begun = uploads.begin(canvas, canvas.ownerId, body);
        if (begun.kind === 'already_current') return json(200, begun.result);
        return json(200, { uploadId: begun.uploadId, missingHashes: begun.missingHashes });
      },
      { parse: 'none', params: CanvasParams },
    )
    .put(
      '/v1/canvases/:id/uploads/:uploadId/blobs/:hash',
      async ({ request, params }) => {
        const canvas = authenticateDeployKey(ctx, request, params.id);
        const length = request.headers.get('content-length');
        const contentLength = length !== null && /^\d+$/.test(length) ? Number(length) : null;
        await uploads.stage(canvas.id, canvas.ownerId, params.uploadId, params.hash, request.body, contentLength);
        return new Response(null, { status: 204 });
      },
      { parse: 'none', params: BlobParams },
    )
    .post(
      '/v1/canvases/:id/uploads/:uploadId/finalize',
      async ({ request, params }) => {
        const canvas = authenticateDeployKey(ctx, request, params.id);
        enforceDeployRate(ctx, canvas.id);
        const body = await readFinalizeBody(request);
        return json(200, await uploads.finalize(canvas, canvas.ownerId, params.uploadId, body));
      },
      { parse: 'none', params: UploadParams },
    );
}
