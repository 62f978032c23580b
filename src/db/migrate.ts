import type { Database } from 'bun:sqlite';
import { MIGRATIONS } from './migrations/index.ts';

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
  const ran: number[] = [];
  for (const m of MIGRATIONS) {
    if (applied.has(m.version)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, Date.now());
    }).immediate();
    ran.push(m.version);
  }
  return ran;
}
