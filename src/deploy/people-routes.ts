// The Deploy API for people (issue 22 items 1 and 2): the owner, editors and
// admins, with a session or a personal access token, deploy (ZIP or staged),
// read back, roll back and unpublish exactly as the canvas key does, through
// the same services and codes, audited as themselves. The right to the
// canvas (404) comes before the rate and the body.
import type { Actor } from '../canvases/authority.ts';
import { managedOnce } from '../canvases/managed-once.ts';
import { sessionRoute } from '../auth/door-routes.ts';
import type { Core } from '../foundation.ts';
import { declaredRoutes } from '../http/declared-route.ts';
import { BeginUploadAnswer, DeployResult, FileListing, VersionList } from '../openapi/schemas.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import type { LifecycleActor } from './lifecycle.ts';
import { RollbackAnswer, RollbackBody, UnpublishAnswer } from './model.ts';
import {
  BEGIN_BODY,
  BEGIN_ERRORS,
  BLOB_BODY,
  DeployQuery,
  FINALIZE_BODY,
  FINALIZE_ERRORS,
  LiveFileQuery,
  ROLLBACK_ERRORS,
  STAGE_ERRORS,
  STORED,
  ZIP_BODY,
  ZIP_DEPLOY_ERRORS,
} from './route-docs.ts';
import { contentLengthOf, readBeginBody, readFinalizeBody } from './upload/body.ts';
import type { DeployFeature } from './feature.ts';

/** The canvases answer who may manage one (src/canvases/managed-once.ts); the rest is the deploy feature's. */
export function peopleDeployRoutes(ctx: Pick<Core, 'canvases'>, auth: AuthKinds, deploy: DeployFeature) {
  const { views, uploads } = deploy;
  // Rollback finds the canvas in its check (before the body) and uses it in its handler.
  const canvasOf = managedOnce(ctx);
  const as = (actor: Actor, asAdmin: boolean): LifecycleActor => ({ id: actor.user.id, kind: asAdmin ? 'admin' : 'user' });
  const CANVAS_ROLE = ['NOT_FOUND'] as const;

  return declaredRoutes('deploy-for-people', auth, [
    sessionRoute(
      {
        method: 'GET',
        path: '/api/canvases/:id/versions',
        summary: 'Versions, newest first (as a person: no deploy key needed)',
        answer: VersionList,
        errors: CANVAS_ROLE,
      },
      async ({ actor, params, request }) => views.versionList((await canvasOf(actor, params.id, request)).canvas),
    ),
    sessionRoute(
      {
        method: 'GET',
        path: '/api/canvases/:id/files',
        summary: 'Files of the live version, or one file with ?path=',
        query: LiveFileQuery,
        answer: FileListing,
        errors: [...CANVAS_ROLE, 'NOT_PUBLISHED'],
      },
      async ({ actor, params, request, query }) => {
        const { canvas } = await canvasOf(actor, params.id, request);
        if (query.path === undefined) return views.fileListing(canvas);
        return views.liveFileResponse(canvas, query.path);
      },
    ),
    sessionRoute(
      {
        method: 'POST',
        path: '/api/canvases/:id/rollback',
        summary: 'Make a kept version live again',
        body: RollbackBody,
        answer: RollbackAnswer,
        errors: [...CANVAS_ROLE, 'INVALID_BODY', ...ROLLBACK_ERRORS],
      },
      {
        check: async ({ actor, params, request }) => deploy.rate((await canvasOf(actor, params.id, request)).canvas.id),
        handle: async ({ actor, params, request, body }) => {
          const m = await canvasOf(actor, params.id, request);
          return deploy.rollback(m.canvas, body.version, as(actor, m.asAdmin));
        },
      },
    ),
    sessionRoute(
      {
        method: 'POST',
        path: '/api/canvases/:id/unpublish',
        summary: 'Take the canvas offline (history kept)',
        answer: UnpublishAnswer,
        errors: [...CANVAS_ROLE, 'CANNOT_UNPUBLISH'],
      },
      async ({ actor, params, request }) => {
        const m = await canvasOf(actor, params.id, request);
        await request.body?.cancel().catch(() => {});
        return deploy.unpublish(m.canvas, as(actor, m.asAdmin));
      },
    ),
    sessionRoute(
      {
        method: 'PUT',
        path: '/api/canvases/:id/deploy',
        summary: 'Publish a ZIP as a person (the raw bytes; audited as you)',
        body: ZIP_BODY,
        query: DeployQuery,
        answer: DeployResult,
        errors: [...CANVAS_ROLE, ...ZIP_DEPLOY_ERRORS],
      },
      async ({ actor, params, request }) => {
        const m = await canvasOf(actor, params.id, request);
        await deploy.rate(m.canvas.id);
        return deploy.deployZipRequest(m.canvas, request, as(actor, m.asAdmin));
      },
    ),
    sessionRoute(
      {
        method: 'POST',
        path: '/api/canvases/:id/uploads',
        summary: 'Staged upload as a person, step 1',
        body: BEGIN_BODY,
        answer: BeginUploadAnswer,
        errors: [...CANVAS_ROLE, ...BEGIN_ERRORS],
      },
      async ({ actor, params, request }) => {
        const { canvas } = await canvasOf(actor, params.id, request);
        await deploy.rate(canvas.id);
        const begun = await uploads.begin(canvas, actor.user.id, await readBeginBody(request));
        if (begun.kind === 'already_current') return begun.result;
        return { uploadId: begun.uploadId, missingHashes: begun.missingHashes };
      },
    ),
    sessionRoute(
      {
        method: 'PUT',
        path: '/api/canvases/:id/uploads/:uploadId/blobs/:hash',
        summary: 'Staged upload as a person, step 2: one blob',
        body: BLOB_BODY,
        answer: STORED,
        errors: [...CANVAS_ROLE, ...STAGE_ERRORS],
      },
      async ({ actor, params, request }) => {
        const { canvas } = await canvasOf(actor, params.id, request);
        await uploads.stage(canvas.id, actor.user.id, params.uploadId, params.hash, request.body, contentLengthOf(request));
        return new Response(null, { status: 204 });
      },
    ),
    sessionRoute(
      {
        method: 'POST',
        path: '/api/canvases/:id/uploads/:uploadId/finalize',
        summary: 'Staged upload as a person, step 3: publish',
        body: FINALIZE_BODY,
        answer: DeployResult,
        errors: [...CANVAS_ROLE, ...FINALIZE_ERRORS],
      },
      async ({ actor, params, request }) => {
        const m = await canvasOf(actor, params.id, request);
        await deploy.rate(m.canvas.id);
        const body = await readFinalizeBody(request);
        return uploads.finalize(m.canvas, actor.user.id, params.uploadId, body, { auditKind: as(actor, m.asAdmin).kind });
      },
    ),
  ]);
}
