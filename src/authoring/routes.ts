// /v1/c/{slug}/authoring…: the runtime pipeline with the calling canvas's
// authoring capability, then a signed-in person (a legacy guest is 401
// NOT_AUTHENTICATED), then the route's own checks and only then the body
// (multipart: the metadata JSON and the bundle, read by the handler).
import type { Static } from '@sinclair/typebox';
import type { Actor } from '../canvases/authority.ts';
import type { Core } from '../foundation.ts';
import { AppError, type ErrorCode } from '../errors.ts';
import { declaredRoutes } from '../http/declared-route.ts';
import { runtimeRoute } from '../runtime/door-routes.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import type { RuntimeCaller } from '../runtime/pipeline.ts';
import { privateAnswer } from '../runtime/private-answers.ts';
import { readAuthoringBody } from './body.ts';
import { AuthoredCanvasAnswer, AuthoredListAnswer, AuthoredListQuery, CreateMetadata, UpdateMetadata } from './model.ts';
import type { AuthoringService, ListFilters } from './service.ts';

/** Whatever the answer, it is never cached (privateAnswer marks the refusals too). */
const PRIVATE = { 'cache-control': 'private, no-store' };
const RUNTIME_BODY: ErrorCode[] = ['INVALID_BODY', 'BODY_TOO_LARGE', 'PERMISSION_DENIED'];
/** The instance's and the owner's gates on a share's rung (canvases/service.ts checkAccessGates), on create and on update. */
const ACCESS_GATES: ErrorCode[] = ['PUBLIC_LINKS_DISABLED', 'PUBLIC_NOT_ALLOWED', 'PUBLIC_LINK_OWNER_GATED', 'ORG_REQUIRED'];

export function authoringRoutes(ctx: Pick<Core, 'auth'>, auth: AuthKinds, authoring: AuthoringService) {
  const base = '/v1/c/:slug/authoring';
  const actorOf = (caller: RuntimeCaller): Actor => {
    if (caller.kind !== 'member' || caller.user === null)
      throw new AppError('NOT_AUTHENTICATED', 'authoring needs a signed-in person, not a guest link');
    return { user: caller.user, isAdmin: ctx.auth.isAdmin(caller.user) };
  };
  const described = (summary: string) => ({ summary, doorOption: 'authoring' as const, headers: PRIVATE });
  return declaredRoutes('runtime-authoring', auth, [
    runtimeRoute(
      {
        method: 'POST',
        path: base,
        ...described('Publish a new canvas from this page (multipart: metadata, then the bundle)'),
        body: {
          contentType: 'multipart/form-data',
          description: `metadata (JSON: ${Object.keys(CreateMetadata.properties).join(', ')}) and bundle (a ZIP)`,
        },
        answer: AuthoredCanvasAnswer,
        errors: [...RUNTIME_BODY, ...ACCESS_GATES, 'QUOTA_EXCEEDED', 'SLUG_TAKEN', 'PUBLISH_FAILED', 'NOT_AUTHENTICATED'],
      },
      async ({ caller, request }) => {
        privateAnswer(request);
        const actor = actorOf(caller);
        const { metadata, bundle } = await readAuthoringBody(request, CreateMetadata, true);
        return authoring.create({ actor, sourceCanvasId: caller.canvas.id }, metadata, bundle!);
      },
    ),
    runtimeRoute(
      {
        method: 'GET',
        path: base,
        ...described('Canvases this page published for the viewer'),
        query: AuthoredListQuery,
        answer: AuthoredListAnswer,
        errors: ['NOT_AUTHENTICATED'],
      },
      async ({ caller, request, query }) => {
        privateAnswer(request);
        return { canvases: await authoring.list(actorOf(caller), filtersOf(query)) };
      },
    ),
    runtimeRoute(
      {
        method: 'PUT',
        path: `${base}/:id`,
        ...described('Update a canvas this page published'),
        body: {
          contentType: 'multipart/form-data',
          description: `metadata (JSON: ${Object.keys(UpdateMetadata.properties).join(', ')}) and an optional bundle`,
        },
        answer: AuthoredCanvasAnswer,
        errors: [...RUNTIME_BODY, ...ACCESS_GATES, 'SHARE_REVOKED', 'SHARE_CONFLICT', 'UPDATE_PARTIAL', 'NOT_FOUND', 'NOT_AUTHENTICATED'],
      },
      async ({ caller, params, request }) => {
        privateAnswer(request);
        const actor = actorOf(caller);
        // Rights on the target before the body is read.
        await authoring.reachable(actor, params.id);
        const { metadata, bundle } = await readAuthoringBody(request, UpdateMetadata, false);
        return authoring.update({ actor, sourceCanvasId: caller.canvas.id }, params.id, metadata, bundle);
      },
    ),
    runtimeRoute(
      {
        method: 'DELETE',
        path: `${base}/:id`,
        ...described('Delete a canvas this page published'),
        answer: { status: 204, contentType: 'none', description: 'revoked' },
        errors: ['NOT_FOUND', 'NOT_AUTHENTICATED'],
      },
      async ({ caller, params, request }) => {
        privateAnswer(request);
        await authoring.revoke(actorOf(caller), params.id);
        return new Response(null, { status: 204, headers: PRIVATE });
      },
    ),
  ]);
}

function filtersOf(q: Static<typeof AuthoredListQuery>): ListFilters {
  const tags = q.tags;
  return {
    sourceApp: q.sourceApp,
    sourceKind: q.sourceKind,
    tags:
      tags === undefined || tags === ''
        ? undefined
        : tags
            .split(',')
            .map((t) => t.trim())
            .filter(Boolean),
  };
}
