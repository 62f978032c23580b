import type { Database, Statement } from 'bun:sqlite';
import { storedNumber } from '../stored-number.ts';

/** A stored record; `value` is the JSON text as written. */
export interface StoredRecord {
  id: string;
  authorId: string;
  value: string;
  updatedAt: number;
}

/** Where records live: one collection of one canvas. */
export interface RecordSpace {
  canvasId: string;
  collection: string;
}

export interface RecordQuotas {
  /** Records per canvas, across its collections. */
  perCanvas: number;
  /** Records per author on a canvas, across its collections. */
  perAuthor: number;
}

export type InsertOutcome = 'ok' | 'canvas_limit' | 'author_limit';
export type IncrementOutcome = { record: StoredRecord } | 'missing' | 'not_numeric' | 'not_finite';

interface Row {
  id: string;
  author_id: string;
  value: string;
  updated_at: number;
}

const toRecord = (r: Row): StoredRecord => ({ id: r.id, authorId: r.author_id, value: r.value, updatedAt: r.updated_at });

const COLUMNS = 'id, author_id, value, updated_at';

/**
 * SQL for collection records. Writes that depend on what is stored (the
 * quotas on new records, increments) run in one BEGIN IMMEDIATE transaction,
 * so concurrent increments never lose a count and concurrent creates never
 * pass a quota together.
 */
export class RecordStore {
  private readonly getQ: Statement<Row, [string, string, string]>;
  private readonly pageQ: Statement<Row, [string, string, string, number]>;
  private readonly authorPageQ: Statement<Row, [string, string, string, string, number]>;
  private readonly countQ: Statement<{ n: number }, [string, string]>;
  private readonly countedQ: Statement<{ n: number }, [string, string]>;
  private readonly insertQ: Statement<unknown, [string, string, string, string, string, number]>;
  private readonly updateQ: Statement<Row, [string, string, string, string, number]>;
  private readonly deleteQ: Statement<unknown, [string, string, string]>;
  private readonly deleteAllQ: Statement<{ id: string }, [string, string]>;
  private readonly deleteAuthorQ: Statement<{ id: string }, [string, string, string]>;
  private readonly insertTx: (space: RecordSpace, record: StoredRecord, quotas: RecordQuotas) => InsertOutcome;
  private readonly incrementTx: (space: RecordSpace, id: string, by: number, now: number) => IncrementOutcome;

