import type { Database } from 'bun:sqlite';

/**
 * Runs `fn` in a BEGIN IMMEDIATE transaction (for read-modify-write). `fn` must
 * be synchronous: an await inside would commit early (BUN-NOTES).
 */
export function immediate<T>(db: Database, fn: () => T): T {
  return db.transaction(fn).immediate();
}
