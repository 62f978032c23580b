// The storage port (src/db/sql.ts) on both adapters: the same SQL and the
// same transaction bodies behave alike on SQLite and on a real Postgres.
import { Database } from 'bun:sqlite';
import { afterAll, describe, expect, test } from 'bun:test';
import { openDatabase } from '../src/db/open.ts';
import { migratePostgres } from '../src/db/postgres-migrate.ts';
import { POSTGRES_MIGRATIONS } from '../src/db/postgres-migrations.ts';
import { PostgresSql, postgresText } from '../src/db/postgres-sql.ts';
import { WATCHED_TABLES } from '../src/db/change-signal.ts';
import { tx, type Sql } from '../src/db/sql.ts';
import { SqliteSql } from '../src/db/sqlite-sql.ts';
import { NewerSchemaError, SCHEMA_VERSION } from '../src/db/migrate.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase } from './support/postgres-server.ts';

const open: Sql[] = [];
afterAll(async () => {
  for (const s of open) await s.close();
});

const engines: Array<[string, () => Promise<Sql>]> = [
  ['sqlite', async () => new SqliteSql(new Database(':memory:', { strict: true }))],
  ['postgres', async () => new PostgresSql(await createTestDatabase())],
];

const TABLE = 'CREATE TABLE t (k TEXT PRIMARY KEY, n BIGINT NOT NULL, at BIGINT, b BYTEA)';

