// passes: embedded, s3
// Crash cycles (issue 19 item 1): a real server process takes ZIP deploys,
// staged uploads, KV increments, collection writes and AI calls (against the
// fake Anthropic API, settled as they finish) at once and is killed with
// SIGKILL at a point chosen by a seeded generator (after k acknowledged
// writes); restarted on the same data directory, the database passes
// PRAGMA integrity_check, the live version is whole (every file's bytes match
// its hash), no acknowledged increment, record or settled AI call is lost,
// no AI reservation is left dangling and no finalize lease is left held.
// EASEL_CRASH_CYCLES cycles (default 10; `bun run stress` runs 50).
import { Database } from 'bun:sqlite';
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { zipSync } from 'fflate';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic.ts';
import { startEasel, stopEasel, type Easel } from '../spawn.ts';
import { startS3Server } from '../support/s3-server.ts';
import { callAt, sha, workload, type CallInit, type CrashCanvas } from './crash-workload.ts';

const CYCLES = Number(process.env.EASEL_CRASH_CYCLES ?? 10);
const SEED = Number(process.env.EASEL_FUZZ_SEED ?? Date.now() % 2 ** 31);
const dataDir = mkdtempSync(join(tmpdir(), 'easel-crash-cycles-'));
let fake: FakeAnthropic;
const env: Record<string, string> = { EASEL_DATA_DIR: dataDir, EASEL_RATELIMIT_ENABLED: 'false', EASEL_AI_API_KEY: 'sk-ant-crash-cycles' };
// `bun run test:s3`: the same kills with every blob going to a real S3-compatible server; the live files must be whole there too.
const s3 = process.env.EASEL_TEST_BLOBS === 's3' ? await startS3Server('easel-crash') : null;
if (s3) Object.assign(env, s3.env('crash/'));
let easel: Easel | null = null;
let base = '';
let cookie = '';
let canvas: CrashCanvas;

async function start(): Promise<void> {
  easel = await startEasel({ env });
  base = easel.url;
}

function call(path: string, init: CallInit = {}): Promise<Response> {
  return callAt(base, cookie, path, init);
}

beforeAll(async () => {
  fake = await startFakeAnthropic();
  env.EASEL_AI_BASE_URL = fake.url;
  await start();
  const login = await call('/auth/dev/login', { method: 'POST', json: { email: 'crash@example.com' } });
  cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  canvas = await (await call('/api/canvases', { method: 'POST', json: { title: 'Crash cycles' } })).json();
  const runtime = await call(`/api/canvases/${canvas.id}/capabilities`, {
    method: 'PATCH',
    json: { ai: true, expectedRuntimePolicy: null, runtimePolicy: { collections: { notes: { preset: 'collaborative' } } } },
  });
  expect(runtime.status).toBe(200);
  process.stdout.write(`crash cycles: ${CYCLES}, seed ${SEED} (replay with EASEL_FUZZ_SEED=${SEED})\n`);
});
afterAll(async () => {
  if (easel && easel.proc.exitCode === null) await stopEasel(easel);
  await fake.close();
  await s3?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test(`${CYCLES} kill -9 cycles leave a whole live version, every acknowledged increment and a sound database`, async () => {
  // Publish once so there is a live version to protect.
  await fetch(`${base}/v1/canvases/${canvas.id}/deploy`, {
    method: 'PUT',
    body: zipSync({ 'index.html': new TextEncoder().encode('<h1>first</h1>') }),
    headers: { authorization: `Bearer ${canvas.apiKey}` },
  });
  const killAfter = fc.sample(fc.integer({ min: 1, max: 40 }), { numRuns: CYCLES, seed: SEED });
  let ackedIncrements = 0;
  let ackedAiCalls = 0;
  const ackedRecords: string[] = [];
  for (let cycle = 0; cycle < CYCLES; cycle++) {
    // The kill point: after a seeded number of acknowledged writes of any kind.
    let acks = 0;
    let reached!: () => void;
    const point = new Promise<void>((resolve) => (reached = resolve));
    const load = workload({ base: () => base, cookie, canvas }, cycle, () => {
      if (++acks === killAfter[cycle]) reached();
    });
    await point;
    easel!.proc.kill('SIGKILL');
    await easel!.exited;
    await load.stop();
    ackedIncrements += load.acked;
    ackedAiCalls += load.aiCalls;
    ackedRecords.push(...load.records);

    await start();
    const db = new Database(join(dataDir, 'easel.db'), { readonly: true });
    try {
      expect(db.query<{ integrity_check: string }, []>('PRAGMA integrity_check').get()!.integrity_check).toBe('ok');
      const leases = db
        .query<{ n: number }, []>("SELECT count(*) AS n FROM upload_sessions WHERE lease_until > 0 AND state = 'open'")
        .get();
      expect({ cycle, heldLeases: leases?.n ?? 0 }).toEqual({ cycle, heldLeases: 0 });
      // AI: every call a caller saw finish is settled, and recovery settled whatever the kill left reserved.
      const ai = db
        .query<{ reserved: number; ok: number }, []>("SELECT sum(state = 'reserved') AS reserved, sum(outcome = 'ok') AS ok FROM ai_calls")
        .get()!;
      expect({ cycle, reserved: ai.reserved ?? 0, settledAtLeastAcked: (ai.ok ?? 0) >= ackedAiCalls }).toEqual({
        cycle,
        reserved: 0,
        settledAtLeastAcked: true,
      });
      // Collections: every record whose creation was answered is there.
      const stored = new Set(
        db
          .query<{ id: string }, []>('SELECT id FROM collection_records')
          .all()
          .map((r) => r.id),
      );
      expect({ cycle, lost: ackedRecords.filter((id) => !stored.has(id)) }).toEqual({ cycle, lost: [] });
    } finally {
      db.close();
    }
    const listing = (await (
      await fetch(`${base}/v1/canvases/${canvas.id}/files`, { headers: { authorization: `Bearer ${canvas.apiKey}` } })
    ).json()) as {
      files: Array<{ path: string; hash: string; size: number }>;
    };
    for (const f of listing.files) {
      const bytes = new Uint8Array(
        await (
          await fetch(`${base}/v1/canvases/${canvas.id}/files?path=${encodeURIComponent(f.path)}`, {
            headers: { authorization: `Bearer ${canvas.apiKey}` },
          })
        ).arrayBuffer(),
      );
      expect({ cycle, path: f.path, whole: sha(bytes) === f.hash && bytes.byteLength === f.size }).toEqual({
        cycle,
        path: f.path,
        whole: true,
      });
      if (s3) {
        const stored = s3.client.file(`crash/${f.hash}`);
        const inBucket = (await stored.exists()) && sha(await stored.bytes()) === f.hash;
        expect({ cycle, path: f.path, inBucket }).toEqual({ cycle, path: f.path, inBucket: true });
      }
    }
    const count = (await (await call(`/v1/c/${canvas.slug}/kv/count`)).json()) as { value?: number };
    // An increment in flight at the kill may have landed unacknowledged; an acknowledged one is never lost.
    expect({ cycle, enough: (count.value ?? 0) >= ackedIncrements }).toEqual({ cycle, enough: true });
  }
  process.stdout.write(
    `crash cycles: ${CYCLES} kills; after them ${ackedIncrements} acknowledged increments, ${ackedRecords.length} records and ${ackedAiCalls} AI calls, none lost\n`,
  );
}, 600_000);
