// passes: embedded, s3
// `easel backup` and `easel restore` as real processes against a live server
// taking deploys and KV writes; then the restored data directory is served and
// checked byte for byte.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blobsHeldForBackup, holdBlobsForBackup } from '../src/blobs/backup-hold.ts';
import { BLOB_GRACE_MS } from '../src/blobs/gc.ts';
import { SCHEMA_VERSION } from '../src/db/migrate.ts';
import { TarWriter, readTar } from '../src/backup/tar.ts';
import { body, startTestApp, type TestApp } from './harness.ts';
import { createDeployCanvas, deploy, zipOf, type DeployCanvas } from './deploy-fixtures.ts';
import { ManualClock } from './manual-clock.ts';
import { makeWorld, type World } from './runtime-fixtures.ts';
import { runToExit } from './spawn.ts';

const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher('sha256').update(bytes).digest('hex');

/** What release `n` of canvas `c` holds: a page naming it and some bytes no other release has. */
function releaseFiles(c: number, n: number): Record<string, Uint8Array> {
  const noise = new Uint8Array(20_000 + n * 97);
  for (let i = 0; i < noise.length; i++) noise[i] = (i * 31 + c * 7 + n * 13) & 0xff;
  return {
    'index.html': new TextEncoder().encode(`<h1>canvas ${c} release ${n}</h1>`),
    'assets/data.bin': noise,
    'shared.css': new TextEncoder().encode('body { margin: 0 }'),
  };
}

const releaseNumber = (releaseId: string) => Number(releaseId.split('-r')[1]);

describe('backup during a deploy storm and KV writes, then restore', () => {
  let app: TestApp;
  let w: World;
  const canvases: DeployCanvas[] = [];
  let work: string;
  /** Per canvas, the releases acknowledged before the backup started. */
  const ackedBefore: number[] = [];
  /** KV keys acknowledged before the backup started, with their values. */
  let kvBefore = new Map<string, number>();
  let acksDuringBackup = 0;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'easel-backup-'));
    app = await startTestApp({ listen: true, env: { EASEL_RATELIMIT_ENABLED: 'false' } });
    w = await makeWorld(app);
    for (let i = 0; i < 3; i++) canvases.push(await createDeployCanvas(app));

    const acked = canvases.map(() => 0);
    const kvAcked = new Map<string, number>();
    let backupRunning = false;
    let stop = false;
    // Wait until every canvas has more than the 10 kept versions (so pruning runs during the backup).
    let warm: () => void = () => {};
    const warmed = new Promise<void>((resolve) => (warm = resolve));
    const checkWarm = () => {
      if (acked.every((n) => n > 11) && kvAcked.size > 20) warm();
    };
    const deployLoop = async (c: number) => {
      for (let n = 1; !stop; n++) {
        const res = await deploy(app, canvases[c]!, zipOf(releaseFiles(c, n)), { releaseId: `c${c}-r${n}` });
        expect(res.status).toBe(200);
        acked[c] = n;
        if (backupRunning) acksDuringBackup++;
        checkWarm();
      }
    };
    const kvLoop = async () => {
      for (let n = 1; !stop; n++) {
        const res = await app.request(`/v1/c/${w.slug}/kv/k${n % 50}`, { method: 'PUT', cookie: w.cookie.editor, json: n });
        expect(res.status).toBe(200);
        kvAcked.set(`k${n % 50}`, n);
        if (backupRunning) acksDuringBackup++;
        checkWarm();
      }
    };
    const loops = [...canvases.map((_, c) => deployLoop(c)), kvLoop()];
    await warmed;
    ackedBefore.push(...acked);
    kvBefore = new Map(kvAcked);
    backupRunning = true;
    const run = await runToExit({ args: ['backup', join(work, 'storm.tar'), '--data-dir', app.dataDir] });
    backupRunning = false;
    stop = true;
    await Promise.all(loops);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    expect(run.stdout).toMatch(/^backup written to .*storm\.tar \(tar\): database .* \(schema \d+\), \d+ blobs/);
  });
  afterAll(async () => {
    await app.close();
    rmSync(work, { recursive: true, force: true });
  });

  test('writes kept being acknowledged while the backup ran', () => {
    expect(acksDuringBackup).toBeGreaterThan(0);
  });

  test('the restored instance serves every live canvas byte for byte, and loses no acknowledged write', async () => {
    const restored = join(work, 'restored');
    const run = await runToExit({ args: ['restore', join(work, 'storm.tar'), '--data-dir', restored] });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('every byte checked');
    const copy = await startTestApp({ dataDir: restored });
    try {
      for (const [c, canvas] of canvases.entries()) {
        // The canvas key and the owner's session are in the restored database too.
        const view = await body(await copy.request(`/v1/canvases/${canvas.id}`, { headers: { authorization: `Bearer ${canvas.key}` } }));
        const live = releaseNumber(view.currentVersion.releaseId);
        expect(live).toBeGreaterThanOrEqual(ackedBefore[c]!);
        const expected = releaseFiles(c, live);
        const listing = await body(
          await copy.request(`/v1/canvases/${canvas.id}/files`, { headers: { authorization: `Bearer ${canvas.key}` } }),
        );
        expect(Object.fromEntries(listing.files.map((f: { path: string; hash: string }) => [f.path, f.hash]))).toEqual(
          Object.fromEntries(Object.entries(expected).map(([path, bytes]) => [path, sha256(bytes)])),
        );
        for (const [path, bytes] of Object.entries(expected)) {
          const page = await copy.request(`/c/${canvas.slug}/${path}`, { cookie: canvas.ownerCookie });
          expect({ path, status: page.status }).toEqual({ path, status: 200 });
          expect(sha256(new Uint8Array(await page.arrayBuffer()))).toBe(sha256(bytes));
        }
        // Every kept version is whole too (a rollback target must not be missing a blob).
        const versions = await body(
          await copy.request(`/v1/canvases/${canvas.id}/versions`, { headers: { authorization: `Bearer ${canvas.key}` } }),
        );
        expect(versions.versions.length).toBe(10);
      }
      for (const [key, value] of kvBefore) {
        const got = await copy.request(`/v1/c/${w.slug}/kv/${key}`, { cookie: w.cookie.viewer });
        const read = await body(got);
        // A later write to the same key may be in the backup too, never an older one.
        expect({ key, newer: read.value >= value }).toEqual({ key, newer: true });
      }
      const integrity = copy.ctx.db!.query<{ integrity_check: string }, []>('PRAGMA integrity_check').get();
      expect(integrity?.integrity_check).toBe('ok');
    } finally {
      await copy.close();
    }
  });
});

