// A real server process killed with SIGKILL in the middle of a 60 MB deploy:
// after a restart on the same data directory the live version, the version
// list and the database are intact, and the spool is empty.
import { Database } from 'bun:sqlite';
import { afterAll, expect, test } from 'bun:test';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/context.ts';
import { newId, newToken, randomBase62, sha256Hex } from '../src/ids.ts';
import { rawZip, site } from './deploy-fixtures.ts';
import { startEasel, stopEasel, type Easel } from './spawn.ts';

const MiB = 1024 * 1024;
const work = mkdtempSync(join(tmpdir(), 'easel-crash-'));
const dataDir = join(work, 'data');
const running: Easel[] = [];

afterAll(async () => {
  for (const e of running) if (e.proc.exitCode === null && !e.proc.killed) await stopEasel(e);
  rmSync(work, { recursive: true, force: true });
});

function createCanvas(): { id: string; key: string } {
  const ctx = createContext(loadConfig({ EASEL_DATA_DIR: dataDir }));
  const owner = ctx.users.ensure('crash@example.test', 'Crash');
  const key = 'easel_sk_' + randomBase62(40);
  const id = newId();
  ctx.canvases.insert({ id, slug: 'crash', title: 'Crash', ownerId: owner.id, keyHash: sha256Hex(key), publicationToken: newToken(), now: Date.now() });
  ctx.db.close();
  return { id, key };
}

async function start(): Promise<Easel> {
  const e = await startEasel({ env: { EASEL_DATA_DIR: dataDir, EASEL_LOG_LEVEL: 'warn' } });
  running.push(e);
  return e;
}

test('kill -9 mid-upload leaves the live version and the database intact', async () => {
  const canvas = createCanvas();
  const auth = { authorization: `Bearer ${canvas.key}` };
  let easel = await start();
  const first = await fetch(`${easel.url}/v1/canvases/${canvas.id}/deploy?releaseId=v1`, { method: 'PUT', body: site(), headers: auth });
  expect(first.status).toBe(200);
  const published = (await first.json()) as { versionId: string; publicationToken: string };

  // A 60 MB archive, streamed; the server is killed once half of it is out.
  const big = rawZip([0, 1, 2].map((i) => ({ name: `part${i}.bin`, content: new Uint8Array(20 * MiB).fill(i + 1), method: 0 as const })));
  expect(big.byteLength).toBeGreaterThan(60 * MiB);
  let sent = 0;
  let killed = false;
  const victim = easel;
  const body = new ReadableStream<Uint8Array>({
    pull(ctl) {
      if (sent >= big.byteLength) return ctl.close();
      if (!killed && sent >= 30 * MiB) {
        killed = true;
        victim.proc.kill('SIGKILL');
      }
      const chunk = big.subarray(sent, sent + 256 * 1024);
      sent += chunk.byteLength;
      ctl.enqueue(chunk);
    },
  });
  const outcome = await fetch(`${easel.url}/v1/canvases/${canvas.id}/deploy`, { method: 'PUT', body, headers: auth, duplex: 'half' } as RequestInit).then(
    (res) => `status ${res.status}`,
    () => 'connection lost',
  );
  expect(killed).toBe(true);
  expect(outcome).toBe('connection lost');
  expect(await victim.exited).not.toBe(0);

  // The spool of the dead upload is on disk until the restart clears it.
  expect(readdirSync(join(dataDir, 'tmp', 'deploy')).filter((n) => n.startsWith('body-'))).toHaveLength(1);
  easel = await start();
  expect(readdirSync(join(dataDir, 'tmp', 'deploy'))).toEqual([]);
  const view = (await (await fetch(`${easel.url}/v1/canvases/${canvas.id}`, { headers: auth })).json()) as Record<string, unknown>;
  expect(view).toMatchObject({ publicationState: 'published', currentVersionId: published.versionId, publicationToken: published.publicationToken });
  const versions = (await (await fetch(`${easel.url}/v1/canvases/${canvas.id}/versions`, { headers: auth })).json()) as { versions: Array<{ number: number }> };
  expect(versions.versions.map((v) => v.number)).toEqual([1]);
  const file = await fetch(`${easel.url}/v1/canvases/${canvas.id}/files?path=index.html`, { headers: auth });
  expect(await file.text()).toBe('<h1>hi</h1>');

  const db = new Database(join(dataDir, 'easel.db'), { readonly: true });
  expect(db.query<{ integrity_check: string }, []>('PRAGMA integrity_check').all()).toEqual([{ integrity_check: 'ok' }]);
  expect(db.query<{ n: number }, []>('SELECT COUNT(*) AS n FROM versions').get()!.n).toBe(1);
  db.close();

  // And the service carries on: the next deploy is version 2.
  const next = await fetch(`${easel.url}/v1/canvases/${canvas.id}/deploy`, { method: 'PUT', body: site({ 'v2.js': '2' }), headers: auth });
  expect(((await next.json()) as { version: number }).version).toBe(2);
  expect(await stopEasel(easel)).toBe(0);
}, 60_000);
