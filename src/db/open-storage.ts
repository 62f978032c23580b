import type { Database } from 'bun:sqlite';
import type { Config } from '../config.ts';
import { openDatabase } from './open.ts';
import { migratePostgres } from './postgres-migrate.ts';
import { PostgresSql } from './postgres-sql.ts';
import type { Sql } from './sql.ts';
import { SqliteSql } from './sqlite-sql.ts';

export interface Storage {
  sql: Sql;
  /** The embedded database (SQLite in the data directory); null on Postgres. */
  db: Database | null;
}

/** Thrown when Postgres cannot be reached or migrated: the message names the database without its credentials. */
export class DatabaseUnavailable extends Error {
  constructor(display: string, cause: unknown) {
    super(`cannot use the database ${display}: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'DatabaseUnavailable';
  }
}

/** The one place the engine is chosen: EASEL_DATABASE_URL selects Postgres, else SQLite in the data directory. Both come migrated. */
export async function openStorage(config: Config, onListenError: (err: unknown) => void): Promise<Storage> {
  if (!config.database) {
    const db = openDatabase(config.dataDir);
    return { sql: new SqliteSql(db), db };
  }
  const pg = new PostgresSql(config.database.url, { onListenError });
  try {
    await migratePostgres(pg);
  } catch (err) {
    await pg.close().catch(() => {});
    if (err instanceof Error && err.name === 'NewerSchemaError') throw err;
    throw new DatabaseUnavailable(config.database.display, redacted(err, config.database.url));
  }
  return { sql: pg, db: null };
}

/** A driver's message may quote the URL it was given. */
function redacted(err: unknown, url: string): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split(url).join('(the configured URL)');
}
