import type { ActorKind, AuditLog } from '../../audit/store.ts';
import type { EventBus } from '../../events.ts';
import { notePolicyMiss } from '../policy-misses.ts';
import { AppError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import type { CollectionPolicy, Operation } from '../../policy/document.ts';
import type { RuntimeCaller } from '../pipeline.ts';
import { collectionPolicy } from '../../policy/entries.ts';
import { admitsAudience, allows, hasAny, recordRights, type RecordRights } from '../../policy/rights.ts';
import type { UsageCounters } from '../usage.ts';
import { collectionName, COLLECTION_LIMITS, pageQuery, recordId, recordJson, utf8Bytes } from './model.ts';
import type { RecordReadCache } from './read-cache.ts';
import type { RecordSpace, RecordStore, StoredRecord } from './store.ts';

/** A collection the caller reached: configured, with the caller's live rights on it. */
export interface OpenCollection {
  caller: RuntimeCaller;
  space: RecordSpace;
  policy: CollectionPolicy;
  rights: RecordRights;
}

export interface RecordsRemoved {
  canvasId: string;
  collection: string;
  ids: string[];
}

/**
 * Called after records are deleted (one, or a bulk delete), once the delete
 * has committed: what hangs off a record (attachments) is cleaned up here.
 * Best effort: false, a rejection or a throw reports
 * `attachmentCleanupFailed: true`, never a failed delete.
 */
export type RecordRemovalListener = (removed: RecordsRemoved) => boolean | void | Promise<boolean | void>;

const actorKindOf = (c: RuntimeCaller): ActorKind => (c.kind === 'guest' ? 'guest' : 'user');

/**
 * Collections: authored JSON records governed by the canvas's live runtime
 * policy. Every operation needs a configured collection and the caller's
 * rights as the policy gives them to their live role: a right the caller
 * lacks on every record is 403 PERMISSION_DENIED, a record they cannot read
 * is 404 NOT_FOUND exactly like an absent one, and a readable record they may
 * not change is 403.
 */
export class CollectionService {
  private readonly removalListeners: RecordRemovalListener[] = [];
  /** The time part of the last id given: ids made in the same millisecond still sort in creation order. */
  private lastStamp = 0;

  constructor(
    private readonly store: RecordStore,
    private readonly reads: RecordReadCache,
    private readonly usage: UsageCounters,
    private readonly audit: AuditLog,
    private readonly now: () => number,
    /** Told of every change (webhooks record their deliveries before the answer). */
    private readonly events: EventBus,
  ) {}

  /** Attachments register here to follow their parent record out. */
  onRecordsRemoved(listener: RecordRemovalListener): void {
    this.removalListeners.push(listener);
  }

  /** 400 for a malformed name, 404 COLLECTION_NOT_CONFIGURED when the live policy has no entry for it. */
  open(caller: RuntimeCaller, rawName: string | null | undefined): OpenCollection {
    const name = collectionName(rawName);
    const policy = collectionPolicy(caller.canvas.runtimePolicy, name);
    if (!policy) {
      notePolicyMiss(this.events, caller, 'collection', name);
      throw new AppError('COLLECTION_NOT_CONFIGURED', `the collection "${name}" is not configured in this canvas's runtime policy`);
    }
    return {
      caller,
      space: { canvasId: caller.canvas.id, collection: name },
      policy,
      rights: recordRights(policy.preset, policy.overrides, caller.role),
    };
  }

  /** 403 when the caller may not `op` any record of the collection. */
  require(c: OpenCollection, op: Operation): void {
    if (!hasAny(c.rights[op])) throw denied(op);
  }

  /**
   * The record `id` when the caller may `op` it: 400 for a malformed id,
   * 403 without the right on any record, 404 when it is absent or unreadable
   * to them, 403 when readable but not theirs to `op`.
   */
  async target(c: OpenCollection, rawId: string | null | undefined, op: Operation): Promise<StoredRecord> {
    const id = recordId(rawId);
    this.require(c, op);
    const record = await this.reads.record(c.space, id, () => this.store.get(c.space, id));
    const own = record !== null && record.authorId === c.caller.actorId;
    if (record === null || !allows(c.rights.read, own)) throw new AppError('NOT_FOUND', 'no such record');
    if (!allows(c.rights[op], own)) throw denied(op);
    return record;
  }

  async create(c: OpenCollection, value: unknown): Promise<StoredRecord> {
    this.require(c, 'create');
    const text = serialize(value);
    const now = this.now();
    this.lastStamp = Math.max(Math.floor(now), this.lastStamp + 1);
    const record: StoredRecord = { id: newRecordId(this.lastStamp), authorId: c.caller.actorId, value: text, updatedAt: now };
    this.usage.add(c.space.canvasId, 'kvWrites');
    const outcome = await this.store.insert(c.space, record, {
      perCanvas: COLLECTION_LIMITS.perCanvas,
      perAuthor: COLLECTION_LIMITS.perAuthor,
    });
    if (outcome === 'canvas_limit') throw keyLimit('kv.keys.shared', COLLECTION_LIMITS.perCanvas, 'records per canvas');
    if (outcome === 'author_limit') throw keyLimit('kv.keys.user', COLLECTION_LIMITS.perAuthor, 'records per author');
    await this.changed('collection.record.created', c.space, record);
    return record;
  }

  /** The records the caller may read, in id (creation) order: the page as the JSON text `{entries, nextCursor}`. */
  listJson(c: OpenCollection, query: { limit?: string | null; cursor?: string | null }): Promise<string> {
    const { limit, cursor } = pageQuery(query);
    this.require(c, 'read');
    this.usage.add(c.space.canvasId, 'kvReads');
    const authorId = c.rights.read.any ? null : c.caller.actorId;
    return this.reads.page(c.space, { authorId, cursor, limit }, async () => {
      const rows = await this.store.page(c.space, { authorId, cursor, limit: limit + 1 });
      const more = rows.length > limit;
      const entries = more ? rows.slice(0, limit) : rows;
      const nextCursor = more ? entries[entries.length - 1]!.id : null;
      return { text: `{"entries":[${entries.map(recordJson).join(',')}],"nextCursor":${JSON.stringify(nextCursor)}}`, full: more };
    });
  }

  /**
   * A page of the records the caller may read, as records, for exports: the
   * same rule as listJson (everyone's with read `any`, else their own), not
   * through the page cache (an export reads each page once). `contains`: only
   * records whose id or value text holds it (the dashboard's search).
   */
  async readablePage(c: OpenCollection, cursor: string, limit: number, contains: string | null = null): Promise<StoredRecord[]> {
    this.require(c, 'read');
    pageQuery({ cursor }); // a malformed cursor is 400, as at runtime
    this.usage.add(c.space.canvasId, 'kvReads');
    const authorId = c.rights.read.any ? null : c.caller.actorId;
    return this.store.page(c.space, { authorId, cursor, limit, contains });
  }

  async get(c: OpenCollection, id: string | null | undefined): Promise<StoredRecord> {
    const record = await this.target(c, id, 'read');
    this.usage.add(c.space.canvasId, 'kvReads');
    return record;
  }

  /** Replaces the value; the author stays. */
  async replace(c: OpenCollection, id: string | null | undefined, value: unknown): Promise<StoredRecord> {
    const record = await this.target(c, id, 'update');
    const text = serialize(value);
    this.usage.add(c.space.canvasId, 'kvWrites');
    const updated = await this.store.replace(c.space, record.id, text, this.now());
    if (!updated) throw new AppError('NOT_FOUND', 'no such record');
    await this.changed('collection.record.updated', c.space, updated);
    return updated;
  }

  /** Adds `by` (default 1) to a numeric record, atomically; a missing record is not created. */
  async increment(c: OpenCollection, id: string | null | undefined, by: number | undefined): Promise<StoredRecord> {
    const record = await this.target(c, id, 'increment');
    const step = by ?? 1;
    if (!Number.isFinite(step)) throw new AppError('INVALID_BODY', '`by` must be a finite number');
    this.usage.add(c.space.canvasId, 'kvWrites');
    const outcome = await this.store.increment(c.space, record.id, step, this.now());
    if (outcome === 'missing') throw new AppError('NOT_FOUND', 'no such record');
    if (outcome === 'not_numeric') throw new AppError('NOT_NUMERIC', 'the record value is not a number');
    if (outcome === 'not_finite') throw new AppError('INVALID_BODY', 'the result would not be a finite number');
    await this.changed('collection.record.updated', c.space, outcome.record);
    return outcome.record;
  }

  async delete(c: OpenCollection, id: string | null | undefined): Promise<{ ok: true; attachmentCleanupFailed: boolean }> {
    const record = await this.target(c, id, 'delete');
    this.usage.add(c.space.canvasId, 'kvWrites');
    if (!(await this.store.delete(c.space, record.id))) throw new AppError('NOT_FOUND', 'no such record');
    await this.audit.record({
      actorId: c.caller.actorId,
      actorKind: actorKindOf(c.caller),
      canvasId: c.space.canvasId,
      action: 'collection.record-deleted',
      detail: { collection: c.space.collection, recordId: record.id, authorId: record.authorId },
    });
    return { ok: true, attachmentCleanupFailed: await this.removed(c.space, [record.id]) };
  }

  /** Removes every record the caller may both read and delete (only their own unless they may delete anyone's). */
  async clear(c: OpenCollection): Promise<{ deleted: number; attachmentCleanupFailed: boolean }> {
    this.require(c, 'delete');
    this.usage.add(c.space.canvasId, 'kvWrites');
    const ids = await this.store.deleteAll(c.space, c.rights.delete.any ? null : c.caller.actorId);
    await this.audit.record({
      actorId: c.caller.actorId,
      actorKind: actorKindOf(c.caller),
      canvasId: c.space.canvasId,
      action: 'collection.cleared',
      detail: { collection: c.space.collection, deleted: ids.length, scope: c.rights.delete.any ? 'all' : 'own' },
    });
    return { deleted: ids.length, attachmentCleanupFailed: ids.length > 0 && (await this.removed(c.space, ids)) };
  }

  /** How many records the collection holds, for the `aggregateCount` audience only. */
  async count(c: OpenCollection): Promise<number> {
    if (!admitsAudience(c.policy.aggregateCount, c.caller.role)) {
      throw new AppError(
        'PERMISSION_DENIED',
        'counting this collection is not allowed (its policy names no aggregateCount audience for you)',
      );
    }
    this.usage.add(c.space.canvasId, 'kvReads');
    return this.store.count(c.space);
  }

  private changed(event: 'collection.record.created' | 'collection.record.updated', space: RecordSpace, r: StoredRecord): Promise<void> {
    return this.events.emitAndRecord(event, {
      canvasId: space.canvasId,
      collection: space.collection,
      recordId: r.id,
      authorId: r.authorId,
      value: r.value,
      updatedAt: r.updatedAt,
    });
  }

  /** Tells every listener; true when any cleanup failed. */
  private async removed(space: RecordSpace, ids: string[]): Promise<boolean> {
    await this.events.emitAndRecord('collection.record.deleted', {
      canvasId: space.canvasId,
      collection: space.collection,
      recordIds: ids,
    });
    let failed = false;
    for (const listener of this.removalListeners) {
      try {
        if ((await listener({ canvasId: space.canvasId, collection: space.collection, ids })) === false) failed = true;
      } catch {
        failed = true;
      }
    }
    return failed;
  }
}

function denied(op: Operation): AppError {
  return new AppError('PERMISSION_DENIED', `this collection's policy does not allow you to ${op === 'read' ? 'read' : op} its records`);
}

function keyLimit(quota: 'kv.keys.shared' | 'kv.keys.user', max: number, what: string): AppError {
  return new AppError('KEY_LIMIT', `record limit reached (${quota}: ${max} ${what})`, { quota });
}

/** JSON text of a parsed body value, at most 64 KiB. */
function serialize(value: unknown): string {
  const text = JSON.stringify(value);
  if (utf8Bytes(text) > COLLECTION_LIMITS.valueBytes) {
    throw new AppError('VALUE_TOO_LARGE', `values are at most ${COLLECTION_LIMITS.valueBytes} bytes once serialized`);
  }
  return text;
}

/** A creation stamp (ms, 9 base36 digits) then 11 random characters: id order is creation order. */
function newRecordId(stamp: number): string {
  return Math.max(0, stamp).toString(36).padStart(9, '0').slice(-9) + newId().slice(0, 11);
}