describe('backup and restore refusals', () => {
  let app: TestApp;
  let work: string;
  let canvas: DeployCanvas;
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'easel-backup-'));
    app = await startTestApp({ listen: true });
    canvas = await createDeployCanvas(app);
    expect((await deploy(app, canvas, zipOf(releaseFiles(0, 1)))).status).toBe(200);
  });
  afterAll(async () => {
    await app.close();
    rmSync(work, { recursive: true, force: true });
  });
  const easel = (...args: string[]) => runToExit({ args });

  test('a folder backup restores like a tar; --json prints the manifest', async () => {
    const folder = join(work, 'as-folder');
    const made = await easel('backup', folder, '--data-dir', app.dataDir, '--json');
    expect(made.code).toBe(0);
    const manifest = JSON.parse(made.stdout);
    expect(manifest).toMatchObject({ format: 'easel-backup', formatVersion: 1, schemaVersion: SCHEMA_VERSION, blobs: { count: 3 } });
    expect(readdirSync(folder).sort()).toEqual(['blobs', 'easel.db', 'manifest.json']);
    const restored = join(work, 'from-folder');
    expect((await easel('restore', folder, '--data-dir', restored)).code).toBe(0);
    const copy = await startTestApp({ dataDir: restored });
    try {
      const page = await copy.request(`/c/${canvas.slug}/`, { cookie: canvas.ownerCookie });
      expect(await page.text()).toBe('<h1>canvas 0 release 1</h1>');
    } finally {
      await copy.close();
    }
  });

  test('a data directory whose blobs live in a bucket, backed up without the bucket settings: told to set them, not that it is damaged', async () => {
    const folder = join(work, 'for-bucket-copy');
    expect((await easel('backup', folder, '--data-dir', app.dataDir)).code).toBe(0);
    const copy = join(work, 'bucket-backed');
    expect((await easel('restore', folder, '--data-dir', copy)).code).toBe(0);
    // Its local folder is only a cache: one blob is not in it.
    const shard = readdirSync(join(copy, 'blobs')).find((d) => !d.startsWith('.'))!;
    const blob = readdirSync(join(copy, 'blobs', shard))[0]!;
    rmSync(join(copy, 'blobs', shard, blob));
    const damaged = await easel('backup', join(work, 'damaged.tar'), '--data-dir', copy);
    expect([damaged.code, damaged.stderr]).toEqual([1, expect.stringContaining('the data directory is damaged, so no backup was made')]);
    writeFileSync(join(copy, 'blobs', '.remote-seeded'), 's3://easel-blobs/prod\n');
    const cached = await easel('backup', join(work, 'cached.tar'), '--data-dir', copy);
    expect(cached.code).toBe(1);
    expect(cached.stderr).toContain(
      'this data directory keeps its blobs in s3://easel-blobs/prod, and 1 of them are not in its local cache: set EASEL_BLOB_URL (and the S3_* settings) as the server has them',
    );
    expect(cached.stderr).not.toContain('damaged');
    expect(existsSync(join(work, 'cached.tar'))).toBe(false);
  });

  test('a backup never overwrites: an existing tar, a non-empty folder', async () => {
    const tar = join(work, 'exists.tar');
    writeFileSync(tar, 'precious');
    const again = await easel('backup', tar, '--data-dir', app.dataDir);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already exists');
    expect(readFileSync(tar, 'utf8')).toBe('precious');
    const folder = join(work, 'busy');
    mkdirSync(folder);
    writeFileSync(join(folder, 'notes.txt'), 'mine');
    const busy = await easel('backup', folder, '--data-dir', app.dataDir);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain('is not an empty folder');
    expect(readdirSync(folder)).toEqual(['notes.txt']);
  });

  test('a data directory without a database is named; usage errors exit 2', async () => {
    const empty = join(work, 'no-db');
    mkdirSync(empty);
    const res = await easel('backup', join(work, 'x.tar'), '--data-dir', empty);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('holds no Easel database');
    expect(existsSync(join(work, 'x.tar'))).toBe(false);
    expect((await easel('backup')).code).toBe(2);
    expect((await easel('restore', 'a', 'b')).code).toBe(2);
    expect((await easel('backup', '--frobnicate', 'x')).code).toBe(2);
  });

  test('restore refuses a non-empty data directory and leaves it as it was', async () => {
    const tar = join(work, 'good.tar');
    expect((await easel('backup', tar, '--data-dir', app.dataDir)).code).toBe(0);
    const res = await easel('restore', tar, '--data-dir', app.dataDir);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('is not empty');
    expect((await app.request('/healthz')).status).toBe(200);
  });

  /** Rewrites a good backup entry by entry, letting `edit` change or drop each. */
  async function alteredBackup(
    name: string,
    edit: (entry: { name: string; bytes: Uint8Array }, i: number) => { name: string; bytes: Uint8Array } | null,
  ) {
    const good = join(work, 'source.tar');
    if (!existsSync(good)) expect((await easel('backup', good, '--data-dir', app.dataDir)).code).toBe(0);
    const out = join(work, name);
    const writer = new TarWriter(Bun.file(out).writer());
    let i = 0;
    for await (const entry of readTar(Bun.file(good).stream())) {
      const parts: Uint8Array[] = [];
      for await (const chunk of entry.body()) parts.push(chunk);
      const edited = edit({ name: entry.name, bytes: new Uint8Array(Buffer.concat(parts)) }, i++);
      if (edited) await writer.add(edited.name, edited.bytes.byteLength, edited.bytes);
    }
    await writer.finish();
    return out;
  }

  async function refusedRestore(tar: string, message: string | RegExp) {
    const target = join(work, `restore-${Math.random().toString(36).slice(2)}`);
    const res = await easel('restore', tar, '--data-dir', target);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(message);
    // Nothing is left behind: the directory it created is gone again.
    expect(existsSync(target)).toBe(false);
  }

  test('a damaged blob, a damaged database, a missing blob, a cut archive, foreign entries and path tricks are refused', async () => {
    const flip = (bytes: Uint8Array) => {
      const copy = bytes.slice();
      copy[copy.length >> 1]! ^= 0xff;
      return copy;
    };
    await refusedRestore(
      await alteredBackup('rot.tar', (e) => (e.name.startsWith('blobs/') ? { ...e, bytes: flip(e.bytes) } : e)),
      /does not match its hash/,
    );
    await refusedRestore(
      await alteredBackup('rotdb.tar', (e) => (e.name === 'easel.db' ? { ...e, bytes: flip(e.bytes) } : e)),
      /does not match its hash/,
    );
    let dropped = false;
    await refusedRestore(
      await alteredBackup('missing.tar', (e) => {
        if (e.name.startsWith('blobs/') && !dropped) return ((dropped = true), null);
        return e;
      }),
      /cut short/,
    );
    await refusedRestore(
      await alteredBackup('traversal.tar', (e, i) => (i === 2 ? { name: '../escaped', bytes: e.bytes } : e)),
      /unexpected entry "\.\.\/escaped"/,
    );
    expect(existsSync(join(work, 'escaped'))).toBe(false);
    await refusedRestore(
      await alteredBackup('extra.tar', (e, i) => (i === 2 ? { name: 'blobs/aa/bb/notahash', bytes: e.bytes } : e)),
      /unexpected entry/,
    );
    await refusedRestore(await alteredBackup('nomanifest.tar', (e) => (e.name === 'manifest.json' ? null : e)), /not an Easel backup/);
    await refusedRestore(
      await alteredBackup('newer.tar', (e) => {
        if (e.name !== 'manifest.json') return e;
        const manifest = JSON.parse(new TextDecoder().decode(e.bytes));
        return { ...e, bytes: new TextEncoder().encode(JSON.stringify({ ...manifest, schemaVersion: SCHEMA_VERSION + 1 })) };
      }),
      /made by a newer Easel/,
    );
    const whole = readFileSync(join(work, 'source.tar'));
    writeFileSync(join(work, 'cut.tar'), whole.subarray(0, whole.length - 3000));
    await refusedRestore(join(work, 'cut.tar'), /truncated|cut short/);
    writeFileSync(join(work, 'garbage.tar'), new Uint8Array(4096).fill(7));
    await refusedRestore(join(work, 'garbage.tar'), /not a tar archive/);
    await refusedRestore(join(work, 'nothing-here.tar'), /no such backup/);
  });
});

