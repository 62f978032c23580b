// Collection records and runtime files on both engines: quotas and counts
// that hold when requests race (Postgres runs them truly at once, on a pool).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { ownerStorageBytes } from '../src/canvases/quotas.ts';
import { RecordStore, type RecordSpace, type StoredRecord } from '../src/runtime/collections/store.ts';
import { FileStore, type StoredFile } from '../src/runtime/files/store.ts';
import { ENGINES, type TestEngine } from './support/engines.ts';

describe.each(ENGINES)('record and file stores on %s', (_name, make) => {
  let engine: TestEngine;
  let records: RecordStore;
  let files: FileStore;
  let n = 0;
  const space = (): RecordSpace => ({ canvasId: `c${++n}`, collection: 'notes' });
  const record = (id: string, authorId = 'a', value = '0'): StoredRecord => ({ id, authorId, value, updatedAt: 1 });
  const file = (canvasId: string, id: string, size: number, extra: Partial<StoredFile> = {}): StoredFile => ({
    id,
    canvasId,
    name: `${id}.txt`,
    size,
    mime: 'text/plain',
    hash: `h-${id}`,
    scope: 'shared',
    uploadedBy: 'u',
    createdAt: 1,
    binding: null,
    ...extra,
  });
  beforeAll(async () => {
    engine = await make();
    records = new RecordStore(engine.sql);
    files = new FileStore(engine.sql);
  });
  afterAll(() => engine.close());

  test('30 records created at once under a canvas quota of 10 and an author quota of 4: the quotas hold', async () => {
    const s = space();
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        records.insert(s, record(`r${String(i).padStart(2, '0')}`, `a${i % 3}`), { perCanvas: 10, perAuthor: 4 }),
      ),
    );
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(10);
    expect(await records.count(s)).toBe(10);
    const page = await records.page(s, { authorId: null, cursor: '', limit: 100 });
    const perAuthor = Object.values(Object.groupBy(page, (r) => r.authorId)).map((rs) => rs!.length);
    expect(Math.max(...perAuthor)).toBeLessThanOrEqual(4);
    // An author's own page, in id order, after a cursor.
    const mine = await records.page(s, { authorId: page[0]!.authorId, cursor: '', limit: 100 });
    expect(mine.map((r) => r.id)).toEqual(page.filter((r) => r.authorId === page[0]!.authorId).map((r) => r.id));
    // Counts follow deletes: room again.
    expect(await records.deleteAll(s, null)).toHaveLength(10);
    expect(await records.insert(s, record('again'), { perCanvas: 1, perAuthor: 1 })).toBe('ok');
  });

  test('50 concurrent increments count 50; a replacement lands between increments; a deleted record is missing', async () => {
    const s = space();
    await records.insert(s, record('n'), { perCanvas: 10, perAuthor: 10 });
    await Promise.all(Array.from({ length: 50 }, () => records.increment(s, 'n', 1, 2)));
    expect((await records.get(s, 'n'))?.value).toBe('50');
    await Promise.all([
      ...Array.from({ length: 10 }, () => records.increment(s, 'n', 1, 3)),
      records.replace(s, 'n', '1000', 3),
      ...Array.from({ length: 10 }, () => records.increment(s, 'n', 1, 3)),
    ]);
    const value = Number((await records.get(s, 'n'))?.value);
    expect(value).toBeGreaterThanOrEqual(1000);
    expect(value).toBeLessThanOrEqual(1020);
    const raced = await Promise.all([records.increment(s, 'n', 1, 4), records.delete(s, 'n'), records.increment(s, 'n', 1, 4)]);
    expect(raced[1]).toBe(true);
    expect(await records.increment(s, 'n', 1, 5)).toBe('missing');
    expect(await records.replace(s, 'n', '1', 5)).toBeNull();
  });

  test('20 uploads of 100 bytes at once into a canvas cap of 1,000: exactly 10 land', async () => {
    const canvasId = `files-${++n}`;
    const landed = await Promise.all(Array.from({ length: 20 }, (_, i) => files.insert(file(canvasId, `f${i}`, 100), 1000)));
    expect(landed.filter(Boolean)).toHaveLength(10);
    expect(await files.bytesUsed(canvasId)).toBe(1000);
  });

  test('files list by viewer, rename, delete; attachments leave with their records and name their hashes', async () => {
    const canvasId = `files-${++n}`;
    await files.insert(file(canvasId, 'shared', 1), 1e9);
    await files.insert(file(canvasId, 'mine', 1, { scope: 'submission', uploadedBy: 'me' }), 1e9);
    await files.insert(file(canvasId, 'theirs', 1, { scope: 'submission', uploadedBy: 'them' }), 1e9);
    await files.insert(file(canvasId, 'att1', 1, { binding: { kind: 'record', collection: 'notes', recordId: 'r1' } }), 1e9);
    await files.insert(file(canvasId, 'att2', 1, { binding: { kind: 'record', collection: 'notes', recordId: 'r2' } }), 1e9);
    expect((await files.list(canvasId, 'me')).map((f) => f.id).sort()).toEqual(['att1', 'att2', 'mine', 'shared']);
    await files.rename(canvasId, 'mine', 'new.txt');
    expect((await files.byId(canvasId, 'mine'))?.name).toBe('new.txt');
    expect(await files.byId('elsewhere', 'mine')).toBeNull();
    expect((await files.byId(canvasId, 'att1'))?.binding).toEqual({ kind: 'record', collection: 'notes', recordId: 'r1' });
    expect((await files.deleteAttachments(canvasId, 'notes', ['r1', 'r2', 'r3'])).sort()).toEqual(['h-att1', 'h-att2']);
    await files.delete(canvasId, 'theirs');
    expect((await files.list(canvasId, null)).map((f) => f.id).sort()).toEqual(['mine', 'shared']);
  });

  test("an owner's storage counts ready versions and files of live canvases only", async () => {
    const sql = engine.sql;
    await sql.run("INSERT INTO users (id, email, name, created_at) VALUES ('owner', 'owner@example.com', 'O', 0)");
    for (const [id, deleted] of [
      ['live', null],
      ['gone', 1],
    ] as const) {
      await sql.run(
        "INSERT INTO canvases (id, slug, title, owner_id, key_hash, publication_token, created_at, updated_at, deleted_at) VALUES (?1, ?1, 't', 'owner', ?1, 't', 0, 0, ?2)",
        id,
        deleted,
      );
      await sql.run(
        "INSERT INTO versions (id, canvas_id, number, source, status, created_by, created_at, file_count, total_bytes) VALUES (?1, ?2, 1, 'api', 'ready', 'owner', 0, 1, 1000)",
        `v-${id}`,
        id,
      );
      await sql.run(
        "INSERT INTO versions (id, canvas_id, number, source, status, created_by, created_at, file_count, total_bytes) VALUES (?1, ?2, 2, 'api', 'pending', 'owner', 0, 1, 50)",
        `p-${id}`,
        id,
      );
      await files.insert(file(id, `f-${id}`, 7), 1e9);
    }
    expect(await ownerStorageBytes(sql, 'owner')).toBe(1007);
  });
});
