// Both storage engines, each a fresh database migrated to this build's
// schema, for store tests that run the same table on SQLite and Postgres.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/db/open.ts';
import { migratePostgres } from '../../src/db/postgres-migrate.ts';
import { PostgresSql } from '../../src/db/postgres-sql.ts';
import type { Sql } from '../../src/db/sql.ts';
import { SqliteSql } from '../../src/db/sqlite-sql.ts';
import { createTestDatabase } from './postgres-server.ts';

export interface TestEngine {
  sql: Sql;
  /** Postgres: another node's connection to the same database (closed with the engine). SQLite has no other node. */
  peer?: () => Promise<Sql>;
  close(): Promise<void>;
}

export const ENGINES: Array<[string, () => Promise<TestEngine>]> = [
  [
    'sqlite',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'easel-store-'));
      const sql = new SqliteSql(openDatabase(dir));
      return {
        sql,
        async close() {
          await sql.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  ],
  [
    'postgres',
    async () => {
      const url = await createTestDatabase();
      const sql = new PostgresSql(url);
      await migratePostgres(sql);
      const peers: Sql[] = [];
      return {
        sql,
        async peer() {
          const other = new PostgresSql(url);
          peers.push(other);
          return other;
        },
        async close() {
          for (const other of peers) await other.close();
          await sql.close();
        },
      };
    },
  ],
];
