import type { Database } from 'bun:sqlite';
import { ChangeCount, WATCHED_TABLES } from './change-signal.ts';

const CHANGED_FN = 'easel_data_changed';

const versions = new WeakMap<Database, DataVersion>();

/**
 * The embedded ChangeSignal: a number that moves whenever a row of the watched tables is inserted,
 * updated or deleted on this connection, whoever writes it: services, the
 * admin API, a test's raw SQL. TEMP triggers (connection-local, never in the
 * database file) call a JavaScript function that counts, so reading the
 * number costs nothing and no write path can forget to announce itself.
 * Caches tag each entry with the number and trust it only while it is
 * unchanged.
 *
 * Rows read inside a transaction may still be rolled back, and a rollback
 * does not move the number: such reads must not be stored (`storable`).
 *
 * Writes by another process (a sqlite3 shell) are not seen: callers also
 * bound how long an entry lives.
 */
export class DataVersion extends ChangeCount {
  private constructor(private readonly db: Database) {
    super();
    db.function(CHANGED_FN, () => {
      this.move();
      return null;
    });
    for (const table of WATCHED_TABLES) {
      for (const op of ['INSERT', 'UPDATE', 'DELETE']) {
        db.exec(
          `CREATE TEMP TRIGGER IF NOT EXISTS easel_dv_${table}_${op.toLowerCase()} AFTER ${op} ON main.${table} BEGIN SELECT ${CHANGED_FN}(); END`,
        );
      }
    }
  }

  /** One per connection: the triggers are made once. */
  static of(db: Database): DataVersion {
    let version = versions.get(db);
    if (!version) {
      version = new DataVersion(db);
      versions.set(db, version);
    }
    return version;
  }

  /** May rows read now be cached? Not inside a transaction. */
  storable(): boolean {
    return !this.db.inTransaction;
  }
}
