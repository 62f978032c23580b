// passes: embedded — starts its own S3 server
// Blobs on S3 (issue 21 item 2): a real S3-compatible server (s3rver) on a
// loopback port holds every blob; the data directory only caches copies,
// bounded, and fetches a missing one (checked against its hash) on use.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBackup } from '../src/backup/create.ts';
import { restoreBackup } from '../src/backup/restore.ts';
import { RemoteBlobsAtStart } from '../src/blobs/remote-start.ts';
import { S3BlobRemote } from '../src/blobs/s3-remote.ts';
import { blobStoreSettings } from '../src/config.ts';
import { sha256Hex } from '../src/ids.ts';
import { createDeployCanvas, deploy, get, zipOf, type DeployCanvas } from './deploy-fixtures.ts';
import { body, startTestApp, type TestApp } from './harness.ts';
import { ManualClock } from './manual-clock.ts';
import { makeWorld } from './runtime-fixtures.ts';
import { gate, nextEvent, recordEvents } from './signals.ts';
import { startS3Server, type S3TestServer } from './support/s3-server.ts';
import { begin, finalize, site, stage, stagedDeploy } from './upload-fixtures.ts';

const MiB = 1024 * 1024;
const METRICS_TOKEN = 'metrics-token-for-the-s3-suite-0123';
let s3: S3TestServer;
let prefixes = 0;

beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(() => s3.stop());

/** A fresh key prefix per app, so suites never see each other's objects. */
const freshPrefix = () => `suite-${process.pid}-${++prefixes}/`;

/** The bucket as anyone with the credentials sees it: hash → size under `prefix`. */
async function objectsUnder(prefix: string): Promise<Map<string, number>> {
  const client = s3.client;
  const out = new Map<string, number>();
  let continuationToken: string | undefined;
  do {
    const page = await client.list({ prefix, ...(continuationToken ? { continuationToken } : {}) });
    for (const o of page.contents ?? []) out.set(o.key.slice(prefix.length), o.size ?? 0);
    continuationToken = page.isTruncated ? page.nextContinuationToken : undefined;
  } while (continuationToken);
  return out;
}

const s3Object = (prefix: string, hash: string) => s3.client.file(prefix + hash);