  constructor(db: Database) {
    const inSpace = 'canvas_id = ?1 AND collection = ?2';
    // Pages wrap their parameters in expressions (same plan, same results): with plain
    // parameters in the key prefix or LIMIT of a range scan, SQLite prepared the statement
    // again on every run, five times the cost of the query itself (measured in bun:sqlite).
    const inSpaceOfPage = "canvas_id = (?1 || '') AND collection = (?2 || '')";
    this.getQ = db.query(`SELECT ${COLUMNS} FROM collection_records WHERE ${inSpace} AND id = ?3`);
    // ?3 = cursor (exclusive; '' from the start).
    this.pageQ = db.query(`SELECT ${COLUMNS} FROM collection_records WHERE ${inSpaceOfPage} AND id > ?3 ORDER BY id LIMIT (?4 + 0)`);
    // Without statistics the planner would walk every record of the collection for one author's.
    this.authorPageQ = db.query(
      `SELECT ${COLUMNS} FROM collection_records INDEXED BY collection_records_author
       WHERE ${inSpaceOfPage} AND author_id = (?3 || '') AND id > ?4 ORDER BY id LIMIT (?5 + 0)`,
    );
    this.countQ = db.query(`SELECT COUNT(*) AS n FROM collection_records WHERE ${inSpace}`);
    // Kept by triggers (migration 009); author '' is the canvas's total.
    this.countedQ = db.query('SELECT n FROM collection_record_counts WHERE canvas_id = ?1 AND author_id = ?2');
    this.insertQ = db.query(
      'INSERT INTO collection_records (canvas_id, collection, id, author_id, value, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)',
    );
    this.updateQ = db.query(`UPDATE collection_records SET value = ?4, updated_at = ?5 WHERE ${inSpace} AND id = ?3 RETURNING ${COLUMNS}`);
    this.deleteQ = db.query(`DELETE FROM collection_records WHERE ${inSpace} AND id = ?3`);
    this.deleteAllQ = db.query(`DELETE FROM collection_records WHERE ${inSpace} RETURNING id`);
    this.deleteAuthorQ = db.query(`DELETE FROM collection_records WHERE ${inSpace} AND author_id = ?3 RETURNING id`);

    const insertTx = db.transaction((space: RecordSpace, record: StoredRecord, quotas: RecordQuotas): InsertOutcome => {
      if (this.counted(space.canvasId, '') >= quotas.perCanvas) return 'canvas_limit';
      if (this.counted(space.canvasId, record.authorId) >= quotas.perAuthor) return 'author_limit';
      this.insertQ.run(space.canvasId, space.collection, record.id, record.authorId, record.value, record.updatedAt);
      return 'ok';
    });
    this.insertTx = (space, record, quotas) => insertTx.immediate(space, record, quotas);

    // The sum is computed in JavaScript, so the stored text is what a PUT of the same number stores (`0`, not `0.0`).
    const incrementTx = db.transaction((space: RecordSpace, id: string, by: number, now: number): IncrementOutcome => {
      const row = this.getQ.get(space.canvasId, space.collection, id);
      if (!row) return 'missing';
      const current = storedNumber(row.value);
      if (current === null) return 'not_numeric';
      const sum = current + by;
      if (!Number.isFinite(sum)) return 'not_finite';
      return { record: toRecord(this.updateQ.get(space.canvasId, space.collection, id, JSON.stringify(sum), now)!) };
    });
    this.incrementTx = (space, id, by, now) => incrementTx.immediate(space, id, by, now);
  }

  get(space: RecordSpace, id: string): StoredRecord | null {
    const row = this.getQ.get(space.canvasId, space.collection, id);
    return row ? toRecord(row) : null;
  }

  /** Records after `cursor` (exclusive) in id order; only `authorId`'s when given. */
  page(space: RecordSpace, opts: { authorId: string | null; cursor: string; limit: number }): StoredRecord[] {
    const rows =
      opts.authorId === null
        ? this.pageQ.all(space.canvasId, space.collection, opts.cursor, opts.limit)
        : this.authorPageQ.all(space.canvasId, space.collection, opts.authorId, opts.cursor, opts.limit);
    return rows.map(toRecord);
  }

  private counted(canvasId: string, authorId: string): number {
    return this.countedQ.get(canvasId, authorId)?.n ?? 0;
  }

  count(space: RecordSpace): number {
    return this.countQ.get(space.canvasId, space.collection)!.n;
  }

  /** A new record, unless the canvas or the author is at its quota. */
  insert(space: RecordSpace, record: StoredRecord, quotas: RecordQuotas): InsertOutcome {
    return this.insertTx(space, record, quotas);
  }

  /** The updated record, or null when it no longer exists. */
  replace(space: RecordSpace, id: string, value: string, now: number): StoredRecord | null {
    const row = this.updateQ.get(space.canvasId, space.collection, id, value, now);
    return row ? toRecord(row) : null;
  }

  /** Adds `by` to a numeric value; no upsert. */
  increment(space: RecordSpace, id: string, by: number, now: number): IncrementOutcome {
    return this.incrementTx(space, id, by, now);
  }

  /** Whether a record was removed. */
  delete(space: RecordSpace, id: string): boolean {
    return this.deleteQ.run(space.canvasId, space.collection, id).changes > 0;
  }

  /** Removes every record of the collection, or only `authorId`'s; the removed ids. */
  deleteAll(space: RecordSpace, authorId: string | null): string[] {
    const rows =
      authorId === null
        ? this.deleteAllQ.all(space.canvasId, space.collection)
        : this.deleteAuthorQ.all(space.canvasId, space.collection, authorId);
    return rows.map((r) => r.id);
  }
}
