import { Type, type Static } from '@sinclair/typebox';

/**
 * GET /kv and /kv/user: all optional. A `limit` that is not a number is the
 * default (CONTRACT §9), so it stays a string here; other query parameters
 * (cache busters) are ignored, as query strings go.
 */
export const KvListQuery = Type.Object({
  prefix: Type.Optional(Type.String()),
  cursor: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
});
export type KvListQuery = Static<typeof KvListQuery>;

/**
 * POST …/increment: `{by?: number}`. A body that is missing, not JSON or not
 * an object counts as `{}` (by 1); a `by` that is there must be a finite number.
 */
export const KvIncrementBody = Type.Object({ by: Type.Optional(Type.Number()) });
export type KvIncrementBody = Static<typeof KvIncrementBody>;

/** The shared key that would shadow the per-viewer scope's path (CONTRACT §9, 2026-11-23). */
export const RESERVED_SHARED_KEY = 'user';
