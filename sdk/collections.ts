// easel.collections(name): records governed by the canvas's runtime policy.
// Every call is checked on the server against the caller's live rights;
// `permissions()` tells the page what to offer.
import type { Transport } from './request.ts';
import type { CollectionPage, CollectionPermissions, CollectionRecord } from './wire.ts';
export type { CollectionPage, CollectionPermissions, CollectionRecord, ScopedRight } from './wire.ts';

export interface Collection {
  /** A new record (any JSON value, null included); the server assigns its id and author. */
  create(value: unknown): Promise<CollectionRecord>;
  /** Records the caller may read, `limit` 1 to 1000 (default 100). */
  list(options?: { cursor?: string | null; limit?: number }): Promise<CollectionPage>;
  /** Rejects with NOT_FOUND when absent or not readable. */
  get(id: string): Promise<CollectionRecord>;
  /** Replaces the value; the author stays. */
  update(id: string, value: unknown): Promise<CollectionRecord>;
  delete(id: string): Promise<{ ok: true; attachmentCleanupFailed: boolean }>;
  /** Deletes every record the caller may read and delete. */
  clear(): Promise<{ deleted: number; attachmentCleanupFailed: boolean }>;
  /** Adds `by` (default 1) to a numeric record, atomically; NOT_NUMERIC otherwise. */
  increment(id: string, by?: number): Promise<CollectionRecord>;
  permissions(): Promise<CollectionPermissions>;
  /** Only for the audience the policy's `aggregateCount` names. */
  count(): Promise<number>;
}

export function createCollection(t: Transport, name: string): Collection {
  const base = `/collections/${encodeURIComponent(name)}`;
  const one = (id: string) => `${base}/${encodeURIComponent(id)}`;
  return Object.freeze({
    create: (value: unknown) => t.request<CollectionRecord>('POST', base, { json: value === undefined ? null : value }),
    list: (options: { cursor?: string | null; limit?: number } = {}) =>
      t.request<CollectionPage>('GET', base, { query: { cursor: options.cursor, limit: options.limit } }),
    get: (id: string) => t.request<CollectionRecord>('GET', one(id)),
    update: (id: string, value: unknown) => t.request<CollectionRecord>('PUT', one(id), { json: value === undefined ? null : value }),
    delete: (id: string) => t.request<{ ok: true; attachmentCleanupFailed: boolean }>('DELETE', one(id)),
    clear: () => t.request<{ deleted: number; attachmentCleanupFailed: boolean }>('DELETE', base),
    increment: (id: string, by?: number) =>
      t.request<CollectionRecord>('POST', `${one(id)}/increment`, { json: by === undefined ? {} : { by } }),
    permissions: () => t.request<CollectionPermissions>('GET', `${base}/permissions`),
    count: async () => (await t.request<{ count: number }>('GET', `${base}/count`)).count,
  });
}
