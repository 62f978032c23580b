// Canvases, versions, drafts and staged uploads on both engines: the rows
// read back alike, and publishing keeps its decision order under concurrent
// deploys (one winner per publication token, version numbers without gaps or
// repeats, drafts reconciled in the same transaction).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { AuditLog } from '../src/audit/store.ts';
import type { Canvas } from '../src/canvases/record.ts';
import { CanvasStore } from '../src/canvases/store.ts';
import { loadConfig } from '../src/config.ts';
import type { Sql } from '../src/db/sql.ts';
import { isUniqueViolation } from '../src/db/unique-violation.ts';
import { publishSteps, type ManifestFile, type PublishDeps } from '../src/deploy/publish.ts';
import { UploadStore } from '../src/deploy/upload/store.ts';
import { VersionStore } from '../src/deploy/version-store.ts';
import { draftRows, DraftStore } from '../src/drafts/store.ts';
import { AppError } from '../src/errors.ts';
import { SettingsService } from '../src/settings/service.ts';
import { ENGINES, type TestEngine } from './support/engines.ts';

const config = loadConfig({ EASEL_DATA_DIR: '/nonexistent-canvas-stores-test' });
const hash = (n: number) => n.toString(16).padStart(64, '0');
const file = (path: string, n: number): ManifestFile => ({ path, hash: hash(n), size: n, mime: 'text/html' });

