// easel.kv (shared scope) and easel.kv.user (the viewer's own scope).
// Routes: GET /kv (list), GET/PUT/DELETE /kv/{key}, POST /kv/{key}/increment;
// the per-viewer scope lives under /kv/user (its list is GET /kv/user/).
import { EaselError } from './errors.ts';
import type { Transport } from './request.ts';
import type { KvPage } from './wire.ts';
export type { KvEntry, KvPage } from './wire.ts';

export interface KvListOptions {
  prefix?: string;
  cursor?: string | null;
  /** 1 to 1000 (default 100). */
  limit?: number;
}

export interface KvScope {
  /** The stored value (a stored null is null); rejects with NOT_FOUND when the key is absent. */
  get(key: string): Promise<unknown>;
  /** Any JSON value except null. Shared keys: owners and editors only. */
  set(key: string, value: unknown): Promise<{ ok: true }>;
  /** Idempotent. */
  delete(key: string): Promise<{ ok: true }>;
  list(options?: KvListOptions): Promise<KvPage>;
  /** Adds `by` (default 1; a missing key starts at 0) and resolves to the new number. */
  increment(key: string, by?: number): Promise<number>;
}

/**
 * One URL path segment. "." and ".." would be swallowed by URL normalization,
 * so they cannot be keys here; neither can the shared key `user`, whose path
 * is the per-viewer list (the server refuses writes to it the same way).
 */
function segment(key: string, shared: boolean): string {
  if (typeof key !== 'string') throw new EaselError('INVALID_BODY', 400, 'a KV key is a string');
  // An empty key would name the list itself: get('') answered the list's first page as if it were a value.
  if (key === '') throw new EaselError('INVALID_BODY', 400, 'a KV key is at least one character');
  if (key === '.' || key === '..') throw new EaselError('INVALID_BODY', 400, `"${key}" cannot be used as a KV key`);
  if (shared && key === 'user') throw new EaselError('INVALID_BODY', 400, 'the shared key name "user" is reserved for kv.user');
  return encodeURIComponent(key);
}

/** `base` is `/kv` or `/kv/user`. */
export function createKvScope(t: Transport, base: string, listPath: string): KvScope {
  const keyPath = (key: string) => `${base}/${segment(key, base === '/kv')}`;
  return {
    async get(key) {
      const path = keyPath(key);
      return (await t.request<{ value: unknown }>('GET', path)).value;
    },
    async set(key, value) {
      const path = keyPath(key);
      return t.request('PUT', path, { json: value === undefined ? null : value });
    },
    async delete(key) {
      const path = keyPath(key);
      return t.request('DELETE', path);
    },
    async list(options = {}) {
      return t.request<KvPage>('GET', listPath, { query: { prefix: options.prefix, cursor: options.cursor, limit: options.limit } });
    },
    async increment(key, by) {
      const path = `${keyPath(key)}/increment`;
      return (await t.request<{ value: number }>('POST', path, { json: by === undefined ? {} : { by } })).value;
    },
  };
}

/** The shared scope; `user` is the viewer's own scope, which nobody else reads. */
export type Kv = KvScope & { readonly user: KvScope };

export function createKv(t: Transport): Kv {
  const user = Object.freeze(createKvScope(t, '/kv/user', '/kv/user/'));
  return Object.freeze({ ...createKvScope(t, '/kv', '/kv'), user });
}
