// passes: embedded, cluster
// Crash cycles on a cluster (issue 19 run again over issue 21): two server
// processes on one Postgres database, one S3 bucket and one Redis take the
// crash workload (ZIP deploys, staged uploads, KV increments, collection
// records, AI calls), each request going to the next node; a seeded point
// kills one of them with SIGKILL while the other keeps answering, and the
// killed node is started again. After each cycle: the live version is whole
// (every file's bytes match its hash, in the bucket too), no acknowledged
// increment, record or finished AI call is lost, and nothing the kill left
// is still held once the killed node runs again: it recognizes its earlier
// run as gone and settles that run's AI reservations and frees its finalize
// leases at start, as a lone server does. EASEL_CRASH_CYCLES cycles (default 10;
// `bun run stress` runs 50). Runs in the cluster pass (`bun run test:cluster`).
import { SQL } from 'bun';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { zipSync } from 'fflate';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic.ts';
import { ON_CLUSTER } from '../harness.ts';
import { startEasel, stopEasel, type Easel } from '../spawn.ts';
import { createTestDatabase } from '../support/postgres-server.ts';
import { createTestRedis } from '../support/redis-server.ts';
import { startS3Server, type S3TestServer } from '../support/s3-server.ts';
import { callAt, sha, workload, type CrashCanvas } from './crash-workload.ts';

const CYCLES = Number(process.env.EASEL_CRASH_CYCLES ?? 10);
const SEED = Number(process.env.EASEL_FUZZ_SEED ?? Date.now() % 2 ** 31);
const PREFIX = 'crash-cluster/';

interface Node {
  dataDir: string;
  easel: Easel | null;
  /** Its row in `nodes` (a new one at every start). */
  id: string;
}

