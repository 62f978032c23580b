// The four ways a route authenticates, as Elysia macros: a route says
// `{ management: true }`, `{ admin: true }`, `{ deployKey: true }` or
// `{ runtime: 'kv' }` and its handler receives `actor`, `admin`, `canvas` or
// `caller`. The macros run before the handler and never read the body, which
// keeps the spec's order everywhere: who is calling (401, 429), their right
// to the resource (404, 403), and only then the body (400, 413), read by the
// handler with readJson (src/http/json-body.ts).
import { Elysia } from 'elysia';
import type { Actor } from '../canvases/authority.ts';
import { managementActor } from '../canvases/guard.ts';
import type { Core } from '../foundation.ts';
import { authenticateDeployKey, type DeployKeyMode } from '../deploy/key-auth.ts';
import type { PipelineOptions, RuntimePipeline } from '../runtime/pipeline.ts';
import { notFound } from '../errors.ts';
import { metaOf } from '../http/meta.ts';

type Capability = PipelineOptions['capability'];

export function authKinds(ctx: Pick<Core, 'auth' | 'canvases' | 'config' | 'events' | 'limiter' | 'users'>, pipeline: RuntimePipeline) {
  return new Elysia({ name: 'auth-kinds' }).macro({
    /** A signed-in user of the dashboard or the API (401, the dashboard-only checks, the management rate). */
    management: {
      resolve: async ({ request }): Promise<{ actor: Actor }> => ({ actor: await managementActor(ctx, request) }),
    },
    /** An instance admin, through the same door as `management`; anyone else gets 404 so admin routes don't reveal themselves. */
    admin: {
      resolve: async ({ request }): Promise<{ actor: Actor }> => {
        const actor = await managementActor(ctx, request);
        if (!actor.isAdmin) throw notFound('no such route');
        return { actor };
      },
    },
    /** The canvas key of the canvas in the path (`:id`): 401 without a valid key, 403 for another canvas's. */
    deployKey: (mode: true | DeployKeyMode) => ({
      resolve: async ({ request, params }: { request: Request; params: Record<string, string | undefined> }) => ({
        canvas: await authenticateDeployKey(ctx, request, params.id ?? '', mode === true ? 'any' : mode),
      }),
    }),
    /**
     * The runtime pipeline for the canvas in the path (`:slug`), with this
     * capability (or options). Its CORS headers go on whatever the request
     * ends with, the handler's refusals included.
     */
    runtime: (options: Capability | PipelineOptions) => ({
      resolve: async ({ request, params }: { request: Request; params: Record<string, string | undefined> }) => {
        const opts = typeof options === 'string' ? { capability: options } : options;
        const ran = pipeline.run(request, params.slug ?? '', opts);
        // Most requests pass every step at once: no await for them.
        const { caller, headers } = ran instanceof Promise ? await ran : ran;
        metaOf(request).headers = headers;
        return { caller };
      },
    }),
  });
}

/** What route factories `.use()` to get the macros. */
export type AuthKinds = ReturnType<typeof authKinds>;
