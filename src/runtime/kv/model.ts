import { Type, type Static } from '@sinclair/typebox';

/**
 * GET /kv and /kv/user: all optional. A `limit` that is not a number is the
 * default (CONTRACT §9), so it stays a string here; other query parameters
 * (cache busters) are ignored, as query strings go.
 */
export const KvListQuery = Type.Object({
  prefix: Type.Optional(Type.String({ description: 'key prefix' })),
  cursor: Type.Optional(Type.String({ description: 'next page' })),
  limit: Type.Optional(Type.String({ description: '1–1000' })),
});
export type KvListQuery = Static<typeof KvListQuery>;

/**
 * POST …/increment: `{by?: number}`. A body that is missing, not JSON or not
 * an object counts as `{}` (by 1); a `by` that is there must be a finite number.
 */
export const KvIncrementBody = Type.Object({ by: Type.Optional(Type.Number()) });
export type KvIncrementBody = Static<typeof KvIncrementBody>;

/** GET /kv and /kv/user: a page of entries, each value the JSON it was stored as. */
export const KvPage = Type.Object({
  entries: Type.Array(Type.Object({ key: Type.String(), value: Type.Unknown() })),
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'the cursor of the next page; null at the end' }),
});

/** PUT …/kv/{key}: any JSON value but null. The route reads it itself, as text (see MAX_BODY in routes.ts). */
export const KvPutBody = {
  contentType: 'application/json',
  description: 'any JSON value but null, at most 64 KiB once serialized',
  schema: Type.Unknown(),
};

/** POST …/increment: read by the route itself, as text (a malformed body is `{}`). */
export const KvIncrementContent = {
  contentType: 'application/json',
  description: '{"by": n} (default 1); a missing, malformed or oversized body counts as {}',
  schema: KvIncrementBody,
  optional: true,
};

/** The shared key that would shadow the per-viewer scope's path (CONTRACT §9, 2026-11-23). */
export const RESERVED_SHARED_KEY = 'user';
