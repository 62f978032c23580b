// The collection list cache: a page is answered from memory only while no
// record of its collection changed, whoever changed it on this connection.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from 'bun:sqlite';
import { openDatabase } from '../src/db/open.ts';
import { migrate } from '../src/db/migrate.ts';
import { VERSIONED_TTL_MS } from '../src/db/versioned-cache.ts';
import { RecordReadCache, type PageKey } from '../src/runtime/collections/read-cache.ts';
import { SpaceVersions } from '../src/runtime/collections/space-versions.ts';
import type { RecordSpace } from '../src/runtime/collections/store.ts';

let dir: string;
let db: Database;
let clock = 1_000_000;
let cache: RecordReadCache;
const A: RecordSpace = { canvasId: 'canvas-1', collection: 'notes' };
const B: RecordSpace = { canvasId: 'canvas-1', collection: 'other' };
const FIRST: PageKey = { authorId: null, cursor: '', limit: 20 };

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'easel-page-cache-'));
  db = openDatabase(dir);
  migrate(db);
  cache = new RecordReadCache(SpaceVersions.of(db), () => clock);
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

let seq = 0;
const insertAs = (space: RecordSpace, id: string, value = '1') =>
  db
    .query('INSERT INTO collection_records (canvas_id, collection, id, author_id, value, updated_at) VALUES (?, ?, ?, ?, ?, 0)')
    .run(space.canvasId, space.collection, id, 'author', value);
/** A record with a higher id than any before (as the service makes them). */
const insert = (space: RecordSpace, value = '1') => insertAs(space, `r${String(++seq).padStart(6, '0')}`, value);

/** The page through the cache, and whether it was rendered (read from the database) this time. */
async function page(space: RecordSpace, key: PageKey = FIRST): Promise<{ text: string; rendered: boolean }> {
  let rendered = false;
  const text = await cache.page(space, key, async () => {
    rendered = true;
    const rows = db
      .query('SELECT id, value FROM collection_records WHERE canvas_id = ? AND collection = ? AND id > ? ORDER BY id LIMIT ?')
      .all(space.canvasId, space.collection, key.cursor, key.limit + 1);
    return { text: JSON.stringify(rows.slice(0, key.limit)), full: rows.length > key.limit };
  });
  return { text, rendered };
}

describe('record page cache', async () => {
  test('a page is rendered once, then answered from memory until its collection changes', async () => {
    insert(A);
    expect((await page(A)).rendered).toBe(true);
    expect((await page(A)).rendered).toBe(false);
    expect((await page(A, { ...FIRST, limit: 5 })).rendered).toBe(true); // another query, another entry
    expect((await page(A, { ...FIRST, authorId: 'author' })).rendered).toBe(true);
  });

  test('insert, update and delete on the collection, by raw SQL too, make its pages stale; other collections keep theirs', async () => {
    await page(A);
    await page(B);
    for (const write of [
      () => insert(A, '2'),
      () => db.query("UPDATE collection_records SET value = '3' WHERE canvas_id = ? AND collection = ?").run(A.canvasId, A.collection),
      () => db.query('DELETE FROM collection_records WHERE canvas_id = ? AND collection = ?').run(A.canvasId, A.collection),
    ]) {
      const before = (await page(A)).text;
      write();
      const after = await page(A);
      expect(after.rendered).toBe(true);
      expect(after.text).not.toBe(before);
      expect((await page(B)).rendered).toBe(false);
    }
  });

  test('appending (a new highest id) leaves pages that more records follow; the last page, and any lower insert, go stale', async () => {
    const big: RecordSpace = { canvasId: 'canvas-4', collection: 'big' };
    for (let i = 0; i < 5; i++) insert(big);
    const two = { ...FIRST, limit: 2 };
    const all = { ...FIRST, limit: 20 };
    await page(big, two);
    await page(big, all);
    insert(big, '"appended"');
    expect((await page(big, two)).rendered).toBe(false);
    const last = await page(big, all);
    expect(last.rendered).toBe(true);
    expect(last.text).toContain('appended');
    insertAs(big, 'a-first', '"lowest"'); // sorts before every record: the first page changes
    const first = await page(big, two);
    expect(first.rendered).toBe(true);
    expect(first.text).toContain('lowest');
    db.query("UPDATE collection_records SET value = '\"edited\"' WHERE canvas_id = ? AND id = 'a-first'").run(big.canvasId);
    expect((await page(big, two)).text).toContain('edited');
  });

  test('one record is kept across appends, goes stale on an update or delete, and an absent one is never kept', async () => {
    const space: RecordSpace = { canvasId: 'canvas-5', collection: 'records' };
    let loads = 0;
    const read = (id: string) =>
      cache.record(space, id, async () => {
        loads++;
        const row = db
          .query('SELECT id, author_id, value, updated_at FROM collection_records WHERE canvas_id = ? AND collection = ? AND id = ?')
          .get(space.canvasId, space.collection, id) as { id: string; author_id: string; value: string; updated_at: number } | null;
        return row && { id: row.id, authorId: row.author_id, value: row.value, updatedAt: row.updated_at };
      });
    expect(await read('m-1')).toBeNull();
    insertAs(space, 'm-1', '"first"');
    expect((await read('m-1'))?.value).toBe('"first"');
    insert(space); // an append: m-1 is unchanged
    expect((await read('m-1'))?.value).toBe('"first"');
    expect(loads).toBe(2);
    db.query(`UPDATE collection_records SET value = '"second"' WHERE canvas_id = ? AND id = 'm-1'`).run(space.canvasId);
    expect((await read('m-1'))?.value).toBe('"second"');
    db.query(`DELETE FROM collection_records WHERE canvas_id = ? AND id = 'm-1'`).run(space.canvasId);
    expect(await read('m-1')).toBeNull();
  });

  test('a read inside a transaction is not kept (its rows could still be rolled back)', async () => {
    await page(A);
    let insideTx: Promise<{ text: string }> | undefined;
    const rolledBack = db.transaction(() => {
      insert(A, '"uncommitted"');
      // The page's rows are read here, inside the transaction (the read is synchronous on SQLite).
      insideTx = page(A);
      throw new Error('roll back');
    });
    expect(() => rolledBack.immediate()).toThrow('roll back');
    expect((await insideTx!).text).toContain('uncommitted');
    const after = await page(A);
    expect(after.rendered).toBe(true);
    expect(after.text).not.toContain('uncommitted');
  });

  test('entries expire after the versioned TTL (writes by another process are not seen)', async () => {
    await page(A);
    expect((await page(A)).rendered).toBe(false);
    clock += VERSIONED_TTL_MS;
    expect((await page(A)).rendered).toBe(true);
  });

  test('a collection forgotten from the version table cannot vouch for a stale page', async () => {
    const quiet: RecordSpace = { canvasId: 'canvas-2', collection: 'quiet' };
    expect((await page(quiet)).rendered).toBe(true); // cached at the floor version: never written
    insert(quiet);
    // Writes to 10,000 other collections push `quiet` out of the version table.
    db.transaction(() => {
      for (let i = 0; i < 10_000; i++) insert({ canvasId: 'canvas-3', collection: `c${i}` });
    }).immediate();
    const after = await page(quiet);
    expect(after.rendered).toBe(true);
    expect(JSON.parse(after.text)).toHaveLength(1);
  });
});
