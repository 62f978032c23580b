// The staged upload (Deploy API): begin, stage a blob, finalize. Key-based
// writes act as the canvas owner. Begin and finalize count against the
// deploy-class rate before their body is read; staging does not (spec Limits).
import { declaredRoutes } from '../../http/declared-route.ts';
import { BeginUploadAnswer, DeployResult } from '../../openapi/schemas.ts';
import type { AuthKinds } from '../../server/auth-kinds.ts';
import { deployKeyRoute } from '../door-routes.ts';
import { BEGIN_BODY, BEGIN_ERRORS, BLOB_BODY, FINALIZE_BODY, FINALIZE_ERRORS, STAGE_ERRORS, STORED } from '../route-docs.ts';
import { contentLengthOf, readBeginBody, readFinalizeBody } from './body.ts';
import type { DeployFeature } from '../feature.ts';

export function uploadRoutes(auth: AuthKinds, deploy: Pick<DeployFeature, 'uploads' | 'rate'>) {
  const { uploads } = deploy;
  return declaredRoutes('deploy-uploads', auth, [
    deployKeyRoute(
      {
        method: 'POST',
        path: '/v1/canvases/:id/uploads',
        summary: 'Staged upload, step 1: the manifest; answers the hashes the server lacks',
        body: BEGIN_BODY,
        answer: BeginUploadAnswer,
        errors: BEGIN_ERRORS,
      },
      async ({ request, canvas }) => {
        await deploy.rate(canvas.id);
        const begun = await uploads.begin(canvas, canvas.ownerId, await readBeginBody(request));
        if (begun.kind === 'already_current') return begun.result;
        return { uploadId: begun.uploadId, missingHashes: begun.missingHashes };
      },
    ),
    deployKeyRoute(
      {
        method: 'PUT',
        path: '/v1/canvases/:id/uploads/:uploadId/blobs/:hash',
        summary: 'Staged upload, step 2: one missing blob (raw bytes)',
        body: BLOB_BODY,
        answer: STORED,
        errors: STAGE_ERRORS,
      },
      async ({ request, params, canvas }) => {
        await uploads.stage(canvas.id, canvas.ownerId, params.uploadId, params.hash, request.body, contentLengthOf(request));
        return new Response(null, { status: 204 });
      },
    ),
    deployKeyRoute(
      {
        method: 'POST',
        path: '/v1/canvases/:id/uploads/:uploadId/finalize',
        summary: 'Staged upload, step 3: publish',
        body: FINALIZE_BODY,
        answer: DeployResult,
        errors: FINALIZE_ERRORS,
        // The key the upload began with still finalizes it (src/deploy/key-auth.ts).
        doorOption: 'finalize',
      },
      async ({ request, params, canvas }) => {
        await deploy.rate(canvas.id);
        return uploads.finalize(canvas, canvas.ownerId, params.uploadId, await readFinalizeBody(request));
      },
    ),
  ]);
}
