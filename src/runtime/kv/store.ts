import { tx, type Sql, type TxSteps } from '../../db/sql.ts';
import { containsPattern } from '../../db/like.ts';
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
const GET = `SELECT value FROM kv WHERE ${WHERE_KEY}`;
const COUNT = `SELECT COUNT(*) AS n FROM kv WHERE ${WHERE_SPACE}`;
const UPDATE = `UPDATE kv SET value = ?5, updated_at = ?6 WHERE ${WHERE_KEY}`;
const INSERT = 'INSERT INTO kv (canvas_id, scope, owner_id, key, value, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)';
const DELETE = `DELETE FROM kv WHERE ${WHERE_KEY}`;
// ?4 = cursor (exclusive), ?5 = prefix: substr compares characters on both sides, so any prefix is exact.
const LIST = `SELECT key, value FROM kv WHERE ${WHERE_SPACE} AND key > ?4 AND key >= ?5 AND substr(key, 1, length(?5)) = ?5
  ORDER BY key LIMIT ?6`;
// The same, keeping the entries whose key or value text holds ?7 (a lowercased LIKE pattern).
const SEARCH = `SELECT key, value FROM kv WHERE ${WHERE_SPACE} AND key > ?4 AND key >= ?5 AND substr(key, 1, length(?5)) = ?5
  AND (easel_fold(key) LIKE ?7 ESCAPE '\\' OR easel_fold(value) LIKE ?7 ESCAPE '\\') ORDER BY key LIMIT ?6`;

/**
 * SQL for KV. Every write locks its key, and a write that adds a key also
 * locks its space (always in that order) before counting it against the
 * quota: concurrent increments never lose a count, a put never lands between
 * an increment's read and its write, and a space never passes its quota, on
 * either engine.
 */
export class KvStore {
  constructor(private readonly sql: Sql) {}

  async get(space: KvSpace, key: string): Promise<string | null> {
    return (await this.sql.get<{ value: string }>(GET, ...args(space, key)))?.value ?? null;
  }

  /**
   * Entries after `cursor` (exclusive) whose key starts with `prefix`, in key
   * (byte) order; with `contains`, only those whose key or value text holds it
   * (case-insensitively, taken literally: `%` and `_` are themselves).
   */
  list(space: KvSpace, opts: { prefix: string; cursor: string; limit: number; contains?: string | null }): Promise<KvRow[]> {
    const a = [space.canvasId, space.scope, space.ownerId, opts.cursor, opts.prefix, opts.limit] as const;
    if (!opts.contains) return this.sql.all<KvRow>(LIST, ...a);
    return this.sql.all<KvRow>(SEARCH, ...a, containsPattern(opts.contains));
  }

  async count(space: KvSpace): Promise<number> {
    return (await this.sql.get<{ n: number }>(COUNT, space.canvasId, space.scope, space.ownerId))!.n;
  }

  /** Writes the value; a new key counts against `quota`, an existing key is always updated. */
  put(space: KvSpace, key: string, value: string, quota: number, now: number): Promise<PutOutcome> {
    const a = args(space, key);
    return this.sql.write(function* () {
      yield* lockKey(a);
      if ((yield* tx.run(UPDATE, ...a, value, now)) > 0) return 'ok';
      if (!(yield* roomFor(a, quota))) return 'key_limit';
      yield* tx.run(INSERT, ...a, value, now);
      return 'ok';
    });
  }

  /** Idempotent. */
  async delete(space: KvSpace, key: string): Promise<void> {
    const a = args(space, key);
    await this.sql.write(function* () {
      yield* lockKey(a);
      yield* tx.run(DELETE, ...a);
    });
  }

  /**
   * Adds `by` to a numeric value; a missing key starts at 0 (and counts
   * against `quota`). The sum is computed in JavaScript, not SQL, so the
   * stored text is what a PUT of the same number stores (`0`, `2e+300`;
   * SQLite would write `0.0`, `2.0e+300`).
   */
  increment(space: KvSpace, key: string, by: number, quota: number, now: number): Promise<IncrementOutcome> {
    const a = args(space, key);
    return this.sql.write(function* (): TxSteps<IncrementOutcome> {
      yield* lockKey(a);
      const row = yield* tx.get<{ value: string }>(GET, ...a);
      if (row) {
        const current = storedNumber(row.value);
        if (current === null) return 'not_numeric';
        const sum = current + by;
        if (!Number.isFinite(sum)) return 'not_finite';
        const value = JSON.stringify(sum);
        yield* tx.run(UPDATE, ...a, value, now);
        return { value };
      }
      if (!(yield* roomFor(a, quota))) return 'key_limit';
      const value = JSON.stringify(by);
      yield* tx.run(INSERT, ...a, value, now);
      return { value };
    });
  }
}

type KeyArgs = [string, string, string, string];

function args(space: KvSpace, key: string): KeyArgs {
  return [space.canvasId, space.scope, space.ownerId, key];
}

function lockKey(a: KeyArgs): TxSteps<void> {
  return tx.lock('kv', ...a);
}

/** Takes the space's lock, then says whether one more key fits under `quota`. */
function* roomFor(a: KeyArgs, quota: number): TxSteps<boolean> {
  yield* tx.lock('kv', a[0], a[1], a[2]);
  const counted = yield* tx.get<{ n: number }>(COUNT, a[0], a[1], a[2]);
  return counted!.n < quota;
}
