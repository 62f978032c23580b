import type { Database } from 'bun:sqlite';
import { MIGRATIONS } from './migrations/index.ts';

/** The newest schema this build knows: what `easel version` prints, and the most a data directory may have. */
export const SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;

/** A data directory migrated by a newer Easel: opening it here could corrupt what this build does not know. */
export class NewerSchemaError extends Error {
  constructor(
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `the data directory was written by a newer Easel (schema ${found}; this build knows up to ${known}): run that release or a later one, or restore a backup made before the upgrade`,
    );
    this.name = 'NewerSchemaError';
  }
}

/**
 * Applies every migration not yet recorded in `schema_migrations`, each in its
 * own IMMEDIATE transaction with its record, so a crash mid-way leaves either
 * the whole step or none of it.
 */
export function migrate(db: Database): number[] {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
  const applied = new Set(
    db
      .query<{ version: number }, []>('SELECT version FROM schema_migrations')
      .all()
      .map((r) => r.version),
  );
  const newest = Math.max(0, ...applied);
  if (newest > SCHEMA_VERSION) throw new NewerSchemaError(newest, SCHEMA_VERSION);
  const ran: number[] = [];
  for (const m of MIGRATIONS) {
    if (applied.has(m.version)) continue;
    db.transaction(() => {
      // A migration may be Postgres's alone (its SQLite text empty): bun:sqlite refuses a blank string.
      if (m.sql.trim() !== '') db.exec(m.sql);
      db.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, Date.now());
    }).immediate();
    ran.push(m.version);
  }
  return ran;
}
