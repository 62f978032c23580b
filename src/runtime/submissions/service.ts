import type { ActorKind, AuditLog } from '../../audit/store.ts';
import type { EventBus } from '../../events.ts';
import { AppError } from '../../errors.ts';
import { utf8Bytes } from '../collections/model.ts';
import type { RuntimeCaller } from '../pipeline.ts';
import type { UsageCounters } from '../usage.ts';
import { submissionCollection, submissionPageQuery, submissionUserId, SUBMISSION_LIMITS } from './model.ts';
import type { StoredSubmission, SubmissionSpace, SubmissionStore } from './store.ts';

export interface SubmissionPage {
  entries: StoredSubmission[];
  nextCursor: string | null;
}

const isManager = (c: RuntimeCaller) => c.role === 'owner' || c.role === 'editor';
const actorKindOf = (c: RuntimeCaller): ActorKind => (c.kind === 'guest' ? 'guest' : 'user');

/**
 * Submissions: one record per signed-in person and collection, tied to the
 * server-resolved caller id (the client never names whose, except to remove
 * one). Everyone admitted submits, reads and withdraws their own; owners and
 * editors list, remove and clear. No policy entry is needed. They count as
 * KV (the kv capability, its usage counters and rate bucket) with quotas of
 * their own. The audit log gets who, which collection and whose, never values.
 */
export class SubmissionService {
  constructor(
    private readonly store: SubmissionStore,
    private readonly usage: UsageCounters,
    private readonly audit: AuditLog,
    private readonly now: () => number,
    private readonly events: EventBus,
  ) {}

  /** 400 for a malformed collection name. */
  space(caller: RuntimeCaller, rawCollection: string | null | undefined): SubmissionSpace {
    return { canvasId: caller.canvas.id, collection: submissionCollection(rawCollection) };
  }

  /** Saves the caller's submission (upsert). A new one meets the quotas; replacing one never does. */
  async submit(caller: RuntimeCaller, space: SubmissionSpace, value: unknown): Promise<StoredSubmission> {
    const text = JSON.stringify(value);
    if (utf8Bytes(text) > SUBMISSION_LIMITS.bodyBytes) {
      throw new AppError('VALUE_TOO_LARGE', `submissions are at most ${SUBMISSION_LIMITS.bodyBytes} bytes`);
    }
    this.usage.add(space.canvasId, 'kvWrites');
    const outcome = await this.store.upsert(space, caller.actorId, text, this.now(), {
      perCanvas: SUBMISSION_LIMITS.perCanvas,
      perAuthor: SUBMISSION_LIMITS.perAuthor,
    });
    if (outcome === 'canvas_limit') throw keyLimit('kv.keys.shared', SUBMISSION_LIMITS.perCanvas, 'submissions per canvas');
    if (outcome === 'author_limit') throw keyLimit('kv.keys.user', SUBMISSION_LIMITS.perAuthor, 'submissions per person');
    await this.record(caller, 'submission.saved', { collection: space.collection, userId: caller.actorId, created: outcome.created });
    // Awaited: the owner's notification and the webhook deliveries are recorded before the answer.
    const saved = outcome.submission;
    await this.events.emitAndRecord(outcome.created ? 'submission.created' : 'submission.updated', {
      canvasId: space.canvasId,
      collection: space.collection,
      userId: saved.userId,
      value: saved.value,
      updatedAt: saved.updatedAt,
    });
    return outcome.submission;
  }

  /** The caller's own submission, or 404. */
  async mine(caller: RuntimeCaller, space: SubmissionSpace): Promise<StoredSubmission> {
    this.usage.add(space.canvasId, 'kvReads');
    const found = await this.store.get(space, caller.actorId);
    if (!found) throw new AppError('NOT_FOUND', 'you have no submission in this collection');
    return found;
  }

  /** Idempotent. */
  async withdraw(caller: RuntimeCaller, space: SubmissionSpace): Promise<void> {
    this.usage.add(space.canvasId, 'kvWrites');
    if (await this.store.delete(space, caller.actorId)) {
      await this.record(caller, 'submission.withdrawn', { collection: space.collection, userId: caller.actorId });
      await this.deleted(space, caller.actorId, 1);
    }
  }

  /** Owners and editors: everyone's submissions, in userId byte order; `contains` is the dashboard's search (the runtime API has none). */
  async list(
    caller: RuntimeCaller,
    space: SubmissionSpace,
    query: { limit?: string | null; cursor?: string | null },
    contains: string | null = null,
  ): Promise<SubmissionPage> {
    this.requireManager(caller, 'list');
    const { limit, cursor } = submissionPageQuery(query);
    this.usage.add(space.canvasId, 'kvReads');
    const rows = await this.store.page(space, cursor, limit + 1, contains);
    const more = rows.length > limit;
    const entries = more ? rows.slice(0, limit) : rows;
    return { entries, nextCursor: more ? entries[entries.length - 1]!.userId : null };
  }

  /** Owners and editors remove anyone's; anyone may remove their own (by their id). Idempotent. */
  async remove(caller: RuntimeCaller, space: SubmissionSpace, rawUserId: string | null | undefined): Promise<void> {
    const userId = submissionUserId(rawUserId);
    if (userId !== caller.actorId) this.requireManager(caller, 'remove');
    this.usage.add(space.canvasId, 'kvWrites');
    if (await this.store.delete(space, userId)) {
      await this.record(caller, userId === caller.actorId ? 'submission.withdrawn' : 'submission.removed', {
        collection: space.collection,
        userId,
      });
      await this.deleted(space, userId, 1);
    }
  }

  /** Owners and editors: removes the whole collection's submissions. */
  async clear(caller: RuntimeCaller, space: SubmissionSpace): Promise<number> {
    this.requireManager(caller, 'clear');
    this.usage.add(space.canvasId, 'kvWrites');
    const deleted = await this.store.deleteAll(space);
    await this.record(caller, 'submissions.cleared', { collection: space.collection, deleted });
    if (deleted > 0) await this.deleted(space, null, deleted);
    return deleted;
  }

  private deleted(space: SubmissionSpace, userId: string | null, count: number): Promise<void> {
    return this.events.emitAndRecord('submission.deleted', { canvasId: space.canvasId, collection: space.collection, userId, count });
  }

  private requireManager(caller: RuntimeCaller, what: 'list' | 'remove' | 'clear'): void {
    if (isManager(caller)) return;
    const message = {
      list: "only owners and editors may list everyone's submissions",
      remove: "only owners and editors may remove someone else's submission",
      clear: 'only owners and editors may clear a collection of submissions',
    }[what];
    throw new AppError('PERMISSION_DENIED', message);
  }

  private async record(caller: RuntimeCaller, action: string, detail: Record<string, unknown>): Promise<void> {
    await this.audit.record({ actorId: caller.actorId, actorKind: actorKindOf(caller), canvasId: caller.canvas.id, action, detail });
  }
}

function keyLimit(quota: 'kv.keys.shared' | 'kv.keys.user', max: number, what: string): AppError {
  return new AppError('KEY_LIMIT', `submission limit reached (${quota}: ${max} ${what})`, { quota });
}
