import { Elysia } from 'elysia';
import type { AuthKinds } from '../../server/auth-kinds.ts';
import { readTextCapped } from '../../http/read-capped.ts';
import type { RuntimeCaller } from '../pipeline.ts';
import { runtimeRaw } from '../runtime-request.ts';
import type { KvListQuery } from './model.ts';
import { KV_LIMITS, type KvService, valueTooLarge } from './service.ts';
import type { KvScope } from './store.ts';

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

const OK = JSON.stringify({ ok: true });

interface KeyRoute {
  caller: RuntimeCaller;
  params: { key: string | null };
  request: Request;
}

/**
 * The KV routes of both scopes. Keys are one URL-encoded path segment
 * (Elysia decodes it; a malformed escape arrives as null: 400). The
 * per-viewer scope lives under /kv/user: GET /kv/user (with or without the
 * trailing slash) is its list, so the shared key `user` cannot be written
 * (CONTRACT §9, 2026-11-23).
 */
export function kvRoutes(auth: AuthKinds, kv: KvService) {
  const list =
    (scope: KvScope) =>
    async ({ caller, request }: { caller: RuntimeCaller; request: Request }) => {
      // Every query value is a string: KvListQuery holds for any query string.
      const page = await kv.list(caller, scope, Object.fromEntries(new URL(request.url).searchParams) as KvListQuery);
      const entries = page.entries.map((e) => `{"key":${JSON.stringify(e.key)},"value":${e.value}}`).join(',');
      return runtimeRaw(200, `{"entries":[${entries}],"nextCursor":${JSON.stringify(page.nextCursor)}}`);
    };
  const get =
    (scope: KvScope) =>
    async ({ caller, params }: KeyRoute) =>
      runtimeRaw(200, `{"value":${await kv.get(caller, scope, kv.checkKey(params.key, scope))}}`);
  const put =
    (scope: KvScope) =>
    async ({ caller, params, request }: KeyRoute) => {
      kv.assertWritable(caller, scope);
      const key = kv.checkKey(params.key, scope);
      const body = await readTextCapped(request, MAX_BODY);
      if (body === null) throw valueTooLarge(); // past the hard ceiling: not parsed (see MAX_BODY)
      await kv.put(caller, scope, key, body);
      return runtimeRaw(200, OK);
    };
  const remove =
    (scope: KvScope) =>
    async ({ caller, params }: KeyRoute) => {
      kv.assertWritable(caller, scope);
      await kv.delete(caller, scope, kv.checkKey(params.key, scope));
      return runtimeRaw(200, OK);
    };
  const increment =
    (scope: KvScope) =>
    async ({ caller, params, request }: KeyRoute) => {
      kv.assertWritable(caller, scope);
      const key = kv.checkKey(params.key, scope);
      // An oversized body counts as malformed, i.e. as {} (by = 1).
      const body = await readTextCapped(request, KV_LIMITS.valueBytes);
      return runtimeRaw(200, `{"value":${await kv.increment(caller, scope, key, body)}}`);
    };

  return new Elysia({ name: 'runtime-kv' }).use(auth).guard({ runtime: 'kv', parse: 'none' }, (app) =>
    app
      // The per-viewer scope first: its static `user` segment is what /kv/user means.
      .get('/v1/c/:slug/kv/user', list('user'))
      .get('/v1/c/:slug/kv/user/:key', get('user'))
      .put('/v1/c/:slug/kv/user/:key', put('user'))
      .delete('/v1/c/:slug/kv/user/:key', remove('user'))
      .post('/v1/c/:slug/kv/user/:key/increment', increment('user'))
      .get('/v1/c/:slug/kv', list('shared'))
      .get('/v1/c/:slug/kv/:key', get('shared'))
      .put('/v1/c/:slug/kv/:key', put('shared'))
      .delete('/v1/c/:slug/kv/:key', remove('shared'))
      .post('/v1/c/:slug/kv/:key/increment', increment('shared')),
  );
}
