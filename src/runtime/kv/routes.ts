import { Elysia } from 'elysia';
import type { AppContext } from '../../context.ts';
import type { RuntimeCore } from '../core.ts';
import { AppError } from '../../errors.ts';
import { readTextCapped } from '../../http/read-capped.ts';
import { rawSegments, runtimeRaw, safeDecode } from '../runtime-request.ts';
import type { RuntimeCaller } from '../pipeline.ts';
import { KV_LIMITS, KvService, valueTooLarge } from './service.ts';
import { KvStore, type KvScope } from './store.ts';

/**
 * The hard ceiling on a PUT body. The spec checks the body before the value
 * size, and the value size is that of the serialized value (a pretty-printed
 * body can be much larger than its value). So a body up to this ceiling is
 * read and parsed: not JSON (or null) is 400 INVALID_BODY however large, and
 * only a parsed value over 64 KiB is 413 VALUE_TOO_LARGE. Past the ceiling
 * (64 times the value cap, declared or streamed) the body is neither read
 * further nor parsed and the answer is 413 VALUE_TOO_LARGE: memory stays
 * bounded, and no value that fits would plausibly arrive in a body that size.
 */
const MAX_BODY = 4 * 1024 * 1024;

/**
 * What a path below /kv names. Keys are one URL-encoded segment. The
 * per-viewer scope lives under `user/`: GET /kv/user/ (trailing slash) lists
 * it and /kv/user/{key} is one of its keys, so a shared key literally named
 * `user` stays reachable at /kv/user.
 */
type Target =
  | { kind: 'list'; scope: KvScope }
  | { kind: 'key'; scope: KvScope; key: string | null }
  | { kind: 'increment'; scope: KvScope; key: string | null }
  | { kind: 'none' };

function targetOf(method: string, rest: string): Target {
  const parts = rest.split('/');
  if (parts[0] === 'user' && parts.length >= 2) {
    const own = shapeOf(method, 'user', parts.slice(1));
    // POST /kv/user/increment is the shared key `user`, not a per-viewer route.
    if (own.kind !== 'none') return own;
  }
  return shapeOf(method, 'shared', parts);
}

function shapeOf(method: string, scope: KvScope, parts: string[]): Target {
  if (parts.length === 1 && parts[0] === '') return method === 'GET' ? { kind: 'list', scope } : { kind: 'none' };
  const key = safeDecode(parts[0]!);
  if (parts.length === 1) return method === 'POST' ? { kind: 'none' } : { kind: 'key', scope, key };
  if (parts.length === 2 && parts[1] === 'increment' && method === 'POST') return { kind: 'increment', scope, key };
  return { kind: 'none' };
}

const OK = JSON.stringify({ ok: true });

/** GET/PUT/DELETE /v1/c/{slug}/kv/{key}, POST …/increment, GET /kv (list), and the same under /kv/user/. */
export function kvRoutes(ctx: AppContext, runtime: RuntimeCore) {
  const kv = new KvService(new KvStore(ctx.db), runtime.usage, ctx.now);

  const handle = (request: Request) => {
    const { slug, rest } = rawSegments(request, 'kv');
    return runtime.pipeline.handle(request, slug, { capability: 'kv' }, (caller) => serve(request, caller, targetOf(request.method, rest)));
  };

  const serve = async (request: Request, caller: RuntimeCaller, target: Target): Promise<Response> => {
    switch (target.kind) {
      case 'none':
        throw new AppError('NOT_FOUND', 'no such route');
      case 'list': {
        const q = new URL(request.url).searchParams;
        const page = kv.list(caller, target.scope, { prefix: q.get('prefix'), cursor: q.get('cursor'), limit: q.get('limit') });
        const entries = page.entries.map((e) => `{"key":${JSON.stringify(e.key)},"value":${e.value}}`).join(',');
        return runtimeRaw(200, `{"entries":[${entries}],"nextCursor":${JSON.stringify(page.nextCursor)}}`);
      }
      case 'key': {
        if (request.method === 'GET') return runtimeRaw(200, `{"value":${kv.get(caller, target.scope, kv.checkKey(target.key))}}`);
        kv.assertWritable(caller, target.scope);
        const key = kv.checkKey(target.key);
        if (request.method === 'DELETE') {
          kv.delete(caller, target.scope, key);
          return runtimeRaw(200, OK);
        }
        const body = await readTextCapped(request, MAX_BODY);
        if (body === null) throw valueTooLarge(); // past the hard ceiling: not parsed (see MAX_BODY)
        kv.put(caller, target.scope, key, body);
        return runtimeRaw(200, OK);
      }
      case 'increment': {
        kv.assertWritable(caller, target.scope);
        const key = kv.checkKey(target.key);
        // An oversized body counts as malformed, i.e. as {} (by = 1).
        const body = await readTextCapped(request, KV_LIMITS.valueBytes);
        return runtimeRaw(200, `{"value":${kv.increment(caller, target.scope, key, body)}}`);
      }
    }
  };

  return new Elysia({ name: 'runtime-kv' })
    .get('/v1/c/:slug/kv', ({ request }) => handle(request))
    .get('/v1/c/:slug/kv/*', ({ request }) => handle(request))
    .put('/v1/c/:slug/kv/*', ({ request }) => handle(request), { parse: 'none' })
    .delete('/v1/c/:slug/kv/*', ({ request }) => handle(request), { parse: 'none' })
    .post('/v1/c/:slug/kv/*', ({ request }) => handle(request), { parse: 'none' });
}
