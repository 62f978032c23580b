// The Deploy API (spec "Endpoints / Deploy API") except the staged upload
// (upload/routes.ts): PUT deploy, read-back, rollback, unpublish. Every route
// authenticates with the canvas key only: no cookies, no CORS.
import { AppError } from '../errors.ts';
import { declaredRoutes } from '../http/declared-route.ts';
import { DeployResult, DeployStatus, FileListing, VersionList } from '../openapi/schemas.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { deployKeyRoute } from './door-routes.ts';
import { RollbackAnswer, RollbackBody, UnpublishAnswer } from './model.ts';
import { DeployQuery, LiveFileQuery, ROLLBACK_ERRORS, ZIP_BODY, ZIP_DEPLOY_ERRORS } from './route-docs.ts';
import type { DeployFeature } from './feature.ts';

/** A rollback body is one small object. */
const ROLLBACK_BODY_MAX = 16 * 1024;

const invalidBody = () => new AppError('invalid_body', 'rollback takes {"version": <positive integer>}');

export function deployRoutes(auth: AuthKinds, deploy: DeployFeature) {
  const { views } = deploy;
  return declaredRoutes('deploy-api', auth, [
    deployKeyRoute(
      {
        method: 'PUT',
        path: '/v1/canvases/:id/deploy',
        summary: 'Publish a ZIP archive (the raw bytes: curl --data-binary @site.zip)',
        // Read by the handler, after the key: a ZIP whatever its Content-Type, as a stream.
        body: ZIP_BODY,
        query: DeployQuery,
        answer: DeployResult,
        errors: ZIP_DEPLOY_ERRORS,
      },
      async ({ request, canvas }) => {
        await deploy.rate(canvas.id);
        return deploy.deployZipRequest(canvas, request);
      },
    ),
    deployKeyRoute(
      { method: 'GET', path: '/v1/canvases/:id', summary: "The canvas's publication state", answer: DeployStatus },
      ({ canvas }) => views.canvas(canvas),
    ),
    deployKeyRoute(
      { method: 'GET', path: '/v1/canvases/:id/versions', summary: 'Versions, newest first', answer: VersionList },
      ({ canvas }) => views.versionList(canvas),
    ),
    deployKeyRoute(
      {
        method: 'GET',
        path: '/v1/canvases/:id/files',
        summary: 'Files of the live version, or one file with ?path=',
        query: LiveFileQuery,
        answer: FileListing,
        errors: ['NOT_PUBLISHED', 'NOT_FOUND'],
      },
      async ({ canvas, query }) => {
        if (query.path === undefined) return views.fileListing(canvas);
        return views.liveFileResponse(canvas, query.path);
      },
    ),
    deployKeyRoute(
      {
        method: 'POST',
        path: '/v1/canvases/:id/rollback',
        summary: 'Make a kept version live again',
        body: RollbackBody,
        bodyOptions: { maxBytes: ROLLBACK_BODY_MAX, jsonTypeOnly: false, invalid: invalidBody, tooLarge: invalidBody },
        answer: RollbackAnswer,
        errors: ['invalid_body', ...ROLLBACK_ERRORS],
      },
      {
        // The deploy-class rate counts before the body is read.
        check: ({ canvas }) => deploy.rate(canvas.id),
        handle: ({ canvas, body }) => deploy.rollback(canvas, body.version),
      },
    ),
    deployKeyRoute(
      {
        method: 'POST',
        path: '/v1/canvases/:id/unpublish',
        summary: 'Take the canvas offline',
        answer: UnpublishAnswer,
        errors: ['CANNOT_UNPUBLISH'],
      },
      async ({ request, canvas }) => {
        // The body (if any) carries nothing; it is drained so the connection stays reusable.
        await request.body?.cancel().catch(() => {});
        return deploy.unpublish(canvas);
      },
    ),
  ]);
}
