import type { Database, Statement } from 'bun:sqlite';

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

/**
 * SQL for submissions: one row per canvas, collection and user. The upsert
 * runs in one BEGIN IMMEDIATE transaction so the quotas on new rows hold
 * under concurrency; an update never meets them.
 */
export class SubmissionStore {
  private readonly getQ: Statement<Row, [string, string, string]>;
  private readonly pageQ: Statement<Row, [string, string, string, number]>;
  private readonly countedQ: Statement<{ n: number }, [string, string]>;
  private readonly updateQ: Statement<unknown, [string, string, string, string, number]>;
  private readonly insertQ: Statement<unknown, [string, string, string, string, number]>;
  private readonly deleteQ: Statement<unknown, [string, string, string]>;
  private readonly deleteAllQ: Statement<unknown, [string, string]>;
  private readonly upsertTx: (
    space: SubmissionSpace,
    userId: string,
    value: string,
    now: number,
    quotas: SubmissionQuotas,
  ) => UpsertOutcome;

  constructor(db: Database) {
    const inSpace = 'canvas_id = ?1 AND collection = ?2';
    this.getQ = db.query(`SELECT user_id, value, updated_at FROM submissions WHERE ${inSpace} AND user_id = ?3`);
    // user_id uses SQLite's BINARY collation: byte order. ?3 = cursor (exclusive; '' from the start).
    this.pageQ = db.query(`SELECT user_id, value, updated_at FROM submissions WHERE ${inSpace} AND user_id > ?3 ORDER BY user_id LIMIT ?4`);
    // Kept by triggers (migration 009); user '' is the canvas's total.
    this.countedQ = db.query('SELECT n FROM submission_counts WHERE canvas_id = ?1 AND user_id = ?2');
    this.updateQ = db.query(`UPDATE submissions SET value = ?4, updated_at = ?5 WHERE ${inSpace} AND user_id = ?3`);
    this.insertQ = db.query('INSERT INTO submissions (canvas_id, collection, user_id, value, updated_at) VALUES (?1, ?2, ?3, ?4, ?5)');
    this.deleteQ = db.query(`DELETE FROM submissions WHERE ${inSpace} AND user_id = ?3`);
    this.deleteAllQ = db.query(`DELETE FROM submissions WHERE ${inSpace}`);

    const upsertTx = db.transaction(
      (space: SubmissionSpace, userId: string, value: string, now: number, quotas: SubmissionQuotas): UpsertOutcome => {
        const submission = { userId, value, updatedAt: now };
        if (this.updateQ.run(space.canvasId, space.collection, userId, value, now).changes > 0) return { submission, created: false };
        if (this.counted(space.canvasId, '') >= quotas.perCanvas) return 'canvas_limit';
        if (this.counted(space.canvasId, userId) >= quotas.perAuthor) return 'author_limit';
        this.insertQ.run(space.canvasId, space.collection, userId, value, now);
        return { submission, created: true };
      },
    );
    this.upsertTx = (space, userId, value, now, quotas) => upsertTx.immediate(space, userId, value, now, quotas);
  }

  private counted(canvasId: string, userId: string): number {
    return this.countedQ.get(canvasId, userId)?.n ?? 0;
  }

  get(space: SubmissionSpace, userId: string): StoredSubmission | null {
    const row = this.getQ.get(space.canvasId, space.collection, userId);
    return row ? toSubmission(row) : null;
  }

  /** Submissions after `cursor` (exclusive), in userId byte order. */
  page(space: SubmissionSpace, cursor: string, limit: number): StoredSubmission[] {
    return this.pageQ.all(space.canvasId, space.collection, cursor, limit).map(toSubmission);
  }

  /** Replaces the user's submission, or adds one unless the canvas or the user is at its quota. */
  upsert(space: SubmissionSpace, userId: string, value: string, now: number, quotas: SubmissionQuotas): UpsertOutcome {
    return this.upsertTx(space, userId, value, now, quotas);
  }

  /** Whether a submission was removed. */
  delete(space: SubmissionSpace, userId: string): boolean {
    return this.deleteQ.run(space.canvasId, space.collection, userId).changes > 0;
  }

  /** How many were removed. */
  deleteAll(space: SubmissionSpace): number {
    return this.deleteAllQ.run(space.canvasId, space.collection).changes;
  }
}
