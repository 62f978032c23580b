import { Elysia } from 'elysia';
import type { Actor } from '../canvases/authority.ts';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import type { RuntimeCaller } from '../runtime/pipeline.ts';
import { privateAnswer } from '../runtime/private-answers.ts';
import { runtimeJson } from '../runtime/runtime-request.ts';
import { readAuthoringBody } from './body.ts';
import { CreateMetadata, UpdateMetadata } from './model.ts';
import type { AuthoringService, ListFilters } from './service.ts';

/**
 * /v1/c/{slug}/authoring…: the runtime pipeline with the calling canvas's
 * authoring capability, then a signed-in person (a legacy guest is 401
 * NOT_AUTHENTICATED), then the route's own checks and only then the body.
 */
export function authoringRoutes(ctx: AppContext, auth: AuthKinds, authoring: AuthoringService) {
  const base = '/v1/c/:slug/authoring';
  const actorOf = (caller: RuntimeCaller): Actor => {
    if (caller.kind !== 'member' || caller.user === null)
      throw new AppError('NOT_AUTHENTICATED', 'authoring needs a signed-in person, not a guest link');
    return { user: caller.user, isAdmin: ctx.auth.isAdmin(caller.user) };
  };
  return new Elysia({ name: 'runtime-authoring' }).use(auth).guard({ runtime: 'authoring', parse: 'none' }, (app) =>
    app
      .post(base, async ({ caller, request }) => {
        privateAnswer(request);
        const actor = actorOf(caller);
        const { metadata, bundle } = await readAuthoringBody(request, CreateMetadata, true);
        return runtimeJson(200, await authoring.create({ actor, sourceCanvasId: caller.canvas.id }, metadata, bundle!));
      })
      .get(base, async ({ caller, request }) => {
        privateAnswer(request);
        return runtimeJson(200, { canvases: await authoring.list(actorOf(caller), filtersOf(new URL(request.url).searchParams)) });
      })
      .put(`${base}/:id`, async ({ caller, params, request }) => {
        privateAnswer(request);
        const actor = actorOf(caller);
        // Rights on the target before the body is read.
        await authoring.reachable(actor, params.id);
        const { metadata, bundle } = await readAuthoringBody(request, UpdateMetadata, false);
        return runtimeJson(200, await authoring.update({ actor, sourceCanvasId: caller.canvas.id }, params.id, metadata, bundle));
      })
      .delete(`${base}/:id`, async ({ caller, params, request }) => {
        privateAnswer(request);
        await authoring.revoke(actorOf(caller), params.id);
        return new Response(null, { status: 204, headers: { 'cache-control': 'private, no-store' } });
      }),
  );
}

function filtersOf(q: URLSearchParams): ListFilters {
  const tags = q.get('tags');
  return {
    sourceApp: q.get('sourceApp') ?? undefined,
    sourceKind: q.get('sourceKind') ?? undefined,
    tags:
      tags === null || tags === ''
        ? undefined
        : tags
            .split(',')
            .map((t) => t.trim())
            .filter(Boolean),
  };
}