describe.each(ENGINES)('canvas stores on %s', (name, make) => {
  let engine: TestEngine;
  let sql: Sql;
  let canvases: CanvasStore;
  let deps: PublishDeps;
  let clock = Date.UTC(2026, 10, 26, 12);
  const now = () => ++clock;
  let made = 0;
  const newCanvas = (slug = `canvas-${++made}`): Promise<Canvas> =>
    canvases.insert({
      id: `id-${slug}`,
      slug,
      title: `Title of ${slug}`,
      ownerId: 'ann',
      keyHash: `key-${slug}`,
      publicationToken: 'p0',
      now: now(),
    });
  const publish = (canvasId: string, files: ManifestFile[], expectedPublicationToken: string | null = null, from?: string) =>
    sql.write(() =>
      publishSteps(deps, canvasId, files, {
        source: 'api',
        warnings: [],
        releaseId: null,
        expectedPublicationToken,
        publishedFromDraftOf: from,
      }),
    );

  beforeAll(async () => {
    engine = await make();
    sql = engine.sql;
    canvases = new CanvasStore(sql);
    for (const id of ['ann', 'ben', 'cy'])
      await sql.run('INSERT INTO users (id, email, name, created_at) VALUES (?1, ?2, ?1, 0)', id, `${id}@example.com`);
    const settings = new SettingsService(sql, config, now);
    await settings.load();
    deps = { audit: new AuditLog(sql, now), config, now, settings };
  });
  afterAll(() => engine.close());

  test('a canvas reads back by id, slug and key; updates, members, search and lists read alike', async () => {
    const c = await newCanvas('first-one');
    expect(c).toMatchObject({ slug: 'first-one', ownerId: 'ann', accessMode: 'restricted', currentVersionId: null, hasPassword: false });
    expect(c.capabilities).toEqual({ backend: true, kv: true, files: true, ai: false, realtime: true, authoring: false });
    expect((await canvases.bySlug('first-one'))?.id).toBe(c.id);
    expect((await canvases.byKeyHash('key-first-one'))?.id).toBe(c.id);
    await canvases.update(c.id, { title: '50% off_sale', cap_ai: 1, runtime_policy: '{"preset":"open"}', password_hash: 'h' }, now());
    const updated = (await canvases.byId(c.id))!;
    expect(updated).toMatchObject({ title: '50% off_sale', hasPassword: true, runtimePolicy: { preset: 'open' } });
    expect(updated.capabilities.ai).toBe(true);
    expect(updated.updatedAt).toBeGreaterThan(c.updatedAt);

    await canvases.setMember(c.id, 'ben', 'viewer', now());
    await canvases.setMember(c.id, 'ben', 'editor', now());
    expect(await canvases.roleOf(c, 'ben')).toBe('editor');
    expect(await canvases.roleOf(c, 'ann')).toBe('owner');
    expect(await canvases.roleOf(c, 'cy')).toBeNull();
    expect(await canvases.members(c.id)).toEqual([{ userId: 'ben', email: 'ben@example.com', name: 'ben', role: 'editor' }]);
    expect((await canvases.listFor('ben')).map((x) => x.id)).toEqual([c.id]);
    // LIKE's own characters in the query match themselves only.
    expect((await canvases.search('50%', 10)).map((x) => x.id)).toEqual([c.id]);
    expect(await canvases.search('5_%', 10)).toEqual([]);
    expect(await canvases.removeMember(c.id, 'ben')).toBe(true);
    expect(await canvases.removeMember(c.id, 'ben')).toBe(false);

    await canvases.update(c.id, { deleted_at: now() }, now());
    expect(await canvases.byId(c.id)).toBeNull();
    expect((await canvases.byKeyHash('key-first-one'))?.deletedAt).not.toBeNull();
    // A deleted canvas frees its slug.
    await canvases.insert({
      id: 'again',
      slug: 'first-one',
      title: 't',
      ownerId: 'ben',
      keyHash: 'key-again',
      publicationToken: 'p0',
      now: now(),
    });
    expect((await canvases.bySlug('first-one'))?.id).toBe('again');
  });

  test('a second live canvas with a slug is refused by the database, and recognized as that refusal', async () => {
    await newCanvas('taken-slug');
    let refusal: unknown;
    try {
      await sql.run(
        "INSERT INTO canvases (id, slug, title, owner_id, key_hash, publication_token, created_at, updated_at) VALUES ('dup', 'taken-slug', 't', 'ann', 'k-dup', 'p', 0, 0)",
      );
    } catch (err) {
      refusal = err;
    }
    expect(isUniqueViolation(refusal, 'canvases', 'slug')).toBe(true);
    expect(isUniqueViolation(refusal, 'canvases', 'title')).toBe(false);
    expect(isUniqueViolation(new Error('UNIQUE constraint failed: users.email'), 'canvases', 'slug')).toBe(false);
  });

  test('twenty deploys at once with the same publication token: exactly one publishes, the rest are PUBLICATION_CHANGED', async () => {
    const c = await newCanvas();
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => publish(c.id, [file('index.html', i + 1)], 'p0')));
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const o of outcomes) {
      if (o.status === 'rejected') expect((o.reason as AppError).errorCode).toBe('PUBLICATION_CHANGED');
    }
    const live = (await canvases.byId(c.id))!;
    const result = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof publish>>>).value.result;
    expect(live.currentVersionId).toBe(result.versionId);
    expect(live.publicationToken).toBe(result.publicationToken);
    expect(await new VersionStore(sql).list(c.id)).toHaveLength(1);
  });

  test('deploys at once without a token all publish, numbered 1..n; the ten newest are kept and the pruned hashes answered', async () => {
    const c = await newCanvas();
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => publish(c.id, [file('index.html', 100 + i), file('a.js', 7)])));
    expect(results.map((r) => r.result.version).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    const versions = await new VersionStore(sql).list(c.id);
    expect(versions.map((v) => v.number)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3]);
    const pruned = results.flatMap((r) => r.pruned).sort();
    // The pruned versions' hashes, including one still used by kept versions (the collector checks references).
    // Deploys queue for the canvas's lock in any order: the first two to publish are the pruned ones.
    const firstTwo = results.flatMap((r, i) => (r.result.version <= 2 ? [hash(100 + i)] : []));
    expect(pruned).toEqual([...firstTwo, hash(7), hash(7)].sort());
    const live = (await canvases.byId(c.id))!;
    expect((await new VersionStore(sql).byId(live.currentVersionId!))?.number).toBe(12);
  });

  test('manifest files read back in byte order of their paths', async () => {
    const c = await newCanvas();
    const { result } = await publish(c.id, [file('b.html', 1), file('B.html', 2), file('a/é.html', 3), file('a/z.html', 4)]);
    const paths = (await new VersionStore(sql).files(result.versionId)).map((f) => f.path);
    expect(paths).toEqual(['B.html', 'a/z.html', 'a/é.html', 'b.html']);
    expect(await new VersionStore(sql).file(result.versionId, 'a/é.html')).toEqual({
      path: 'a/é.html',
      hash: hash(3),
      size: 3,
      mime: 'text/html',
    });
  });

  test('a publish reconciles drafts in its transaction: unedited ones follow, edited ones are flagged stale, the publisher’s syncs', async () => {
    const c = await newCanvas();
    const first = (await publish(c.id, [file('index.html', 1)])).result;
    const drafts = new DraftStore(sql);
    await sql.write(function* () {
      for (const user of ['ann', 'ben', 'cy']) {
        yield* draftRows.put({
          canvasId: c.id,
          userId: user,
          baseVersionId: first.versionId,
          baseVersionNumber: 1,
          staleVersionId: null,
          staleVersionNumber: null,
          updatedAt: 0,
        });
        yield* draftRows.copyVersionFiles(c.id, user, first.versionId);
      }
      // Ben edits a file; Cy deletes one (a null hash against its base is an edit too).
      yield* draftRows.putFile(c.id, 'ben', { path: 'index.html', hash: hash(9), baseHash: hash(1), size: 9, mime: 'text/html' });
      yield* draftRows.putFile(c.id, 'cy', { path: 'index.html', hash: null, baseHash: hash(1), size: 1, mime: 'text/html' });
      yield* draftRows.putFile(c.id, 'ann', { path: 'new.html', hash: hash(5), baseHash: null, size: 5, mime: 'text/html' });
    });
    const second = (await publish(c.id, [file('index.html', 2)], null, 'ann')).result;
    const ann = (await drafts.get(c.id, 'ann'))!;
    expect(ann).toMatchObject({ baseVersionNumber: 2, staleVersionId: null });
    expect(await drafts.files(c.id, 'ann')).toEqual([{ path: 'index.html', hash: hash(2), baseHash: hash(2), size: 2, mime: 'text/html' }]);
    for (const user of ['ben', 'cy']) {
      expect(await drafts.get(c.id, user)).toMatchObject({ baseVersionNumber: 1, staleVersionId: second.versionId, staleVersionNumber: 2 });
    }
    expect((await drafts.file(c.id, 'cy', 'index.html'))?.hash).toBeNull();
  });

  test('a refused publish (over the storage quota) leaves no version, no pointer move and no draft change behind', async () => {
    const c = await newCanvas();
    await deps.settings.update({ userStorageBytes: 1000 });
    try {
      await expect(publish(c.id, [file('big.bin', 5000)])).rejects.toMatchObject({ errorCode: 'QUOTA_EXCEEDED' });
    } finally {
      await deps.settings.update({ userStorageBytes: null });
    }
    expect(await new VersionStore(sql).list(c.id)).toEqual([]);
    expect((await canvases.byId(c.id))?.currentVersionId).toBeNull();
    expect(await sql.get("SELECT 1 AS logged FROM audit_log WHERE canvas_id = ?1 AND action = 'canvas.deploy'", c.id)).toBeUndefined();
  });

  test('begin asks only for the blobs this canvas holds with the declared size (never another canvas’s)', async () => {
    const mine = await newCanvas();
    const theirs = await newCanvas();
    await publish(mine.id, [file('a.html', 11)]);
    await publish(theirs.id, [file('b.html', 12)]);
    const uploads = new UploadStore(sql);
    const held = await uploads.heldByCanvas(mine.id, [hash(11), hash(12), hash(13)]);
    expect([...held]).toEqual([[hash(11), 11]]);
  });

  test.if(name === 'postgres')('a canvas change made on one node is read on the other', async () => {
    const peer = new CanvasStore(await engine.peer!());
    const c = await newCanvas();
    await canvases.update(c.id, { title: 'Renamed' }, now());
    expect((await peer.byId(c.id))?.title).toBe('Renamed');
  });
});