describe.each(engines)('port on %s', (engine, make) => {
  async function withTable(): Promise<Sql> {
    const sql = await make();
    open.push(sql);
    await sql.run(engine === 'sqlite' ? TABLE.replace('BYTEA', 'BLOB') : TABLE);
    return sql;
  }

  test('reads and writes with numbered placeholders; big integers, nulls and bytes come back as written', async () => {
    const sql = await withTable();
    expect(await sql.run('INSERT INTO t (k, n, at, b) VALUES (?1, ?2, ?3, ?4)', 'a', 1, 1_764_000_000_123, new Uint8Array([0, 255]))).toBe(
      1,
    );
    expect(await sql.run('INSERT INTO t (k, n, at, b) VALUES (?1, ?2, ?3, ?4)', "b'?", 2, null, null)).toBe(1);
    const rows = await sql.all<{ k: string; n: number; at: number | null; b: Uint8Array | null }>('SELECT k, n, at, b FROM t ORDER BY k');
    expect(rows.map((r) => [r.k, r.n, r.at])).toEqual([
      ['a', 1, 1_764_000_000_123],
      ["b'?", 2, null],
    ]);
    expect([...rows[0]!.b!]).toEqual([0, 255]);
    expect(await sql.get<{ c: number; s: number }>('SELECT COUNT(*) AS c, SUM(at) AS s FROM t')).toEqual({ c: 2, s: 1_764_000_000_123 });
    expect(await sql.get('SELECT k FROM t WHERE k = ?1', 'none')).toBeUndefined();
    expect(await sql.run('UPDATE t SET n = n + 1 WHERE k IN (?1, ?2)', 'a', "b'?")).toBe(2);
  });

  test('a transaction commits whole, or (when its body throws) leaves nothing', async () => {
    const sql = await withTable();
    const result = await sql.write(function* () {
      yield* tx.run('INSERT INTO t (k, n) VALUES (?1, ?2)', 'x', 1);
      const row = yield* tx.get<{ n: number }>('SELECT n FROM t WHERE k = ?1', 'x');
      yield* tx.run('UPDATE t SET n = ?2 WHERE k = ?1', 'x', row!.n + 41);
      return row!.n + 41;
    });
    expect(result).toBe(42);
    await expect(
      sql.write(function* () {
        yield* tx.run('INSERT INTO t (k, n) VALUES (?1, ?2)', 'y', 1);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    // A failing statement rolls back the ones before it too.
    await expect(
      sql.write(function* () {
        yield* tx.run('INSERT INTO t (k, n) VALUES (?1, ?2)', 'z', 1);
        yield* tx.run('INSERT INTO t (k, n) VALUES (?1, ?2)', 'x', 1);
      }),
    ).rejects.toThrow();
    expect((await sql.all<{ k: string }>('SELECT k FROM t ORDER BY k')).map((r) => r.k)).toEqual(['x']);
  });

  test('50 concurrent read-modify-write transactions under one lock lose no update', async () => {
    const sql = await withTable();
    await sql.run('INSERT INTO t (k, n) VALUES (?1, 0)', 'c');
    await Promise.all(
      Array.from({ length: 50 }, () =>
        sql.write(function* () {
          yield* tx.lock('t', 'c');
          const row = yield* tx.get<{ n: number }>('SELECT n FROM t WHERE k = ?1', 'c');
          yield* tx.run('UPDATE t SET n = ?2 WHERE k = ?1', 'c', row!.n + 1);
        }),
      ),
    );
    expect(await sql.get('SELECT n FROM t WHERE k = ?1', 'c')).toEqual({ n: 50 });
  });

  test('text compares bytewise, as keys and prefixes need', async () => {
    const sql = await make();
    open.push(sql);
    if (engine === 'postgres') {
      await (sql as PostgresSql).native((run) => run(POSTGRES_MIGRATIONS[0]!.sql + POSTGRES_MIGRATIONS[3]!.sql));
    } else {
      await sql.run(
        'CREATE TABLE kv (canvas_id TEXT, scope TEXT, owner_id TEXT, key TEXT, value TEXT, updated_at INTEGER, PRIMARY KEY (canvas_id, scope, owner_id, key))',
      );
    }
    for (const key of ['b', 'B', 'a', 'é', 'Z', '_'])
      await sql.run("INSERT INTO kv (canvas_id, scope, owner_id, key, value, updated_at) VALUES ('c', 'shared', '', ?1, '1', 0)", key);
    const keys = (await sql.all<{ key: string }>("SELECT key FROM kv WHERE canvas_id = 'c' ORDER BY key")).map((r) => r.key);
    expect(keys).toEqual(['B', 'Z', '_', 'a', 'b', 'é']);
  });
});

describe('the SQLite adapter', () => {
  test('refuses every statement once its database is closed, even one it ran before', async () => {
    const db = new Database(':memory:', { strict: true });
    const sql = new SqliteSql(db);
    expect(await sql.get('SELECT 1 AS one')).toEqual({ one: 1 });
    db.close();
    await expect(sql.get('SELECT 1 AS one')).rejects.toThrow();
  });
});

describe('postgres placeholders', () => {
  test('?n becomes $n outside quotes; a bare ? is refused', () => {
    expect(postgresText('SELECT ?1, \'?2\', "?3" FROM t WHERE a = ?12')).toBe('SELECT $1, \'?2\', "?3" FROM t WHERE a = $12');
    expect(() => postgresText('SELECT ? FROM t')).toThrow('unnumbered placeholder');
  });
});

describe('postgres migrations', () => {
  test('give every table the columns, keys and nullability the SQLite migrations give it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'easel-port-'));
    const lite = openDatabase(dir);
    const pg = new PostgresSql(await createTestDatabase());
    open.push(pg);
    try {
      expect(await migratePostgres(pg)).toEqual(POSTGRES_MIGRATIONS.map((m) => m.version));
      const liteTables = lite
        .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .all()
        .map((r) => r.name);
      const pgTables = (
        await pg.all<{ name: string }>(
          "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
        )
      ).map((r) => r.name);
      expect(pgTables).toEqual(liteTables);
      for (const table of liteTables) {
        const liteCols = lite
          .query<{ name: string; notnull: number; pk: number }, []>(`PRAGMA table_info(${table})`)
          .all()
          .map((c) => `${c.name}${c.notnull || c.pk ? ' not null' : ''}`)
          .sort();
        const pgCols = (
          await pg.all<{ name: string; nullable: string }>(
            'SELECT column_name AS name, is_nullable AS nullable FROM information_schema.columns WHERE table_name = ?1',
            table,
          )
        )
          .map((c) => `${c.name}${c.nullable === 'NO' ? ' not null' : ''}`)
          .sort();
        expect({ table, cols: pgCols }).toEqual({ table, cols: liteCols });
      }
      // Counting triggers exist on both: a record inserted and deleted leaves its counts at 0.
      await pg.run(
        "INSERT INTO collection_records (canvas_id, collection, id, author_id, value, updated_at) VALUES ('c', 'k', '1', 'u', '{}', 0)",
      );
      expect(await pg.all('SELECT author_id, n FROM collection_record_counts ORDER BY author_id')).toEqual([
        { author_id: '', n: 1 },
        { author_id: 'u', n: 1 },
      ]);
      await pg.run("DELETE FROM collection_records WHERE id = '1'");
      expect(await pg.all('SELECT n FROM collection_record_counts')).toEqual([{ n: 0 }, { n: 0 }]);
      // Email is unique whatever its case, as SQLite's NOCASE makes it.
      await pg.run("INSERT INTO users (id, email, name, created_at) VALUES ('u1', 'Ada@example.com', 'Ada', 0)");
      await expect(pg.run("INSERT INTO users (id, email, name, created_at) VALUES ('u2', 'ada@EXAMPLE.com', 'Ada', 0)")).rejects.toThrow();
    } finally {
      lite.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('nodes migrating at once apply each migration once; a newer schema is refused', async () => {
    const url = await createTestDatabase();
    const nodes = [new PostgresSql(url), new PostgresSql(url), new PostgresSql(url)];
    open.push(...nodes);
    const ran = await Promise.all(nodes.map((n) => migratePostgres(n)));
    expect(ran.flat().sort((a, b) => a - b)).toEqual(POSTGRES_MIGRATIONS.map((m) => m.version));
    expect(await migratePostgres(nodes[0]!)).toEqual([]);
    await nodes[0]!.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?1, 'from the future', 0)", SCHEMA_VERSION + 1);
    await expect(migratePostgres(nodes[1]!)).rejects.toBeInstanceOf(NewerSchemaError);
  });
});

describe('the change signal', () => {
  const insertUser = (sql: Sql, id: string) =>
    sql.run("INSERT INTO users (id, email, name, created_at) VALUES (?1, ?2, 'x', 0)", id, `${id}@signal.test`);

  test('on SQLite moves with every write to a watched table, and not with others', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'easel-port-'));
    const sql = new SqliteSql(openDatabase(dir));
    open.push(sql);
    const before = sql.changes.current();
    await sql.run("INSERT INTO kv (canvas_id, scope, owner_id, key, value, updated_at) VALUES ('c', 'shared', '', 'k', '1', 0)");
    expect(sql.changes.current()).toBe(before);
    await insertUser(sql, 'u1');
    expect(sql.changes.current()).toBeGreaterThan(before);
    rmSync(dir, { recursive: true, force: true });
  });

  test('on Postgres reaches every node when a write commits, not when it rolls back, and not for other tables', async () => {
    const url = await createTestDatabase();
    const a = new PostgresSql(url);
    const b = new PostgresSql(url);
    open.push(a, b);
    await migratePostgres(a);
    expect(b.changes.storable()).toBe(false); // nothing is cached until the LISTEN is acknowledged
    await b.changes.next();
    expect(b.changes.storable()).toBe(true);

    // Notifications arrive in commit order: once the second users write is heard, anything the rollback or the
    // kv write had sent would have been heard before it.
    const before = b.changes.current();
    await expect(
      a.write(function* () {
        yield* tx.run("INSERT INTO users (id, email, name, created_at) VALUES ('gone', 'gone@signal.test', 'x', 0)");
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await a.run("INSERT INTO kv (canvas_id, scope, owner_id, key, value, updated_at) VALUES ('c', 'shared', '', 'k', '1', 0)");
    await a.run("INSERT INTO users (id, email, name, created_at) VALUES ('one', 'one@signal.test', 'x', 0)");
    await a.run("UPDATE users SET name = 'y' WHERE id = 'one'");
    while (b.changes.current() < before + 2) await b.changes.next();
    expect(b.changes.current()).toBe(before + 2);
  });

  test('every watched table has its trigger on each engine (in the migration that makes the table)', async () => {
    const url = await createTestDatabase();
    const pg = new PostgresSql(url);
    open.push(pg);
    await migratePostgres(pg);
    const triggered = await pg.all<{ table: string }>(
      'SELECT DISTINCT event_object_table AS "table" FROM information_schema.triggers WHERE action_statement LIKE \'%easel_changed%\'',
    );
    expect(triggered.map((t) => t.table).sort()).toEqual([...WATCHED_TABLES].sort());

    const dir = mkdtempSync(join(tmpdir(), 'easel-port-'));
    const db = openDatabase(dir);
    const lite = new SqliteSql(db);
    open.push(lite);
    lite.changes.current();
    const temp = db.query<{ tbl_name: string }, []>("SELECT DISTINCT tbl_name FROM sqlite_temp_master WHERE type = 'trigger'").all();
    expect(
      temp
        .map((t) => t.tbl_name)
        .filter((t) => (WATCHED_TABLES as readonly string[]).includes(t))
        .sort(),
    ).toEqual([...WATCHED_TABLES].sort());
    rmSync(dir, { recursive: true, force: true });
  });
});
