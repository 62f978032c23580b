// GET /v1/c/{slug}/kv/{key}, the runtime API's most frequent call (90% of
// bench/kv.ts), answered before Elysia's router: its context, macro and
// handler composition were about a third of such a request's CPU time. The
// router's route (src/runtime/kv/routes.ts) stays the one of record, and
// every shape this does not take (an escape in the path, a trailing slash,
// the per-viewer scope, another method) goes on to it. Taken, a request
// meets the same steps in the same order: the runtime pipeline (who, rate,
// access, isolation, capability), its CORS headers on whatever the request
// ends with, the key check, the read; a refusal renders as the router's
// onError renders it.
import type { AppContext } from '../../context.ts';
import { metaOf } from '../../http/meta.ts';
import { renderError } from '../../http/on-error.ts';
import { urlPath } from '../../http/url-path.ts';
import type { Maybe } from '../../sync-first.ts';
import type { PipelineResult, RuntimePipeline } from '../pipeline.ts';
import { runtimeRaw } from '../runtime-request.ts';
import type { KvService } from './service.ts';

const PREFIX = '/v1/c/';
const SPACE = '/kv/';
const OPTIONS = { capability: 'kv' } as const;

/** The answer to a plain shared-key GET, or null for the router. */
export function sharedKvGet(
  ctx: Pick<AppContext, 'log'>,
  pipeline: RuntimePipeline,
  kv: KvService,
): (request: Request) => Maybe<Response> | null {
  const read = (request: Request, key: string, { caller, headers }: PipelineResult): Promise<Response> => {
    metaOf(request).headers = headers;
    return kv.get(caller, 'shared', kv.checkKey(key, 'shared')).then((value) => runtimeRaw(200, `{"value":${value}}`));
  };
  const refused = (request: Request, err: unknown): Response => renderError(ctx, request, err, routerCodeOf(err));
  return (request) => {
    if (request.method !== 'GET') return null;
    const path = urlPath(request.url);
    if (!path.startsWith(PREFIX)) return null;
    const slugEnd = path.indexOf('/', PREFIX.length);
    if (slugEnd <= PREFIX.length || !path.startsWith(SPACE, slugEnd)) return null;
    const key = path.slice(slugEnd + SPACE.length);
    // Escapes are decoded by the router (its reading of a malformed one is its own); `user` is the per-viewer list.
    if (key === '' || key === 'user' || key.includes('/') || path.includes('%')) return null;
    const slug = path.slice(PREFIX.length, slugEnd);
    try {
      const ran = pipeline.run(request, slug, OPTIONS);
      const answer = ran instanceof Promise ? ran.then((r) => read(request, key, r)) : read(request, key, ran);
      return answer.catch((err: unknown) => refused(request, err));
    } catch (err) {
      return refused(request, err);
    }
  };
}

/** The `code` Elysia hands its onError for a thrown value (its own errors carry a symbol; ours and SQLite's a `code`). */
function routerCodeOf(err: unknown): unknown {
  const code = err !== null && typeof err === 'object' ? (err as { code?: unknown }).code : undefined;
  return code ?? 'UNKNOWN';
}
