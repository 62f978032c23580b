// `easel copy-data`'s record half: every row of an embedded (SQLite)
// instance into an empty Postgres database of the same schema, in one
// transaction, so a failed copy leaves the target as empty as it was.
import type { Database } from 'bun:sqlite';
import { TRIGGER_MAINTAINED_TABLES } from '../db/postgres-migrations.ts';
import type { PostgresSql } from '../db/postgres-sql.ts';
import type { SqlValue } from '../db/sql.ts';

/** Runtime state of the running nodes, not instance data. */
const NOT_COPIED = new Set(['schema_migrations', 'nodes', ...TRIGGER_MAINTAINED_TABLES]);
/** Postgres takes at most 65 535 parameters per statement. */
const MAX_PARAMS = 60_000;

export class TargetNotEmpty extends Error {
  constructor(table: string) {
    super(`the target database already holds data (table ${table} has rows): copy into a new, empty database`);
    this.name = 'TargetNotEmpty';
  }
}

export interface CopiedTable {
  table: string;
  rows: number;
}

/** The tables to copy, each after the tables its foreign keys point at. */
export function copyOrder(db: Database): string[] {
  const tables = db
    .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all()
    .map((t) => t.name)
    .filter((t) => !NOT_COPIED.has(t));
  const parents = new Map(
    tables.map((t) => [
      t,
      db
        .query<{ table: string }, []>(`PRAGMA foreign_key_list("${t}")`)
        .all()
        .map((fk) => fk.table),
    ]),
  );
  const ordered: string[] = [];
  const placed = new Set<string>();
  const place = (t: string, path: Set<string>) => {
    if (placed.has(t) || path.has(t)) return;
    path.add(t);
    for (const parent of parents.get(t) ?? []) if (parent !== t && parents.has(parent)) place(parent, path);
    placed.add(t);
    ordered.push(t);
  };
  for (const t of tables) place(t, new Set());
  return ordered;
}

/** Copies every row; refuses (TargetNotEmpty) a target that holds any. Answers the row count per table. */
export async function copyRecords(source: Database, target: PostgresSql): Promise<CopiedTable[]> {
  const tables = copyOrder(source);
  return target.native(async (run) => {
    for (const table of tables) {
      const [row] = await run(`SELECT EXISTS (SELECT 1 FROM "${table}") AS taken`);
      if (row!.taken) throw new TargetNotEmpty(table);
    }
    const copied: CopiedTable[] = [];
    for (const table of tables) {
      const columns = source
        .query<{ name: string }, []>(`PRAGMA table_info("${table}")`)
        .all()
        .map((c) => c.name);
      const perBatch = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
      const insert = (batch: Array<Record<string, SqlValue>>) => {
        const params: SqlValue[] = [];
        const tuples = batch.map((r) => `(${columns.map((c) => `$${params.push(r[c] ?? null)}`).join(', ')})`);
        return run(`INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES ${tuples.join(', ')}`, params);
      };
      // Streamed: a table never has to fit in memory, only one batch of it.
      let rows = 0;
      let batch: Array<Record<string, SqlValue>> = [];
      for (const r of source.query<Record<string, SqlValue>, []>(`SELECT * FROM "${table}"`).iterate()) {
        batch.push(r);
        if (batch.length < perBatch) continue;
        await insert(batch);
        rows += batch.length;
        batch = [];
      }
      if (batch.length > 0) await insert(batch);
      copied.push({ table, rows: rows + batch.length });
    }
    // Identity columns (audit ids) continue after the copied ones.
    const identities = await run(
      "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() AND is_identity = 'YES'",
    );
    for (const { table_name: t, column_name: c } of identities as Array<{ table_name: string; column_name: string }>) {
      await run(
        `SELECT setval(pg_get_serial_sequence('"${t}"', '${c}'), (SELECT max("${c}") FROM "${t}")) WHERE EXISTS (SELECT 1 FROM "${t}")`,
      );
    }
    return copied;
  });
}
