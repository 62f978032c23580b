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
  foldCaseAsPostgresDoes(db);
  migrate(db);
  return db;
}

/**
 * SQLite's own lower() folds A–Z only, so a search for "équipe" missed a
 * canvas titled "Équipe" on the embedded engine and found it on Postgres
 * (whose lower() folds every letter in a UTF-8 database). Every search
 * compares `lower(column) LIKE pattern` with the pattern lowercased in
 * JavaScript (src/db/like.ts): this lower() is that same toLowerCase, so
 * both sides fold alike. No SQLite index is built on lower() (emails use
 * NOCASE), so nothing stored depends on the built-in's answers.
 */
function foldCaseAsPostgresDoes(db: Database): void {
  // A number is text to lower(), as to the built-in; a NULL or a blob comes back as it is.
  db.function('lower', { deterministic: true }, (value: string | number | bigint | Uint8Array | null) =>
    typeof value === 'string' ? value.toLowerCase() : typeof value === 'number' || typeof value === 'bigint' ? String(value) : value,
  );
}