describe('a running backup pauses blob collection', () => {
  test('an unreferenced old blob is kept while a live backup holds the store, and collected after', async () => {
    // Blob ages come from file times: the clock starts at the real now.
    const clock = new ManualClock(Date.now());
    const app = await startTestApp({ now: clock.now, scheduler: clock.scheduler });
    try {
      const { hash } = await app.ctx.blobs.putBytes(new TextEncoder().encode('orphan'));
      clock.advance(BLOB_GRACE_MS + 60_000);
      // A hold left by a backup that died (its pid is gone) does not pause anything.
      const dead = Bun.spawn(['true']);
      await dead.exited;
      mkdirSync(join(app.dataDir, 'backup-holds'), { recursive: true });
      writeFileSync(join(app.dataDir, 'backup-holds', String(dead.pid)), '');
      const release = holdBlobsForBackup(app.dataDir);
      expect(await app.ctx.blobGc.sweep()).toBe(0);
      expect(app.ctx.blobs.has(hash)).toBe(true);
      expect(existsSync(join(app.dataDir, 'backup-holds', String(dead.pid)))).toBe(false);
      release();
      expect(blobsHeldForBackup(app.dataDir)).toBe(false);
      expect(await app.ctx.blobGc.sweep()).toBe(1);
      expect(app.ctx.blobs.has(hash)).toBe(false);
    } finally {
      await app.close();
    }
  });
});
