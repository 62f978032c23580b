// passes: embedded, s3
// A real server process killed with SIGKILL in the middle of a large deploy:
// once while the body is still arriving (entries are already being extracted
// then), once while the new blobs are being moved into the store. After a
// restart on the same data directory the live version, the version list and
// the database are intact, the spool is empty, no blob in the store is
// partial, and nothing of the dead deploy is visible through the API.
import { Database } from 'bun:sqlite';
import { afterAll, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync, type Zippable } from 'fflate';
import { loadConfig } from '../src/config.ts';
import { createCore } from '../src/foundation.ts';
import { newId, newToken, randomBase62, sha256Hex } from '../src/ids.ts';
import { rawZip, site } from './deploy-fixtures.ts';
import { startEasel, stopEasel, type Easel } from './spawn.ts';

const MiB = 1024 * 1024;
const work = mkdtempSync(join(tmpdir(), 'easel-crash-'));
const running: Easel[] = [];

afterAll(async () => {
  for (const e of running) if (e.proc.exitCode === null && !e.proc.killed) await stopEasel(e);
  rmSync(work, { recursive: true, force: true });
});

async function createCanvas(dataDir: string): Promise<{ id: string; key: string }> {
  const ctx = await createCore(loadConfig({ EASEL_DATA_DIR: dataDir }));
  const owner = await ctx.users.ensure('crash@example.test', 'Crash');
  const key = 'easel_sk_' + randomBase62(40);
  const id = newId();
  await ctx.canvases.insert({
    id,
    slug: `crash${randomBase62(6).toLowerCase()}`,
    title: 'Crash',
    ownerId: owner.id,
    keyHash: sha256Hex(key),
    publicationToken: newToken(),
    now: Date.now(),
  });
  ctx.db!.close();
  return { id, key };
}

async function start(dataDir: string): Promise<Easel> {
  const e = await startEasel({ env: { EASEL_DATA_DIR: dataDir, EASEL_LOG_LEVEL: 'warn' } });
  running.push(e);
  return e;
}

/** Every blob file in the store, by name. */
function storedBlobs(dataDir: string): string[] {
  const root = join(dataDir, 'blobs');
  const out: string[] = [];
  for (const a of readdirSync(root)) {
    if (!/^[0-9a-f]{2}$/.test(a)) continue;
    for (const name of readdirSync(join(root, a))) out.push(join(root, a, name));
  }
  return out;
}

/**
 * After the restart: the deploy API shows exactly `expectVersions` with the
 * last one live, every live file reads back intact, the database passes its
 * integrity check, the spool is empty, and every blob in the store holds the
 * bytes its name promises (nothing partial was ever renamed into place).
 */
async function expectIntact(
  easel: Easel,
  dataDir: string,
  canvas: { id: string; key: string },
  live: { versionId: string; publicationToken: string },
  versions: number[],
) {
  const auth = { authorization: `Bearer ${canvas.key}` };
  expect(readdirSync(join(dataDir, 'tmp', 'deploy'))).toEqual([]);
  const view = (await (await fetch(`${easel.url}/v1/canvases/${canvas.id}`, { headers: auth })).json()) as Record<string, unknown>;
  expect(view).toMatchObject({ publicationState: 'published', currentVersionId: live.versionId, publicationToken: live.publicationToken });
  const list = (await (await fetch(`${easel.url}/v1/canvases/${canvas.id}/versions`, { headers: auth })).json()) as {
    versions: Array<{ number: number }>;
  };
  expect(list.versions.map((v) => v.number)).toEqual(versions);
  const listing = (await (await fetch(`${easel.url}/v1/canvases/${canvas.id}/files`, { headers: auth })).json()) as {
    files: Array<{ path: string; hash: string }>;
  };
  for (const f of listing.files.slice(0, 50)) {
    const res = await fetch(`${easel.url}/v1/canvases/${canvas.id}/files?path=${encodeURIComponent(f.path)}`, { headers: auth });
    expect(sha256Hex(new Uint8Array(await res.arrayBuffer()))).toBe(f.hash);
  }
  for (const path of storedBlobs(dataDir)) expect(sha256Hex(readFileSync(path))).toBe(path.slice(-64));
  const db = new Database(join(dataDir, 'easel.db'), { readonly: true });
  expect(db.query<{ integrity_check: string }, []>('PRAGMA integrity_check').all()).toEqual([{ integrity_check: 'ok' }]);
  expect(db.query<{ n: number }, [string]>('SELECT COUNT(*) AS n FROM versions WHERE canvas_id = ?').get(canvas.id)!.n).toBe(
    versions.length,
  );
  db.close();
}

/** The directory's listing once `ready` holds for it, checked on every change the kernel reports. */
function whenListing(dir: string, ready: (names: string[]) => boolean): Promise<string[]> {
  return new Promise((resolve) => {
    const check = () => {
      const names = readdirSync(dir);
      if (!ready(names)) return;
      watcher.close();
      resolve(names);
    };
    const watcher = watch(dir, check);
    check();
  });
}

