// Collections on the wire (spec: Collection record, Collections rules; CONTRACT §9).
import { Type, type Static } from '@sinclair/typebox';
import { AppError } from '../../errors.ts';
import { isReservedName, RESOURCE_NAME } from '../../policy/document.ts';
import type { StoredRecord } from './store.ts';

export const COLLECTION_LIMITS = {
  /** Serialized value (spec: Limits / KV and submissions). */
  valueBytes: 64 * 1024,
  /**
   * Records are KV data ("a named group of authored JSON records inside KV"):
   * the KV key quotas apply to them as a scope of their own, as the spec
   * says of submissions: kv.keys.shared per canvas, kv.keys.user per author.
   */
  perCanvas: 10_000,
  perAuthor: 1_000,
  listDefault: 100,
  listMax: 1_000,
} as const;

/** `POST …/{id}/increment`: `by` defaults to 1. */
export const IncrementBody = Type.Object({ by: Type.Optional(Type.Number()) }, { additionalProperties: false });
export type IncrementBody = Static<typeof IncrementBody>;

/** A JSON value of any kind, null included (checked for presence by the route). */
export const ValueBody = Type.Unknown();

/** Record ids are server-assigned: 20 lowercase base36 characters, the first 9 the creation time. */
export const RECORD_ID = /^[0-9a-z]{20}$/;

/** A collection name from its (decoded) path segment: the policy document's names. */
export function collectionName(raw: string | null | undefined): string {
  if (typeof raw !== 'string' || !RESOURCE_NAME.test(raw) || isReservedName(raw)) {
    throw new AppError(
      'INVALID_BODY',
      'malformed collection name: 1-80 ASCII letters, digits, ".", ":", "_" or "-", starting with a letter or digit',
    );
  }
  return raw;
}

export function recordId(raw: string | null | undefined): string {
  if (typeof raw !== 'string' || !RECORD_ID.test(raw)) throw new AppError('INVALID_BODY', 'malformed record id');
  return raw;
}

/** The list query: `limit` an integer 1-1000 (default 100), `cursor` a record id returned earlier. Malformed is 400. */
export function pageQuery(query: { limit?: string | null; cursor?: string | null }): { limit: number; cursor: string } {
  const cursor = query.cursor ?? '';
  if (cursor !== '' && !RECORD_ID.test(cursor))
    throw new AppError('INVALID_BODY', 'malformed cursor: pass a returned nextCursor unchanged');
  return { limit: strictLimit(query.limit, COLLECTION_LIMITS.listDefault, COLLECTION_LIMITS.listMax), cursor };
}

/** An integer 1..max written in plain digits; absent means `fallback`; anything else is 400. */
export function strictLimit(raw: string | null | undefined, fallback: number, max: number): number {
  if (raw === null || raw === undefined) return fallback;
  const n = /^[0-9]{1,7}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= 1 && n <= max)) throw new AppError('INVALID_BODY', `limit must be an integer from 1 to ${max}`);
  return n;
}

/** A stored record as JSON text (the value is stored as JSON text and sent as is). */
export function recordJson(r: StoredRecord): string {
  return `{"id":${JSON.stringify(r.id)},"authorId":${JSON.stringify(r.authorId)},"value":${r.value},"updatedAt":${r.updatedAt}}`;
}

/** UTF-8 length of `s`. */
export function utf8Bytes(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** A record as the runtime API answers it (the SDK's `CollectionRecord`, sdk/wire.ts). */
export const CollectionRecord = Type.Object({
  id: Type.String({ description: "the server's id: 20 lowercase base36 characters" }),
  authorId: Type.String({ description: 'who created it' }),
  value: Type.Unknown(),
  updatedAt: Type.Number(),
});

/** GET /collections/{name}: the records the caller may read, in creation order. */
export const CollectionPage = Type.Object({
  entries: Type.Array(CollectionRecord),
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'pass it back as cursor for the next page; null on the last' }),
});

const ScopedRight = Type.Object({ own: Type.Boolean(), any: Type.Boolean() });

/** GET /collections/{name}/permissions: what the caller may do now, on their own records and on anyone's. */
export const CollectionPermissions = Type.Object({
  read: ScopedRight,
  create: ScopedRight,
  update: ScopedRight,
  delete: ScopedRight,
  increment: ScopedRight,
});

/** The list query: both optional strings, checked by pageQuery (malformed is 400). */
export const CollectionListQuery = Type.Object({
  cursor: Type.Optional(Type.String({ description: 'next page' })),
  limit: Type.Optional(
    Type.String({ description: `page size, 1-${COLLECTION_LIMITS.listMax} (default ${COLLECTION_LIMITS.listDefault})` }),
  ),
});

/** DELETE /collections/{name}/{id}: whether the record's attachments could not all be removed too. */
export const RecordRemoved = Type.Object({ ok: Type.Literal(true), attachmentCleanupFailed: Type.Boolean() });

/** DELETE /collections/{name}: how many records went. */
export const CollectionCleared = Type.Object({ deleted: Type.Number(), attachmentCleanupFailed: Type.Boolean() });

/** GET /collections/{name}/count. */
export const CollectionCount = Type.Object({ count: Type.Number() });
