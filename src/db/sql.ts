/**
 * The storage port every store is written against: the same SQL text and the
 * same transaction bodies run on the embedded SQLite database and on Postgres.
 *
 * SQL is written once, in the subset both engines share, with numbered
 * placeholders (`?1`, `?2`: SQLite's own; the Postgres adapter turns them into
 * `$1`, `$2`). Integers come back as JavaScript numbers on both. A column
 * alias in camelCase is double-quoted (`AS "createdAt"`): Postgres folds
 * unquoted names to lower case. Each store's tests run on both engines.
 *
 * Transactions are generator functions: every statement is a `yield*`, and the
 * adapter runs it and hands the result back. On SQLite the adapter drives the
 * body synchronously inside BEGIN IMMEDIATE, so nothing else runs on the
 * connection until it commits (an `await` there would let other requests'
 * statements join the transaction). On Postgres it drives the same body
 * through a real transaction on one pooled connection. A body does not catch
 * a failed statement and go on (Postgres refuses every later statement of the
 * transaction): conflicts are avoided with locks and ON CONFLICT instead.
 */

import type { ChangeSignal } from './change-signal.ts';

export type SqlValue = string | number | null | Uint8Array;
export type Engine = 'sqlite' | 'postgres';

/** One thing a transaction body asks of the adapter. */
export type Step =
  | { kind: 'all' | 'get' | 'run'; text: string; params: readonly SqlValue[] }
  /** Serializes the rest of the transaction with every other holder of the same key. */
  | { kind: 'lock'; parts: readonly string[] };

/** What a transaction body (or a helper it `yield*`s) is: steps yielded, a result returned. */
export type TxSteps<T> = Generator<Step, T, unknown>;
export type TxBody<T> = () => TxSteps<T>;

export interface Sql {
  readonly engine: Engine;
  /** Moves on every write to the tables per-node caches hold facts from, by any writer (any node on Postgres). */
  readonly changes: ChangeSignal;
  all<R>(text: string, ...params: SqlValue[]): Promise<R[]>;
  get<R>(text: string, ...params: SqlValue[]): Promise<R | undefined>;
  /** Runs a write; resolves with the number of rows it changed. */
  run(text: string, ...params: SqlValue[]): Promise<number>;
  /**
   * Runs `body` as one write transaction: all of it commits, or (when it
   * throws) none of it. Read-modify-write bodies take a `lock` on what they
   * read before reading it: a whole-database write lock on SQLite already, a
   * transaction-scoped advisory lock on Postgres.
   */
  write<T>(body: TxBody<T>): Promise<T>;
  /**
   * Runs a body's statements one by one, outside any transaction: the same
   * row helpers serve reads that need no atomicity. A `lock` step is refused.
   */
  autocommit<T>(body: TxBody<T>): Promise<T>;
  close(): Promise<void>;
}

/** The statements a transaction body yields; `const rows = yield* tx.all<Row>(…)`. */
export const tx = {
  *all<R>(text: string, ...params: SqlValue[]): TxSteps<R[]> {
    return (yield { kind: 'all', text, params }) as R[];
  },
  *get<R>(text: string, ...params: SqlValue[]): TxSteps<R | undefined> {
    return (yield { kind: 'get', text, params }) as R | undefined;
  },
  /** Yields the number of rows changed. */
  *run(text: string, ...params: SqlValue[]): TxSteps<number> {
    return (yield { kind: 'run', text, params }) as number;
  },
  *lock(...parts: string[]): TxSteps<void> {
    // The parts travel as they are: only an adapter that takes the lock (Postgres) makes a key of them.
    yield { kind: 'lock', parts };
  },
};

/** For `autocommit`: a lock only means something inside a transaction. */
export function refuseLock(step: Step): void {
  if (step.kind === 'lock') throw new Error('a lock step needs a write transaction');
}

/** Drives a transaction body, awaiting each step's answer (the Postgres adapter). */
export async function driveAsync<T>(body: TxBody<T>, answer: (step: Step) => Promise<unknown>): Promise<T> {
  const it = body();
  let next = it.next();
  while (!next.done) {
    let result: unknown;
    try {
      result = await answer(next.value);
    } catch (err) {
      next = it.throw(err);
      continue;
    }
    next = it.next(result);
  }
  return next.value;
}

/** Drives a transaction body with answers given at once, all in the caller's turn (the SQLite adapter). */
export function driveSync<T>(body: TxBody<T>, answer: (step: Step) => unknown): T {
  const it = body();
  let next = it.next();
  while (!next.done) {
    let result: unknown;
    try {
      result = answer(next.value);
    } catch (err) {
      next = it.throw(err);
      continue;
    }
    next = it.next(result);
  }
  return next.value;
}
