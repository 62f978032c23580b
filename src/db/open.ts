import { Database } from 'bun:sqlite';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { migrate } from './migrate.ts';

/** Opens (creating if needed) `<dataDir>/easel.db` with the pragmas BUN-NOTES calls for, then migrates. */
export function openDatabase(dataDir: string): Database {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(join(dataDir, 'easel.db'), { create: true, strict: true });
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('PRAGMA busy_timeout = 5000');
  db.exec('PRAGMA foreign_keys = ON');
  defineCaseFolding(db);
  migrate(db);
  return db;
}

/**
 * easel_fold(text), which every search folds both sides with (src/db/like.ts):
 * SQLite's own lower() folds A–Z only, so "équipe" missed "Équipe". Here it is
 * JavaScript's toLowerCase; Postgres has it as a function (migration 030).
 */
function defineCaseFolding(db: Database): void {
  db.function('easel_fold', { deterministic: true }, (value: string | null) => (typeof value === 'string' ? value.toLowerCase() : value));
}