/** Incompressible bytes (so a cache bound counts what it says). */
function noise(size: number, seed: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(size);
  let x = seed * 2654435761 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

async function page(app: TestApp, c: DeployCanvas, path: string, headers: Record<string, string> = {}) {
  return app.request(`/c/${c.slug}/${path}`, { cookie: c.ownerCookie, headers });
}

describe('a node on S3', () => {
  let app: TestApp;
  let prefix: string;
  const clock = new ManualClock(Date.now());

  beforeAll(async () => {
    prefix = freshPrefix();
    app = await startTestApp({
      env: { ...s3.env(prefix), EASEL_BLOB_CACHE_MB: '16', EASEL_RATELIMIT_ENABLED: 'off', EASEL_METRICS_TOKEN: METRICS_TOKEN },
      now: clock.now,
    });
  });
  afterAll(() => app.close());

  test('/healthz names the backends', async () => {
    const res = await app.request('/healthz');
    expect([res.status, await body(res)]).toEqual([
      200,
      { ok: true, version: app.ctx.version, backends: { database: 'sqlite', blobs: 's3', coordination: 'local' } },
    ]);
  });

  test('a ZIP deploy stores every blob in the bucket before it goes live; pages, ranges and read-back serve the same bytes', async () => {
    const c = await createDeployCanvas(app);
    const big = noise(300_000, 1);
    const files = { 'index.html': '<h1>on s3</h1>', 'app.js': 'console.log(1)', 'data.bin': big };
    const res = await deploy(app, c, zipOf(files));
    expect(res.status).toBe(200);
    const stored = await objectsUnder(prefix);
    for (const content of Object.values(files)) {
      const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
      expect(stored.get(sha256Hex(bytes))).toBe(bytes.byteLength);
    }
    expect(await (await page(app, c, '')).text()).toBe('<h1>on s3</h1>');
    const range = await page(app, c, 'data.bin', { range: 'bytes=1000-1999' });
    expect(range.status).toBe(206);
    expect(new Uint8Array(await range.arrayBuffer())).toEqual(big.subarray(1000, 2000));
    expect(range.headers.get('etag')).toContain(sha256Hex(big));
    const readBack = await app.request(`/v1/canvases/${c.id}/files?path=data.bin`, { headers: { authorization: `Bearer ${c.key}` } });
    expect(new Uint8Array(await readBack.arrayBuffer())).toEqual(big);
  });

  test('the cache stays within EASEL_BLOB_CACHE_MB, least recently used first; a dropped copy is fetched again, whole', async () => {
    const c = await createDeployCanvas(app);
    const parts = [noise(6 * MiB, 11), noise(6 * MiB, 12), noise(6 * MiB, 13)];
    const res = await deploy(app, c, zipOf({ 'index.html': 'big files', 'a.bin': parts[0]!, 'b.bin': parts[1]!, 'c.bin': parts[2]! }, 0));
    expect(res.status).toBe(200);
    // Copies used in the last minute are kept (a response may be opening one): the cache runs over its bound until then.
    const [a, b] = [sha256Hex(parts[0]!), sha256Hex(parts[1]!)];
    expect((await page(app, c, 'a.bin')).status).toBe(200);
    expect((await page(app, c, 'b.bin')).status).toBe(200);
    clock.advance(61_000);
    // a.bin is read again (the page cache's fast path still counts as a use); b.bin is now the least recently used.
    expect((await page(app, c, 'a.bin')).status).toBe(200);
    // Using c.bin trims the oldest copies until 16 MiB hold: b.bin goes, a.bin stays.
    expect((await page(app, c, 'c.bin')).status).toBe(200);
    expect(existsSync(app.ctx.blobs.pathOf(b))).toBe(false);
    expect(existsSync(app.ctx.blobs.pathOf(a))).toBe(true);
    // The count the bound is held to is what the disk holds (a dropped copy is subtracted once).
    const onDisk = [...app.ctx.blobs.hashes()].reduce((sum, h) => sum + (app.ctx.blobs.size(h) ?? 0), 0);
    expect(app.ctx.blobs.cache()!.bytes).toBe(onDisk);
    const again = await page(app, c, 'b.bin');
    expect(again.status).toBe(200);
    expect(sha256Hex(new Uint8Array(await again.arrayBuffer()))).toBe(b);
    expect(existsSync(app.ctx.blobs.pathOf(b))).toBe(true);
  });

  test('twenty readers of a copy this node lacks wait on one download', async () => {
    const c = await createDeployCanvas(app);
    const content = noise(200_000, 21);
    expect((await deploy(app, c, zipOf({ 'index.html': 'x', 'shared.bin': content }))).status).toBe(200);
    rmSync(app.ctx.blobs.pathOf(sha256Hex(content))); // as on a node that never had it
    const fetches = recordEvents(app, 'blobs.remote');
    const answers = await Promise.all(Array.from({ length: 20 }, () => page(app, c, 'shared.bin')));
    fetches.stop();
    for (const res of answers) expect(sha256Hex(new Uint8Array(await res.arrayBuffer()))).toBe(sha256Hex(content));
    expect(fetches.seen.filter((e) => e.operation === 'fetch')).toEqual([{ operation: 'fetch', outcome: 'ok' }]);
  });

  test('a staged deploy and runtime files go through the bucket too', async () => {
    const c = await createDeployCanvas(app);
    const files = { 'index.html': '<p>staged</p>', 'more.txt': 'staged more' };
    const res = await stagedDeploy(app, c, files);
    expect(res.status).toBe(200);
    const stored = await objectsUnder(prefix);
    for (const f of site(files).files) expect(stored.get(f.hash)).toBe(f.size);

    const w = await makeWorld(app);
    const form = new FormData();
    form.append('file', new File(['a runtime file on s3'], 'note.txt', { type: 'text/plain' }));
    const up = await app.request(`/v1/c/${w.slug}/files`, { method: 'POST', cookie: w.cookie.editor, body: form });
    expect(up.status).toBe(201);
    const { id } = await body(up);
    expect((await objectsUnder(prefix)).has(sha256Hex('a runtime file on s3'))).toBe(true);
    const back = await app.request(`/v1/c/${w.slug}/files/${id}/content`, { cookie: w.cookie.editor });
    expect(await back.text()).toBe('a runtime file on s3');
  });

  test('a local copy whose object another node collected is put back in the bucket by the next write of the same bytes', async () => {
    // Another node's sweep deletes the object; it cannot drop this node's local copy. Every write path then finds the copy.
    const lose = async (hash: string) => {
      expect(existsSync(app.ctx.blobs.pathOf(hash))).toBe(true);
      await s3Object(prefix, hash).delete();
      expect((await objectsUnder(prefix)).has(hash)).toBe(false);
    };
    const zipped = `zipped again ${prefix}`;
    const c = await createDeployCanvas(app);
    expect((await deploy(app, c, zipOf({ 'index.html': 'one', 'z.txt': zipped }))).status).toBe(200);
    await lose(sha256Hex(zipped));
    expect((await deploy(app, c, zipOf({ 'index.html': 'two', 'z.txt': zipped }))).status).toBe(200);
    expect((await objectsUnder(prefix)).has(sha256Hex(zipped))).toBe(true);

    const staged = `staged again ${prefix}`;
    expect((await stagedDeploy(app, c, { 'index.html': 'three', 's.txt': staged })).status).toBe(200);
    await lose(sha256Hex(staged));
    const s = site({ 'index.html': 'four', 's.txt': staged });
    const b = await begin(app, c, { manifest: s.manifest });
    // The canvas holds it (begin asks the rows); finalize asks the bucket, not the local copy.
    expect(b.body.missingHashes).not.toContain(sha256Hex(staged));
    for (const h of b.body.missingHashes) await stage(app, c, b.body.uploadId, h, s.byHash.get(h)!);
    const refused = await finalize(app, c, b.body.uploadId);
    expect([refused.status, refused.body.missingHashes]).toEqual([400, [sha256Hex(staged)]]);
    expect((await stage(app, c, b.body.uploadId, sha256Hex(staged), s.byHash.get(sha256Hex(staged))!)).status).toBe(204);
    expect((await objectsUnder(prefix)).has(sha256Hex(staged))).toBe(true);
    expect((await finalize(app, c, b.body.uploadId)).status).toBe(200);

    const orphan = new TextEncoder().encode(`put again ${prefix}`);
    await app.ctx.blobs.putBytes(orphan);
    await lose(sha256Hex(orphan));
    await app.ctx.blobs.putBytes(orphan);
    expect((await objectsUnder(prefix)).has(sha256Hex(orphan))).toBe(true);
    // Not left for the garbage collection test below to count.
    await s3Object(prefix, sha256Hex(orphan)).delete();
    rmSync(app.ctx.blobs.pathOf(sha256Hex(orphan)));
  });

  test('a refused deploy leaves nothing in the bucket', async () => {
    const c = await createDeployCanvas(app);
    const before = await objectsUnder(prefix);
    const res = await deploy(app, c, zipOf({ 'index.html': '<p>refused</p>', '../escape.txt': 'never stored' }));
    expect(res.status).toBe(400);
    expect(await objectsUnder(prefix)).toEqual(before);
  });

  test('bytes in the bucket that do not match their name are never served', async () => {
    const c = await createDeployCanvas(app);
    const content = 'the real bytes of tampered.txt';
    expect((await deploy(app, c, zipOf({ 'index.html': 'x', 'tampered.txt': content }))).status).toBe(200);
    const hash = sha256Hex(content);
    await s3Object(prefix, hash).write('bytes someone swapped in');
    rmSync(app.ctx.blobs.pathOf(hash)); // as if this node never had a copy
    const res = await page(app, c, 'tampered.txt');
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain('swapped');
  });

  test('garbage collection deletes unreferenced objects from the bucket once past the grace period', async () => {
    const orphan = await app.ctx.blobs.putBytes(new TextEncoder().encode('an orphan on s3'));
    expect((await objectsUnder(prefix)).has(orphan.hash)).toBe(true);
    expect(await app.ctx.blobGc.sweep()).toBe(0); // within the grace period
    expect((await objectsUnder(prefix)).has(orphan.hash)).toBe(true);
    clock.advance(2 * 3600_000);
    const live = new Set((await objectsUnder(prefix)).keys());
    expect(await app.ctx.blobGc.sweep()).toBe(1);
    const after = await objectsUnder(prefix);
    expect(after.has(orphan.hash)).toBe(false);
    expect(after.size).toBe(live.size - 1);
    expect(existsSync(app.ctx.blobs.pathOf(orphan.hash))).toBe(false);
  });

  test('a deploy of bytes this node is deleting from the bucket waits for the deletion, then puts them back', async () => {
    const content = `deleted and deployed ${prefix}`;
    const hash = sha256Hex(content);
    await app.ctx.blobs.putBytes(new TextEncoder().encode(content));
    clock.advance(2 * 3600_000);
    // The sweep stops with every check passed, just before the bucket deletes the blob (the local copy is still there).
    const removal = gate();
    const remove = app.ctx.blobs.remove.bind(app.ctx.blobs);
    app.ctx.blobs.remove = (h) => (h === hash ? removal.pass(() => remove(h)) : remove(h));
    const sweeping = app.ctx.blobGc.sweep();
    await removal.reached;
    const c = await createDeployCanvas(app);
    // The deploy reaches the blob while its deletion is under way: it must not count on the copy about to go.
    const held = nextEvent(app, 'blobs.held', (e) => e.hash === hash);
    const deploying = deploy(app, c, zipOf({ 'index.html': 'x', 'again.txt': content }));
    await Promise.race([held, deploying]);
    held.cancel();
    removal.open();
    await sweeping;
    expect((await deploying).status).toBe(200);
    expect((await objectsUnder(prefix)).get(hash)).toBe(content.length);
    const res = await page(app, c, 'again.txt');
    expect([res.status, await res.text()]).toEqual([200, content]);
  });

  test('/metrics counts the requests to the bucket by outcome, and shows the cache against its bound', async () => {
    const res = await app.request('/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    const text = await res.text();
    const value = (series: string) => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
    // Every test above left its trace: uploads, a copy fetched again, the swapped bytes refused, the orphan deleted.
    expect(value('easel_blob_remote_operations_total{operation="upload",outcome="ok"}')).toBeGreaterThanOrEqual(10);
    expect(value('easel_blob_remote_operations_total{operation="fetch",outcome="ok"}')).toBeGreaterThanOrEqual(1);
    expect(value('easel_blob_remote_operations_total{operation="fetch",outcome="missing"}')).toBeGreaterThanOrEqual(1);
    expect(value('easel_blob_remote_operations_total{operation="delete",outcome="ok"}')).toBeGreaterThanOrEqual(1);
    expect(value('easel_blob_cache_limit_bytes')).toBe(16 * MiB);
    expect(value('easel_blob_cache_bytes')).toBeGreaterThan(0);
  });
});

describe('moving a data directory onto S3', () => {
  test('blobs written embedded are uploaded at the first start on S3, once; then the directory starts only on that bucket', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'easel-to-s3-'));
    const prefix = freshPrefix();
    try {
      const embedded = await startTestApp({ dataDir });
      const c = await createDeployCanvas(embedded);
      expect((await deploy(embedded, c, zipOf({ 'index.html': '<p>moved</p>', 'x.txt': 'moved too' }))).status).toBe(200);
      await embedded.close();
      expect((await objectsUnder(prefix)).size).toBe(0);

      const onS3 = await startTestApp({ dataDir, env: s3.env(prefix) });
      const stored = await objectsUnder(prefix);
      expect(stored.has(sha256Hex('<p>moved</p>'))).toBe(true);
      expect(stored.has(sha256Hex('moved too'))).toBe(true);
      expect(await onS3.ctx.blobs.seedRemote()).toBe(0);
      expect(await (await page(onS3, c, 'x.txt')).text()).toBe('moved too');
      await onS3.close();

      // From now on its blobs folder is a cache: starting without the bucket, or on another one, would serve missing files.
      for (const env of [{}, s3.env(freshPrefix())]) {
        const refused = await startTestApp({ dataDir, env }).then(
          () => null,
          (err: unknown) => err as Error,
        );
        expect(refused).toBeInstanceOf(RemoteBlobsAtStart);
        expect(refused!.message).toContain(`s3://${s3.bucket}/${prefix}`);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('backup on S3', () => {
  test('a backup takes blobs the node has no copy of from the bucket; restored onto S3, every page answers', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'easel-s3-backup-'));
    const target = join(mkdtempSync(join(tmpdir(), 'easel-s3-backup-out-')), 'backup.tar');
    const restored = mkdtempSync(join(tmpdir(), 'easel-s3-restored-'));
    rmSync(restored, { recursive: true });
    const prefix = freshPrefix();
    try {
      const app = await startTestApp({ dataDir, env: s3.env(prefix) });
      const c = await createDeployCanvas(app);
      expect((await deploy(app, c, zipOf({ 'index.html': '<p>kept</p>', 'only-remote.txt': 'only in the bucket' }))).status).toBe(200);
      rmSync(app.ctx.blobs.pathOf(sha256Hex('only in the bucket')));
      const remote = new S3BlobRemote(blobStoreSettings(s3.env(prefix))!);
      const { manifest } = await createBackup(dataDir, target, { remote });
      await app.close();
      expect(manifest.blobs.count).toBeGreaterThanOrEqual(2);

      await restoreBackup(target, restored);
      const newPrefix = freshPrefix();
      const again = await startTestApp({ dataDir: restored, env: s3.env(newPrefix) });
      expect((await objectsUnder(newPrefix)).has(sha256Hex('only in the bucket'))).toBe(true);
      expect(await (await page(again, c, 'only-remote.txt')).text()).toBe('only in the bucket');
      await again.close();
    } finally {
      for (const dir of [dataDir, restored, join(target, '..')]) rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('when S3 does not answer', () => {
  let deadEndpoint: string;
  beforeAll(() => {
    // A port that was just free: nothing listens there.
    const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
    deadEndpoint = `http://127.0.0.1:${probe.port}`;
    probe.stop(true);
  });

  test('the server refuses to start, with one line naming the store', async () => {
    const env = { ...s3.env(freshPrefix()), S3_ENDPOINT: deadEndpoint };
    const error = await startTestApp({ env }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(RemoteBlobsAtStart);
    expect(String((error as Error).message)).toContain(`s3://${s3.bucket}/`);
    expect(String((error as Error).message)).not.toContain('S3RVER');
  });

  test('a store that takes the connection and never answers holds no visitor: the page answers 503 after the wait', async () => {
    const hung = await startS3Server('easel-hung');
    const app = await startTestApp({ env: hung.env(freshPrefix()), app: { blobFetchWaitMs: 200 } });
    try {
      const c = await createDeployCanvas(app);
      expect((await deploy(app, c, zipOf({ 'index.html': '<p>home</p>', 'far.txt': 'only in the bucket' }))).status).toBe(200);
      rmSync(app.ctx.blobs.pathOf(sha256Hex('only in the bucket'))); // as on a node that never had it
      hung.pause();
      const res = await page(app, c, 'far.txt');
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(await res.text()).toContain('Try again shortly');
      hung.resume();
      // Once the store answers again, so does the page (the fetch went on meanwhile).
      expect(await (await page(app, c, 'far.txt')).text()).toBe('only in the bucket');
    } finally {
      hung.resume();
      await app.close();
      await hung.stop();
    }
  });

  test("a bucket that does not exist stops the start too, naming S3's code", async () => {
    // (s3rver takes any credentials, so a refused key is not tested here: S3 answers it the same way, with a code.)
    const noBucket = await startTestApp({ env: { ...s3.env('x/'), EASEL_BLOB_URL: 's3://no-such-bucket/x' } }).then(
      () => null,
      (err: unknown) => err as Error,
    );
    expect(noBucket).toBeInstanceOf(RemoteBlobsAtStart);
    expect(noBucket!.message).toContain('the blob store s3://no-such-bucket/x/ cannot be used (NoSuchBucket)');
  });

  test('a deploy, a staged blob and a runtime file answer 503 STORAGE_UNAVAILABLE in their shapes and store nothing; /healthz answers 503 naming the blobs; cached pages still serve', async () => {
    const own = await startS3Server('easel-outage');
    const app = await startTestApp({ env: own.env(freshPrefix()) });
    try {
      const c = await createDeployCanvas(app);
      expect((await deploy(app, c, zipOf({ 'index.html': '<p>first</p>' }))).status).toBe(200);
      const w = await makeWorld(app);
      const staged = site({ 'index.html': '<p>staged while down</p>' });
      const begun = await begin(app, c, { manifest: staged.manifest });
      expect(begun.status).toBe(200);
      await own.stop();

      const blob = await stage(app, c, begun.body.uploadId, staged.files[0]!.hash, staged.files[0]!.bytes);
      expect(blob.status).toBe(503);
      expect(Object.keys(blob.body).sort()).toEqual(['code', 'message']);
      expect(blob.body.code).toBe('STORAGE_UNAVAILABLE');
      const form = new FormData();
      form.append('file', new File(['written while down'], 'down.txt', { type: 'text/plain' }));
      const upload = await app.request(`/v1/c/${w.slug}/files`, { method: 'POST', cookie: w.cookie.editor, body: form });
      expect(upload.status).toBe(503);
      expect(await body(upload)).toMatchObject({ code: 'STORAGE_UNAVAILABLE', message: expect.stringContaining('s3://easel-outage/') });
      expect((await body(await app.request(`/v1/c/${w.slug}/files`, { cookie: w.cookie.editor }))).files).toEqual([]);
      expect(app.ctx.blobs.has(sha256Hex('written while down'))).toBe(false);

      const refused = await deploy(app, c, zipOf({ 'index.html': '<p>second</p>' }));
      expect(refused.status).toBe(503);
      expect(refused.body.code).toBe('STORAGE_UNAVAILABLE');
      expect(refused.body.message).toContain('s3://easel-outage/');
      expect(JSON.stringify(refused.body)).not.toContain('S3RVER');
      expect((await get(app, c, '/versions')).body.versions).toHaveLength(1);
      expect(await (await page(app, c, '')).text()).toBe('<p>first</p>');
      const health = await app.request('/healthz');
      expect(health.status).toBe(503);
      expect((await body(health)).failed).toEqual(['blobs']);
    } finally {
      await app.close();
      await own.stop();
    }
  });
});
