import type { AuthKinds } from '../../server/auth-kinds.ts';
import { declaredRoutes } from '../../http/declared-route.ts';
import { readTextCapped } from '../../http/read-capped.ts';
import { KvValue, Ok } from '../../openapi/schemas.ts';
import { runtimeRoute } from '../door-routes.ts';
import { runtimeRaw } from '../runtime-request.ts';
import { KvIncrementContent, KvListQuery, KvPage, KvPutBody } from './model.ts';
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

/** What a write can be refused for beyond its door: the body, the key, the space's caps, the scope (viewers write only their own). */
const WRITE_BODY = ['INVALID_BODY', 'BODY_TOO_LARGE', 'PERMISSION_DENIED'] as const;

/**
 * The KV routes of both scopes. Keys are one URL-encoded path segment
 * (Elysia decodes it; a malformed escape arrives as null: 400). The
 * per-viewer scope lives under /kv/user: GET /kv/user (with or without the
 * trailing slash) is its list, so the shared key `user` cannot be written
 * (CONTRACT §9, 2026-11-23). Answers are written as JSON text (runtimeRaw):
 * values are stored as JSON text and sent as is, never parsed on this hot
 * path; the declared answers describe them.
 */
export function kvRoutes(auth: AuthKinds, kv: KvService) {
  const routes = (scope: KvScope, base: string, whose: { list: string; read: string; write: string; remove: string; add: string }) => [
    runtimeRoute(
      {
        method: 'GET',
        path: base,
        doorOption: 'kv',
        summary: whose.list,
        query: KvListQuery,
        answer: KvPage,
        errors: ['INVALID_BODY'],
      },
      async ({ caller, query }) => {
        const page = await kv.list(caller, scope, query);
        const entries = page.entries.map((e) => `{"key":${JSON.stringify(e.key)},"value":${e.value}}`).join(',');
        return runtimeRaw(200, `{"entries":[${entries}],"nextCursor":${JSON.stringify(page.nextCursor)}}`);
      },
    ),
    runtimeRoute(
      {
        method: 'GET',
        path: `${base}/:key`,
        doorOption: 'kv',
        summary: whose.read,
        answer: KvValue,
        errors: ['INVALID_BODY', 'NOT_FOUND', 'KEY_TOO_LARGE'],
      },
      async ({ caller, params }) => runtimeRaw(200, `{"value":${await kv.get(caller, scope, kv.checkKey(params.key, scope))}}`),
    ),
    runtimeRoute(
      {
        method: 'PUT',
        path: `${base}/:key`,
        doorOption: 'kv',
        summary: whose.write,
        body: KvPutBody,
        answer: Ok,
        errors: [...WRITE_BODY, 'KEY_TOO_LARGE', 'VALUE_TOO_LARGE', 'KEY_LIMIT'],
      },
      async ({ caller, params, request }) => {
        kv.assertWritable(caller, scope);
        const key = kv.checkKey(params.key, scope);
        const body = await readTextCapped(request, MAX_BODY);
        if (body === null) throw valueTooLarge(); // past the hard ceiling: not parsed (see MAX_BODY)
        await kv.put(caller, scope, key, body);
        return runtimeRaw(200, OK);
      },
    ),
    runtimeRoute(
      {
        method: 'DELETE',
        path: `${base}/:key`,
        doorOption: 'kv',
        summary: whose.remove,
        answer: Ok,
        errors: ['INVALID_BODY', 'KEY_TOO_LARGE', 'PERMISSION_DENIED'],
      },
      async ({ caller, params }) => {
        kv.assertWritable(caller, scope);
        await kv.delete(caller, scope, kv.checkKey(params.key, scope));
        return runtimeRaw(200, OK);
      },
    ),
    runtimeRoute(
      {
        method: 'POST',
        path: `${base}/:key/increment`,
        doorOption: 'kv',
        summary: whose.add,
        body: KvIncrementContent,
        answer: KvValue,
        errors: [...WRITE_BODY, 'KEY_TOO_LARGE', 'NOT_NUMERIC', 'KEY_LIMIT'],
      },
      async ({ caller, params, request }) => {
        kv.assertWritable(caller, scope);
        const key = kv.checkKey(params.key, scope);
        // An oversized body counts as malformed, i.e. as {} (by = 1).
        const body = await readTextCapped(request, KV_LIMITS.valueBytes);
        return runtimeRaw(200, `{"value":${await kv.increment(caller, scope, key, body)}}`);
      },
    ),
  ];

  return declaredRoutes('runtime-kv', auth, [
    // The per-viewer scope first: its static `user` segment is what /kv/user means.
    ...routes('user', '/v1/c/:slug/kv/user', {
      list: "List the viewer's own keys",
      read: "Read one of the viewer's keys",
      write: "Write one of the viewer's keys (any JSON but null)",
      remove: "Delete one of the viewer's keys",
      add: "Add to a number in the viewer's scope",
    }),
    ...routes('shared', '/v1/c/:slug/kv', {
      list: 'List shared keys',
      read: 'Read a shared key',
      write: 'Write a shared key (editors)',
      remove: 'Delete a shared key (editors)',
      add: 'Add to a shared number',
    }),
  ]);
}
