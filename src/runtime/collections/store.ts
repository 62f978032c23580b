import { tx, type Sql, type TxSteps } from '../../db/sql.ts';
import { containsPattern } from '../../db/like.ts';
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
const IN_SPACE = 'canvas_id = ?1 AND collection = ?2';
// Pages wrap their parameters in expressions (same plan, same results): with plain
// parameters in the key prefix or LIMIT of a range scan, SQLite prepared the statement
// again on every run, five times the cost of the query itself (measured in bun:sqlite).
const IN_SPACE_OF_PAGE = "canvas_id = (?1 || '') AND collection = (?2 || '')";
const GET = `SELECT ${COLUMNS} FROM collection_records WHERE ${IN_SPACE} AND id = ?3`;
// ?3 = cursor (exclusive; '' from the start).
const PAGE = `SELECT ${COLUMNS} FROM collection_records WHERE ${IN_SPACE_OF_PAGE} AND id > ?3 ORDER BY id LIMIT (?4 + 0)`;
const authorPage = (indexedBy: string, holds = '') =>
  `SELECT ${COLUMNS} FROM collection_records ${indexedBy}
   WHERE ${IN_SPACE_OF_PAGE} AND author_id = (?3 || '') AND id > ?4 ${holds} ORDER BY id LIMIT (?5 + 0)`;
// The same pages keeping the records whose id or value text holds the pattern (a lowercased LIKE, last parameter).
const HOLDS = (n: number) => `AND (easel_fold(id) LIKE ?${n} ESCAPE '\\' OR easel_fold(value) LIKE ?${n} ESCAPE '\\')`;
const SEARCH_PAGE = `SELECT ${COLUMNS} FROM collection_records WHERE ${IN_SPACE_OF_PAGE} AND id > ?3 ${HOLDS(5)} ORDER BY id LIMIT (?4 + 0)`;
const COUNT = `SELECT COUNT(*) AS n FROM collection_records WHERE ${IN_SPACE}`;
// Kept by triggers (migration 009); author '' is the canvas's total.
const COUNTED = 'SELECT n FROM collection_record_counts WHERE canvas_id = ?1 AND author_id = ?2';
const INSERT = 'INSERT INTO collection_records (canvas_id, collection, id, author_id, value, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)';
const UPDATE = `UPDATE collection_records SET value = ?4, updated_at = ?5 WHERE ${IN_SPACE} AND id = ?3 RETURNING ${COLUMNS}`;
const DELETE = `DELETE FROM collection_records WHERE ${IN_SPACE} AND id = ?3`;
const DELETE_ALL = `DELETE FROM collection_records WHERE ${IN_SPACE} RETURNING id`;
const DELETE_AUTHOR = `DELETE FROM collection_records WHERE ${IN_SPACE} AND author_id = ?3 RETURNING id`;

/**
 * SQL for collection records. A create locks the canvas's counts before
 * meeting the quotas, so concurrent creates never pass one together; an
 * increment or a replacement locks the record, so concurrent increments
 * never lose a count and a replacement never lands inside one.
 */
export class RecordStore {
  private readonly authorPage: string;
  private readonly authorSearch: string;

  constructor(private readonly sql: Sql) {
    // Without statistics SQLite's planner would walk every record of the collection for one author's.
    const indexedBy = sql.engine === 'sqlite' ? 'INDEXED BY collection_records_author' : '';
    this.authorPage = authorPage(indexedBy);
    this.authorSearch = authorPage(indexedBy, HOLDS(6));
  }

  async get(space: RecordSpace, id: string): Promise<StoredRecord | null> {
    const row = await this.sql.get<Row>(GET, space.canvasId, space.collection, id);
    return row ? toRecord(row) : null;
  }

  /**
   * Records after `cursor` (exclusive) in id order; only `authorId`'s when
   * given; with `contains`, only those whose id or value text holds it (as KvStore.list).
   */
  async page(
    space: RecordSpace,
    opts: { authorId: string | null; cursor: string; limit: number; contains?: string | null },
  ): Promise<StoredRecord[]> {
    const { canvasId, collection } = space;
    const search = opts.contains ? [containsPattern(opts.contains)] : [];
    const rows =
      opts.authorId === null
        ? await this.sql.all<Row>(search.length ? SEARCH_PAGE : PAGE, canvasId, collection, opts.cursor, opts.limit, ...search)
        : await this.sql.all<Row>(
            search.length ? this.authorSearch : this.authorPage,
            canvasId,
            collection,
            opts.authorId,
            opts.cursor,
            opts.limit,
            ...search,
          );
    return rows.map(toRecord);
  }

  async count(space: RecordSpace): Promise<number> {
    return (await this.sql.get<{ n: number }>(COUNT, space.canvasId, space.collection))!.n;
  }

  /** A new record, unless the canvas or the author is at its quota. */
  insert(space: RecordSpace, record: StoredRecord, quotas: RecordQuotas): Promise<InsertOutcome> {
    const { canvasId, collection } = space;
    return this.sql.write(function* (): TxSteps<InsertOutcome> {
      yield* tx.lock('records', canvasId);
      const counted = function* (authorId: string): TxSteps<number> {
        return (yield* tx.get<{ n: number }>(COUNTED, canvasId, authorId))?.n ?? 0;
      };
      if ((yield* counted('')) >= quotas.perCanvas) return 'canvas_limit';
      if ((yield* counted(record.authorId)) >= quotas.perAuthor) return 'author_limit';
      yield* tx.run(INSERT, canvasId, collection, record.id, record.authorId, record.value, record.updatedAt);
      return 'ok';
    });
  }

  /** The updated record, or null when it no longer exists. */
  replace(space: RecordSpace, id: string, value: string, now: number): Promise<StoredRecord | null> {
    const { canvasId, collection } = space;
    return this.sql.write(function* () {
      yield* tx.lock('records', canvasId, collection, id);
      const row = yield* tx.get<Row>(UPDATE, canvasId, collection, id, value, now);
      return row ? toRecord(row) : null;
    });
  }

  /**
   * Adds `by` to a numeric value; no upsert. The sum is computed in
   * JavaScript, so the stored text is what a PUT of the same number stores
   * (`0`, not `0.0`).
   */
  increment(space: RecordSpace, id: string, by: number, now: number): Promise<IncrementOutcome> {
    const { canvasId, collection } = space;
    return this.sql.write(function* (): TxSteps<IncrementOutcome> {
      yield* tx.lock('records', canvasId, collection, id);
      const row = yield* tx.get<Row>(GET, canvasId, collection, id);
      if (!row) return 'missing';
      const current = storedNumber(row.value);
      if (current === null) return 'not_numeric';
      const sum = current + by;
      if (!Number.isFinite(sum)) return 'not_finite';
      // Deleted since the read (deletes take no lock): as missing as before it.
      const updated = yield* tx.get<Row>(UPDATE, canvasId, collection, id, JSON.stringify(sum), now);
      return updated ? { record: toRecord(updated) } : 'missing';
    });
  }

  /** Whether a record was removed. */
  async delete(space: RecordSpace, id: string): Promise<boolean> {
    return (await this.sql.run(DELETE, space.canvasId, space.collection, id)) > 0;
  }

  /** Removes every record of the collection, or only `authorId`'s; the removed ids. */
  async deleteAll(space: RecordSpace, authorId: string | null): Promise<string[]> {
    const rows =
      authorId === null
        ? await this.sql.all<{ id: string }>(DELETE_ALL, space.canvasId, space.collection)
        : await this.sql.all<{ id: string }>(DELETE_AUTHOR, space.canvasId, space.collection, authorId);
    return rows.map((r) => r.id);
  }
}