test('kill -9 while a 60 MB body is arriving (and being extracted) leaves the live version and the database intact', async () => {
  const dataDir = join(work, 'mid-body');
  const canvas = await createCanvas(dataDir);
  const auth = { authorization: `Bearer ${canvas.key}` };
  let easel = await start(dataDir);
  const first = await fetch(`${easel.url}/v1/canvases/${canvas.id}/deploy?releaseId=v1`, { method: 'PUT', body: site(), headers: auth });
  expect(first.status).toBe(200);
  const published = (await first.json()) as { versionId: string; publicationToken: string };
  const blobsBefore = storedBlobs(dataDir).length;

  // A 60 MB archive of twelve 5 MB entries, streamed; the server is killed once half of it is out.
  const big = rawZip(
    Array.from({ length: 12 }, (_, i) => ({ name: `part${i}.bin`, content: new Uint8Array(5 * MiB).fill(i + 1), method: 0 as const })),
  );
  expect(big.byteLength).toBeGreaterThan(60 * MiB);
  let sent = 0;
  let killed = false;
  let tmpAtKill: string[] = [];
  const victim = easel;
  const tmpDir = join(dataDir, 'tmp', 'deploy');
  const body = new ReadableStream<Uint8Array>({
    async pull(ctl) {
      if (sent >= big.byteLength) return ctl.close();
      if (!killed && sent >= 30 * MiB) {
        // Once the server has begun extracting entries, kill it mid-body.
        tmpAtKill = await whenListing(tmpDir, (names) => names.some((n) => n.startsWith('blob-')));
        killed = true;
        victim.proc.kill('SIGKILL');
      }
      const chunk = big.subarray(sent, sent + 256 * 1024);
      sent += chunk.byteLength;
      ctl.enqueue(chunk);
    },
  });
  const outcome = await fetch(`${easel.url}/v1/canvases/${canvas.id}/deploy`, {
    method: 'PUT',
    body,
    headers: auth,
    duplex: 'half',
  } as RequestInit).then(
    (res) => `status ${res.status}`,
    () => 'connection lost',
  );
  expect(killed).toBe(true);
  expect(outcome).toBe('connection lost');
  expect(await victim.exited).not.toBe(0);

  // The dead upload left the entries it had extracted so far, none of them in the store yet (and no spool: every byte so far was extracted).
  expect(tmpAtKill.filter((n) => n.startsWith('body-'))).toHaveLength(0);
  expect(tmpAtKill.filter((n) => n.startsWith('blob-')).length).toBeGreaterThan(0);
  expect(storedBlobs(dataDir)).toHaveLength(blobsBefore);
  easel = await start(dataDir);
  await expectIntact(easel, dataDir, canvas, published, [1]);
  const file = await fetch(`${easel.url}/v1/canvases/${canvas.id}/files?path=index.html`, { headers: auth });
  expect(await file.text()).toBe('<h1>hi</h1>');

  // And the service carries on: the next deploy is version 2.
  const next = await fetch(`${easel.url}/v1/canvases/${canvas.id}/deploy`, { method: 'PUT', body: site({ 'v2.js': '2' }), headers: auth });
  expect(((await next.json()) as { version: number }).version).toBe(2);
  expect(await stopEasel(easel)).toBe(0);
}, 60_000);

test('kill -9 while a 2000-file deploy moves its blobs into the store: a consistent state after restart, and the orphans are invisible', async () => {
  const dataDir = join(work, 'mid-commit');
  const canvas = await createCanvas(dataDir);
  const auth = { authorization: `Bearer ${canvas.key}` };
  let easel = await start(dataDir);
  const first = await fetch(`${easel.url}/v1/canvases/${canvas.id}/deploy`, { method: 'PUT', body: site(), headers: auth });
  const published = (await first.json()) as { versionId: string; publicationToken: string };

  const input: Zippable = { 'index.html': [new TextEncoder().encode('<h1>big</h1>'), { level: 0 }] };
  const hashes: string[] = [];
  for (let i = 0; i < 1999; i++) {
    const bytes = crypto.getRandomValues(new Uint8Array(30_000));
    hashes.push(sha256Hex(bytes));
    input[`f/${String(i).padStart(4, '0')}.bin`] = [bytes, { level: 0 }];
  }
  const zip = zipSync(input);
  const blobPath = (hash: string) => join(dataDir, 'blobs', hash.slice(0, 2), hash);

  const victim = easel;
  let killedAt = '';
  let answered = false;
  const watch = (async () => {
    // New blobs are renamed into place in archive order, only once the whole body is in: the first one marks the commit.
    while (!answered) {
      if (existsSync(blobPath(hashes[0]!))) {
        victim.proc.kill('SIGKILL');
        killedAt = `commit (${hashes.filter((h) => existsSync(blobPath(h))).length} of ${hashes.length} moved)`;
        return;
      }
      await Bun.sleep(0);
    }
  })();
  const outcome = await fetch(`${easel.url}/v1/canvases/${canvas.id}/deploy`, { method: 'PUT', body: zip, headers: auth }).then(
    async (res) => `status ${res.status} ${await res.text()}`,
    () => 'connection lost',
  );
  answered = true;
  await watch;
  expect(killedAt).toStartWith('commit');
  expect(await victim.exited).not.toBe(0);

  easel = await start(dataDir);
  if (outcome === 'connection lost') {
    // Killed before the version row: version 1 is live, the moved blobs are orphans nobody can see.
    await expectIntact(easel, dataDir, canvas, published, [1]);
    const listing = (await (await fetch(`${easel.url}/v1/canvases/${canvas.id}/files`, { headers: auth })).json()) as {
      files: Array<{ hash: string }>;
    };
    expect(listing.files.some((f) => hashes.includes(f.hash))).toBe(false);
  } else {
    // The kill came a hair too late: then the deploy is whole.
    const result = JSON.parse(outcome.slice('status 200 '.length)) as { versionId: string; publicationToken: string };
    await expectIntact(easel, dataDir, canvas, result, [2, 1]);
  }
  expect(await stopEasel(easel)).toBe(0);
}, 60_000);
