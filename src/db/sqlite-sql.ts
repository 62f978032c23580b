import type { Database, Statement } from 'bun:sqlite';
import { DataVersion } from './data-version.ts';
import { driveSync, refuseLock, type Sql, type SqlValue, type Step, type TxBody } from './sql.ts';

/**
 * The embedded adapter: bun:sqlite, one connection. Statements run at once
 * (the promises it returns are already settled), and a transaction body runs
 * whole inside one synchronous BEGIN IMMEDIATE, so nothing else on the
 * connection can run between its read and its write.
 */
export class SqliteSql implements Sql {
  readonly engine = 'sqlite' as const;

  private readonly immediate: (body: TxBody<unknown>) => unknown;
  private version: DataVersion | null = null;

  constructor(private readonly db: Database) {
    const inTransaction = db.transaction((body: TxBody<unknown>) => driveSync(body, (step) => this.answer(step)));
    this.immediate = (body) => inTransaction.immediate(body);
  }

  /** Made on first use: its triggers need the migrated tables. */
  get changes(): DataVersion {
    this.version ??= DataVersion.of(this.db);
    return this.version;
  }

  all<R>(text: string, ...params: SqlValue[]): Promise<R[]> {
    return settle(() => this.allNow<R>(text, params));
  }

  get<R>(text: string, ...params: SqlValue[]): Promise<R | undefined> {
    return settle(() => this.getNow<R>(text, params));
  }

  run(text: string, ...params: SqlValue[]): Promise<number> {
    return settle(() => this.runNow(text, params));
  }

  write<T>(body: TxBody<T>): Promise<T> {
    return settle(() => this.immediate(body) as T);
  }

  autocommit<T>(body: TxBody<T>): Promise<T> {
    return settle(() =>
      driveSync(body, (step) => {
        refuseLock(step);
        return this.answer(step);
      }),
    );
  }

  async close(): Promise<void> {
    // Folds the WAL back into the database so the data directory is one
    // self-contained file while the server is down (backups, copies).
    this.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    this.db.close();
  }

  private answer(step: Step): unknown {
    switch (step.kind) {
      case 'all':
        return this.allNow(step.text, step.params);
      case 'get':
        return this.getNow(step.text, step.params);
      case 'run':
        return this.runNow(step.text, step.params);
      case 'lock':
        // BEGIN IMMEDIATE already holds the database's one write lock.
        return undefined;
    }
  }

  private allNow<R>(text: string, params: readonly SqlValue[]): R[] {
    return this.statement(text).all(...params) as R[];
  }

  private getNow<R>(text: string, params: readonly SqlValue[]): R | undefined {
    return (this.statement(text).get(...params) as R | null) ?? undefined;
  }

  private runNow(text: string, params: readonly SqlValue[]): number {
    return this.statement(text).run(...params).changes;
  }

  /**
   * bun:sqlite's own statement cache: closing the database finalizes its
   * statements, so a closed database refuses every later call instead of
   * running on a half-closed connection (a cache of our own would not).
   */
  private statement(text: string): Statement<unknown, SqlValue[]> {
    return this.db.query<unknown, SqlValue[]>(text);
  }
}

function settle<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err);
  }
}
