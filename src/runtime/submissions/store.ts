import { containsPattern } from '../../db/like.ts';
import { tx, type Sql, type TxSteps } from '../../db/sql.ts';

/** A stored submission; `value` is the JSON text as written. */
export interface StoredSubmission {
  userId: string;
  value: string;
  updatedAt: number;
}

/** One submissions collection of one canvas. */
export interface SubmissionSpace {
  canvasId: string;
  collection: string;
}

export interface SubmissionQuotas {
  perCanvas: number;
  perAuthor: number;
}

export type UpsertOutcome = { submission: StoredSubmission; created: boolean } | 'canvas_limit' | 'author_limit';

interface Row {
  user_id: string;
  value: string;
  updated_at: number;
}

const toSubmission = (r: Row): StoredSubmission => ({ userId: r.user_id, value: r.value, updatedAt: r.updated_at });

const IN_SPACE = 'canvas_id = ?1 AND collection = ?2';
const GET = `SELECT user_id, value, updated_at FROM submissions WHERE ${IN_SPACE} AND user_id = ?3`;
// Byte order on both engines. ?3 = cursor (exclusive; '' from the start).
const PAGE = `SELECT user_id, value, updated_at FROM submissions WHERE ${IN_SPACE} AND user_id > ?3 ORDER BY user_id LIMIT ?4`;
// The same, keeping those whose user id or value text holds ?5 (a lowercased LIKE pattern).
const SEARCH_PAGE = `SELECT user_id, value, updated_at FROM submissions WHERE ${IN_SPACE} AND user_id > ?3
  AND (easel_fold(user_id) LIKE ?5 ESCAPE '\\' OR easel_fold(value) LIKE ?5 ESCAPE '\\') ORDER BY user_id LIMIT ?4`;
// Kept by triggers (migration 009); user '' is the canvas's total.
const COUNTED = 'SELECT n FROM submission_counts WHERE canvas_id = ?1 AND user_id = ?2';
const UPDATE = `UPDATE submissions SET value = ?4, updated_at = ?5 WHERE ${IN_SPACE} AND user_id = ?3`;
const INSERT = 'INSERT INTO submissions (canvas_id, collection, user_id, value, updated_at) VALUES (?1, ?2, ?3, ?4, ?5)';
const DELETE = `DELETE FROM submissions WHERE ${IN_SPACE} AND user_id = ?3`;
const DELETE_ALL = `DELETE FROM submissions WHERE ${IN_SPACE}`;

/**
 * SQL for submissions: one row per canvas, collection and user. An upsert
 * locks the user's submission, and a new one also the canvas's counts before
 * meeting the quotas, so they hold under concurrency; an update never meets
 * them.
 */
export class SubmissionStore {
  constructor(private readonly sql: Sql) {}

  async get(space: SubmissionSpace, userId: string): Promise<StoredSubmission | null> {
    const row = await this.sql.get<Row>(GET, space.canvasId, space.collection, userId);
    return row ? toSubmission(row) : null;
  }

  /** Submissions after `cursor` (exclusive), in userId byte order; with `contains`, those whose user id or value text holds it. */
  async page(space: SubmissionSpace, cursor: string, limit: number, contains: string | null = null): Promise<StoredSubmission[]> {
    const rows = contains
      ? await this.sql.all<Row>(SEARCH_PAGE, space.canvasId, space.collection, cursor, limit, containsPattern(contains))
      : await this.sql.all<Row>(PAGE, space.canvasId, space.collection, cursor, limit);
    return rows.map(toSubmission);
  }

  /** Replaces the user's submission, or adds one unless the canvas or the user is at its quota. */
  upsert(space: SubmissionSpace, userId: string, value: string, now: number, quotas: SubmissionQuotas): Promise<UpsertOutcome> {
    const { canvasId, collection } = space;
    return this.sql.write(function* (): TxSteps<UpsertOutcome> {
      const submission = { userId, value, updatedAt: now };
      yield* tx.lock('submissions', canvasId, collection, userId);
      if ((yield* tx.run(UPDATE, canvasId, collection, userId, value, now)) > 0) return { submission, created: false };
      yield* tx.lock('submissions', canvasId);
      const counted = function* (who: string): TxSteps<number> {
        return (yield* tx.get<{ n: number }>(COUNTED, canvasId, who))?.n ?? 0;
      };
      if ((yield* counted('')) >= quotas.perCanvas) return 'canvas_limit';
      if ((yield* counted(userId)) >= quotas.perAuthor) return 'author_limit';
      yield* tx.run(INSERT, canvasId, collection, userId, value, now);
      return { submission, created: true };
    });
  }

  /** Whether a submission was removed. */
  async delete(space: SubmissionSpace, userId: string): Promise<boolean> {
    return (await this.sql.run(DELETE, space.canvasId, space.collection, userId)) > 0;
  }

  /** How many were removed. */
  deleteAll(space: SubmissionSpace): Promise<number> {
    return this.sql.run(DELETE_ALL, space.canvasId, space.collection);
  }
}
