// The caller's browser draft of a canvas (owners, editors, admins):
// GET/DELETE /api/canvases/{id}/draft, GET/PUT/DELETE …/draft/file?path=,
// POST …/draft/revert, …/draft/rebase, …/draft/publish.
import type { Static } from '@sinclair/typebox';
import { managedCanvas } from '../canvases/authority.ts';
import { sessionRoute } from '../auth/door-routes.ts';
import type { Core } from '../foundation.ts';
import { enforceDeployRate } from '../deploy/key-auth.ts';
import { readBackResponse } from '../deploy/views.ts';
import type { ErrorCode } from '../errors.ts';
import { declaredRoutes } from '../http/declared-route.ts';
import { checkStrict } from '../http/json-body.ts';
import { DeployResult } from '../openapi/schemas.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import {
  DraftFileQuery,
  DraftFileQueryDoc,
  DraftPathBody,
  DraftViewAnswer,
  DraftWriteAnswer,
  DraftWriteQuery,
  DraftWriteQueryDoc,
  PublishDraftBody,
} from './model.ts';
import type { DraftService } from './service.ts';

/** The whole query, strictly: an unknown or malformed parameter is 400 INVALID_BODY. */
function queryOf<S extends typeof DraftFileQuery | typeof DraftWriteQuery>(request: Request, schema: S): Static<S> {
  const query = Object.fromEntries(new URL(request.url).searchParams);
  checkStrict(schema, query);
  return query;
}

const PATH_ERRORS: ErrorCode[] = ['NOT_FOUND', 'INVALID_BODY', 'INVALID_PATH', 'ZIP_SLIP_REJECTED'];

export function draftRoutes(
  ctx: Pick<Core, 'blobs' | 'canvases' | 'config' | 'events' | 'limiter'>,
  auth: AuthKinds,
  drafts: DraftService,
) {
  return declaredRoutes('drafts', auth, [
    sessionRoute(
      {
        method: 'GET',
        path: '/api/canvases/:id/draft',
        summary: 'Your draft of the canvas (started from the live version on first open)',
        answer: DraftViewAnswer,
        errors: ['NOT_FOUND'],
      },
      ({ actor, params }) => drafts.open(actor, params.id),
    ),
    sessionRoute(
      {
        method: 'DELETE',
        path: '/api/canvases/:id/draft',
        summary: 'Discard your draft',
        answer: { status: 204, contentType: 'none', description: 'discarded' },
        errors: ['NOT_FOUND'],
      },
      async ({ actor, params }) => {
        await drafts.discard(actor, params.id);
        return new Response(null, { status: 204 });
      },
    ),
    sessionRoute(
      {
        method: 'GET',
        path: '/api/canvases/:id/draft/file',
        summary: "One file's bytes from your draft, its base version or the live version",
        query: DraftFileQueryDoc,
        answer: { contentType: 'application/octet-stream', description: 'the file' },
        errors: PATH_ERRORS,
      },
      async ({ actor, params, request }) => {
        const { path, from } = queryOf(request, DraftFileQuery);
        return readBackResponse(ctx.blobs, await drafts.file(actor, params.id, path, from ?? 'draft'));
      },
    ),
    sessionRoute(
      {
        method: 'PUT',
        path: '/api/canvases/:id/draft/file',
        summary: 'Write one file of your draft (the raw bytes)',
        query: DraftWriteQueryDoc,
        body: { contentType: 'application/octet-stream', description: 'the new content' },
        answer: DraftWriteAnswer,
        errors: [...PATH_ERRORS, 'FILE_TOO_LARGE', 'TOO_MANY_FILES', 'CANVAS_TOO_LARGE', 'INSUFFICIENT_STORAGE', 'STORAGE_UNAVAILABLE'],
      },
      ({ actor, params, request }) => drafts.write(actor, params.id, queryOf(request, DraftWriteQuery).path, request.body),
    ),
    sessionRoute(
      {
        method: 'DELETE',
        path: '/api/canvases/:id/draft/file',
        summary: 'Delete one file from your draft',
        query: DraftWriteQueryDoc,
        answer: DraftViewAnswer,
        errors: PATH_ERRORS,
      },
      ({ actor, params, request }) => drafts.remove(actor, params.id, queryOf(request, DraftWriteQuery).path),
    ),
    sessionRoute(
      {
        method: 'POST',
        path: '/api/canvases/:id/draft/revert',
        summary: "Drop your draft's edit of one file",
        body: DraftPathBody,
        answer: DraftViewAnswer,
        errors: PATH_ERRORS,
      },
      ({ actor, params, body }) => drafts.revert(actor, params.id, body.path),
    ),
    sessionRoute(
      {
        method: 'POST',
        path: '/api/canvases/:id/draft/rebase',
        summary: 'Move a stale draft onto the live version, keeping your edits',
        answer: DraftViewAnswer,
        errors: ['NOT_FOUND', 'NOT_PUBLISHED'],
      },
      async ({ actor, params, request }) => {
        await request.body?.cancel().catch(() => {});
        return drafts.rebase(actor, params.id);
      },
    ),
    sessionRoute(
      {
        method: 'POST',
        path: '/api/canvases/:id/draft/publish',
        summary: 'Publish your draft as a new live version (source editor)',
        body: PublishDraftBody,
        bodyOptions: { emptyAs: {} },
        answer: DeployResult,
        errors: ['NOT_FOUND', 'INVALID_BODY', 'DRAFT_STALE', 'EMPTY_DEPLOY', 'PUBLICATION_CHANGED', 'QUOTA_EXCEEDED', 'RATE_LIMITED'],
      },
      {
        // The right to the canvas and the deploy-class rate, before the body.
        check: async ({ actor, params }) => enforceDeployRate(ctx, (await managedCanvas(ctx, actor, params.id, 'manage')).canvas.id),
        handle: ({ actor, params, body }) => drafts.publish(actor, params.id, body.expectedPublicationToken ?? null),
      },
    ),
  ]);
}
