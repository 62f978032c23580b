import type { Database, Statement } from 'bun:sqlite';
import { storedNumber } from '../stored-number.ts';

export type KvScope = 'shared' | 'user';

/** One KV namespace: a canvas's shared keys, or one viewer's keys on a canvas (ownerId '' for shared). */
export interface KvSpace {
  canvasId: string;
  scope: KvScope;
  ownerId: string;
}

/** A stored entry; `value` is the JSON text as written. */
export interface KvRow {
  key: string;
  value: string;
}

export type PutOutcome = 'ok' | 'key_limit';
export type IncrementOutcome = { value: string } | 'not_numeric' | 'key_limit' | 'not_finite';

const WHERE_KEY = 'canvas_id = ?1 AND scope = ?2 AND owner_id = ?3 AND key = ?4';
const WHERE_SPACE = 'canvas_id = ?1 AND scope = ?2 AND owner_id = ?3';

/**
 * SQL for KV. Writes that depend on what is stored (quota on new keys,
 * increments) run in one BEGIN IMMEDIATE transaction: the write lock is held
 * from the read to the write, so concurrent increments never lose a count.
 */
export class KvStore {
  private readonly getQ: Statement<{ value: string }, [string, string, string, string]>;
  private readonly countQ: Statement<{ n: number }, [string, string, string]>;
  private readonly updateQ: Statement<unknown, [string, string, string, string, string, number]>;
  private readonly insertQ: Statement<unknown, [string, string, string, string, string, number]>;
  private readonly deleteQ: Statement<unknown, [string, string, string, string]>;
  private readonly listQ: Statement<KvRow, [string, string, string, string, string, number]>;
  private readonly putTx: (space: KvSpace, key: string, value: string, quota: number, now: number) => PutOutcome;
  private readonly incrementTx: (space: KvSpace, key: string, by: number, quota: number, now: number) => IncrementOutcome;

  constructor(db: Database) {
    this.getQ = db.query(`SELECT value FROM kv WHERE ${WHERE_KEY}`);
    this.countQ = db.query(`SELECT COUNT(*) AS n FROM kv WHERE ${WHERE_SPACE}`);
    this.updateQ = db.query(`UPDATE kv SET value = ?5, updated_at = ?6 WHERE ${WHERE_KEY}`);
    this.insertQ = db.query('INSERT INTO kv (canvas_id, scope, owner_id, key, value, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)');
    this.deleteQ = db.query(`DELETE FROM kv WHERE ${WHERE_KEY}`);
    // ?4 = cursor (exclusive), ?5 = prefix: substr compares characters on both sides, so any prefix is exact.
    this.listQ = db.query(
      `SELECT key, value FROM kv WHERE ${WHERE_SPACE} AND key > ?4 AND key >= ?5 AND substr(key, 1, length(?5)) = ?5
       ORDER BY key LIMIT ?6`,
    );

    const putTx = db.transaction((space: KvSpace, key: string, value: string, quota: number, now: number): PutOutcome => {
      const a = args(space, key);
      if (this.updateQ.run(...a, value, now).changes > 0) return 'ok';
      if (this.count(space) >= quota) return 'key_limit';
      this.insertQ.run(...a, value, now);
      return 'ok';
    });
    this.putTx = (space, key, value, quota, now) => putTx.immediate(space, key, value, quota, now);

    // The sum is computed in JavaScript, not SQL, so the stored text is what a
    // PUT of the same number stores (`0`, `2e+300`; SQLite would write `0.0`, `2.0e+300`).
    const incrementTx = db.transaction((space: KvSpace, key: string, by: number, quota: number, now: number): IncrementOutcome => {
      const a = args(space, key);
      const row = this.getQ.get(...a);
      if (row) {
        const current = storedNumber(row.value);
        if (current === null) return 'not_numeric';
        const sum = current + by;
        if (!Number.isFinite(sum)) return 'not_finite';
        const value = JSON.stringify(sum);
        this.updateQ.run(...a, value, now);
        return { value };
      }
      if (this.count(space) >= quota) return 'key_limit';
      const value = JSON.stringify(by);
      this.insertQ.run(...a, value, now);
      return { value };
    });
    this.incrementTx = (space, key, by, quota, now) => incrementTx.immediate(space, key, by, quota, now);
  }

  get(space: KvSpace, key: string): string | null {
    return this.getQ.get(...args(space, key))?.value ?? null;
  }

  /** Entries after `cursor` (exclusive) whose key starts with `prefix`, in key (byte) order. */
  list(space: KvSpace, opts: { prefix: string; cursor: string; limit: number }): KvRow[] {
    return this.listQ.all(space.canvasId, space.scope, space.ownerId, opts.cursor, opts.prefix, opts.limit);
  }

  count(space: KvSpace): number {
    return this.countQ.get(space.canvasId, space.scope, space.ownerId)!.n;
  }

  /** Writes the value; a new key counts against `quota`, an existing key is always updated. */
  put(space: KvSpace, key: string, value: string, quota: number, now: number): PutOutcome {
    return this.putTx(space, key, value, quota, now);
  }

  /** Idempotent. */
  delete(space: KvSpace, key: string): void {
    this.deleteQ.run(...args(space, key));
  }

  /** Adds `by` to a numeric value; a missing key starts at 0 (and counts against `quota`). */
  increment(space: KvSpace, key: string, by: number, quota: number, now: number): IncrementOutcome {
    return this.incrementTx(space, key, by, quota, now);
  }
}

function args(space: KvSpace, key: string): [string, string, string, string] {
  return [space.canvasId, space.scope, space.ownerId, key];
}