describe.skipIf(!ON_CLUSTER)('crash cycles on two nodes (Postgres, S3, Redis)', () => {
  let fake: FakeAnthropic;
  let s3: S3TestServer;
  let db: SQL;
  let env: Record<string, string>;
  const nodes: Node[] = [];
  let cookie = '';
  let canvas: CrashCanvas;
  let turn = 0;

  async function start(node: Node): Promise<void> {
    node.easel = await startEasel({ env: { ...env, EASEL_DATA_DIR: node.dataDir } });
    // Nodes start one at a time: the newest row is this one's.
    const [row] = await db<{ id: string }[]>`SELECT id FROM nodes ORDER BY started_at DESC LIMIT 1`;
    node.id = row!.id;
  }

  const live = () => nodes.filter((n) => n.easel && n.easel.proc.exitCode === null && !n.easel.proc.killed);
  /** The next node in turn, dead or alive: a load balancer's view before its health check notices. */
  const next = () => nodes[turn++ % nodes.length]!.easel!.url;
  const call = (path: string, init: Parameters<typeof callAt>[3] = {}) => callAt(live()[0]!.easel!.url, cookie, path, init);

  beforeAll(async () => {
    fake = await startFakeAnthropic();
    s3 = await startS3Server('easel-crash-cluster');
    const databaseUrl = await createTestDatabase();
    db = new SQL({ url: databaseUrl, max: 2 });
    env = {
      EASEL_DATABASE_URL: databaseUrl,
      EASEL_REDIS_URL: await createTestRedis(),
      ...s3.env(PREFIX),
      EASEL_RATELIMIT_ENABLED: 'false',
      EASEL_AI_API_KEY: 'sk-ant-crash-cycles',
      EASEL_AI_BASE_URL: fake.url,
    };
    for (let i = 0; i < 2; i++) {
      const node: Node = { dataDir: mkdtempSync(join(tmpdir(), `easel-crash-node-${i}-`)), easel: null, id: '' };
      nodes.push(node);
      await start(node);
    }
    const login = await call('/auth/dev/login', { method: 'POST', json: { email: 'crash@example.com' } });
    cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    canvas = await (await call('/api/canvases', { method: 'POST', json: { title: 'Crash cycles on a cluster' } })).json();
    const runtime = await call(`/api/canvases/${canvas.id}/capabilities`, {
      method: 'PATCH',
      json: { ai: true, expectedRuntimePolicy: null, runtimePolicy: { collections: { notes: { preset: 'collaborative' } } } },
    });
    expect(runtime.status).toBe(200);
    process.stdout.write(`crash cycles on two nodes: ${CYCLES}, seed ${SEED} (replay with EASEL_FUZZ_SEED=${SEED})\n`);
  });

  afterAll(async () => {
    for (const node of nodes) {
      if (node.easel && node.easel.proc.exitCode === null) await stopEasel(node.easel);
      rmSync(node.dataDir, { recursive: true, force: true });
    }
    await db?.close();
    await fake?.close();
    await s3?.stop();
  });

  test(`${CYCLES} kill -9 cycles of one node: the other answers, nothing acknowledged is lost, nothing the kill left is held after the restart`, async () => {
    const first = await fetch(`${next()}/v1/canvases/${canvas.id}/deploy`, {
      method: 'PUT',
      body: zipSync({ 'index.html': new TextEncoder().encode('<h1>first</h1>') }),
      headers: { authorization: `Bearer ${canvas.apiKey}` },
    });
    expect(first.status).toBe(200);
    const plan = fc.sample(fc.tuple(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 1 })), { numRuns: CYCLES, seed: SEED });
    let ackedIncrements = 0;
    let ackedAiCalls = 0;
    const ackedRecords: string[] = [];
    let releasedReservations = 0;
    let releasedLeases = 0;
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const [killAfter, victimIndex] = plan[cycle]!;
      const victim = nodes[victimIndex]!;
      const survivor = nodes[1 - victimIndex]!;
      let acks = 0;
      let reached!: () => void;
      const point = new Promise<void>((resolve) => (reached = resolve));
      const load = workload({ base: next, cookie, canvas }, cycle, () => {
        if (++acks === killAfter) reached();
      });
      await point;
      victim.easel!.proc.kill('SIGKILL');
      await victim.easel!.exited;
      // The survivor goes on answering while its peer is down (the key list: the counter may not exist yet in cycle 0).
      const meanwhile = await callAt(survivor.easel!.url, cookie, `/v1/c/${canvas.slug}/kv`);
      expect({ cycle, status: meanwhile.status }).toEqual({ cycle, status: 200 });
      await load.stop();
      ackedIncrements += load.acked;
      ackedAiCalls += load.aiCalls;
      ackedRecords.push(...load.records);
      await start(victim);
      // What the restart found of the killed run, from its own log lines (JSON, level warn).
      for (const line of victim.easel!.stdout().split('\n')) {
        if (line.includes('ai: settled calls left running')) releasedReservations += Number(JSON.parse(line).count);
        if (line.includes('finalize leases left by a previous process')) releasedLeases += Number(JSON.parse(line).count);
      }

      // AI: every call a caller saw finish is settled, and the restart settled whatever the kill left reserved.
      const [{ reserved, ok }] = await db<[{ reserved: number; ok: number }]>`
        SELECT count(*) FILTER (WHERE state = 'reserved')::int AS reserved, count(*) FILTER (WHERE outcome = 'ok')::int AS ok FROM ai_calls`;
      expect({ cycle, reserved, settledAtLeastAcked: ok >= ackedAiCalls }).toEqual({ cycle, reserved: 0, settledAtLeastAcked: true });
      // Staged uploads: no finalize lease left held.
      const [{ held }] = await db<[{ held: number }]>`
        SELECT count(*)::int AS held FROM upload_sessions WHERE state = 'open' AND lease_until > 0`;
      expect({ cycle, heldLeases: held }).toEqual({ cycle, heldLeases: 0 });
      // Collections: every record whose creation was answered is there.
      const stored = new Set((await db<{ id: string }[]>`SELECT id FROM collection_records`).map((r) => r.id));
      expect({ cycle, lost: ackedRecords.filter((id) => !stored.has(id)) }).toEqual({ cycle, lost: [] });

      // The live version, read through either node: every file whole, and in the bucket by its hash.
      const key = { authorization: `Bearer ${canvas.apiKey}` };
      for (const node of nodes) {
        const listing = (await (await fetch(`${node.easel!.url}/v1/canvases/${canvas.id}/files`, { headers: key })).json()) as {
          files: Array<{ path: string; hash: string; size: number }>;
        };
        for (const f of listing.files) {
          const res = await fetch(`${node.easel!.url}/v1/canvases/${canvas.id}/files?path=${encodeURIComponent(f.path)}`, { headers: key });
          const bytes = new Uint8Array(await res.arrayBuffer());
          const object = s3.client.file(`${PREFIX}${f.hash}`);
          const inBucket = (await object.exists()) && sha(await object.bytes()) === f.hash;
          expect({ cycle, path: f.path, whole: sha(bytes) === f.hash && bytes.byteLength === f.size, inBucket }).toEqual({
            cycle,
            path: f.path,
            whole: true,
            inBucket: true,
          });
        }
      }
      const count = (await (await call(`/v1/c/${canvas.slug}/kv/count`)).json()) as { value?: number };
      expect({ cycle, enough: (count.value ?? 0) >= ackedIncrements }).toEqual({ cycle, enough: true });
    }
    process.stdout.write(
      `crash cycles on two nodes: ${CYCLES} kills; after them ${ackedIncrements} acknowledged increments, ${ackedRecords.length} records and ${ackedAiCalls} AI calls, none lost; the restarts settled ${releasedReservations} AI reservation(s) and freed ${releasedLeases} finalize lease(s) of the killed runs\n`,
    );
  }, 600_000);
});
