// passes: embedded — starts its own Postgres, S3 and Redis
// Issue 21's cluster tests: two Easel nodes on one Postgres database, one S3
// bucket and one Redis (real servers), requests spread across them. What one
// node does, the other serves and enforces: a deploy, a deletion, a race of
// increments, a revoked session or token. Nothing waits on a clock: a node
// "hears" a change when its Postgres change signal moves.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ClusterStartError } from '../src/cluster/node-registry.ts';
import { UploadStore } from '../src/deploy/upload/store.ts';
import { AiCallStore } from '../src/runtime/ai/store.ts';
import { body, startTestApp, type TestApp } from './harness.ts';
import { zipOf } from './deploy-fixtures.ts';
import { startEasel, stopEasel } from './spawn.ts';
import { startPgCluster, type PgCluster } from './support/pg-cluster.ts';

/** Resolves once `node` has heard of a change committed after `mark` (its signal moved past it). */
async function heard(node: TestApp, mark: number): Promise<void> {
  while (node.ctx.sql.changes.current() === mark) await node.ctx.sql.changes.next();
}

describe('two nodes on Postgres, S3 and Redis', () => {
  let cluster: PgCluster;
  let a: TestApp;
  let b: TestApp;
  let owner: string;
  beforeAll(async () => {
    cluster = await startPgCluster();
    ({ a, b } = cluster);
    owner = await a.signIn('owner@example.com', 'Owner');
    // Both nodes listen before anything is cached (nothing is until their LISTEN is acknowledged).
    for (const node of [a, b]) while (!node.ctx.sql.changes.storable()) await node.ctx.sql.changes.next();
  });
  afterAll(() => cluster.close());

  async function newCanvas(title: string): Promise<{ id: string; slug: string; apiKey: string }> {
    const res = await a.request('/api/canvases', { method: 'POST', cookie: owner, json: { title } });
    expect(res.status).toBe(201);
    return body(res);
  }

  test('both nodes report the shared backends', async () => {
    for (const node of [a, b]) {
      const health = await body(await node.request('/healthz'));
      expect(health.backends).toMatchObject({ database: 'postgres' });
    }
  });

  test('a deploy through node A is served by node B, from the shared bucket', async () => {
    const c = await newCanvas('Deployed on A');
    const deployed = await a.request(`/v1/canvases/${c.id}/deploy`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${c.apiKey}`, 'content-type': 'application/zip' },
      body: zipOf({ 'index.html': '<h1>from node A</h1>', 'app.js': 'console.log(1)' }),
    });
    expect(deployed.status).toBe(200);
    const page = await b.request(`/c/${c.slug}/`, { cookie: owner });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<h1>from node A</h1>');
    // B never saw the bytes arrive: they came from the bucket.
    expect((await b.request(`/c/${c.slug}/app.js`, { cookie: owner })).status).toBe(200);
  });

  test('a canvas deleted on A answers 404 on B as soon as B hears (B had it in memory)', async () => {
    const c = await newCanvas('Deleted on A');
    await a.request(`/v1/canvases/${c.id}/deploy`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${c.apiKey}` },
      body: zipOf({ 'index.html': '<p>soon gone</p>' }),
    });
    expect((await b.request(`/c/${c.slug}/`, { cookie: owner })).status).toBe(200); // now held by B
    const mark = b.ctx.sql.changes.current();
    expect((await a.request(`/api/canvases/${c.id}`, { method: 'DELETE', cookie: owner })).status).toBe(200);
    await heard(b, mark);
    expect((await b.request(`/c/${c.slug}/`, { cookie: owner })).status).toBe(404);
  });

  test('fifty increments of one key spread over both nodes lose nothing', async () => {
    const c = await newCanvas('Counting');
    const hits = Array.from({ length: 50 }, (_, i) =>
      (i % 2 ? a : b).request(`/v1/c/${c.slug}/kv/visits/increment`, { method: 'POST', cookie: owner, json: { by: 1 } }),
    );
    const answers = await Promise.all(hits);
    expect(answers.map((r) => r.status)).toEqual(Array(50).fill(200));
    const values = (await Promise.all(answers.map(body))).map((v) => v.value).sort((x, y) => x - y);
    expect(values).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect((await body(await a.request(`/v1/c/${c.slug}/kv/visits`, { cookie: owner }))).value).toBe(50);
  });

  test('a NUL in a slug or a key (text Postgres cannot hold) is never a 500: 401 for the unknown slug, 400 INVALID_BODY for the key (as embedded)', async () => {
    for (const node of [a, b]) expect((await node.request('/v1/c/%00/kv/x')).status).toBe(401);
    const c = await newCanvas('Nul');
    for (const node of [a, b]) {
      const res = await node.request(`/v1/c/${c.slug}/kv/a%00b`, { method: 'PUT', cookie: owner, json: 1 });
      expect({ status: res.status, code: (await body(res)).code }).toEqual({ status: 400, code: 'INVALID_BODY' });
    }
  });

  test('a session signed out on A is refused on B once B hears (B had it in memory)', async () => {
    const cookie = await a.signIn('leaving@example.com');
    expect((await b.request('/api/me', { cookie })).status).toBe(200); // held by B now
    const mark = b.ctx.sql.changes.current();
    expect((await a.request('/auth/logout', { method: 'POST', cookie })).status).toBeLessThan(400);
    await heard(b, mark);
    expect((await b.request('/api/me', { cookie })).status).toBe(401);
  });

  test('a personal token revoked on A is refused on B', async () => {
    const made = await body(await a.request('/api/tokens', { method: 'POST', cookie: owner, json: { name: 'ci' } }));
    const auth = { authorization: `Bearer ${made.token}` };
    expect((await b.request('/api/canvases', { headers: auth })).status).toBe(200);
    expect((await a.request(`/api/tokens/${made.id}`, { method: 'DELETE', cookie: owner })).status).toBe(200);
    expect((await b.request('/api/canvases', { headers: auth })).status).toBe(401);
  });
});

describe('Postgres without Redis', () => {
  let env: Record<string, string>;
  beforeAll(async () => {
    // A database, bucket and Redis of their own, the nodes stopped: each test starts what it needs.
    const empty = await startPgCluster();
    env = empty.env;
    await empty.close();
  });
  const without = () => Object.fromEntries(Object.entries(env).filter(([k]) => k !== 'EASEL_REDIS_URL'));

  test('runs as one node: a second node is refused with one line, and one may start once the first stopped', async () => {
    const alone = await startTestApp({ env: without() });
    try {
      const refused = await startTestApp({ env: without() }).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(ClusterStartError);
      expect((refused as Error).message).toContain('set EASEL_REDIS_URL on every node to run more than one');
    } finally {
      await alone.close();
    }
    // The first node left the database's nodes when it stopped: the next one starts.
    const next = await startTestApp({ env: without() });
    await next.close();
  });

  test('a node with Redis is refused while a node without it runs alone on the database', async () => {
    const alone = await startTestApp({ env: without() });
    try {
      const refused = await startTestApp({ env }).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(ClusterStartError);
      expect((refused as Error).message).toContain('restart it with EASEL_REDIS_URL before adding nodes');
    } finally {
      await alone.close();
    }
  });

  test('a node killed with kill -9 starts again at once on its data directory (its earlier run is recognized as gone)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'easel-pg-restart-'));
    try {
      const first = await startEasel({ env: { ...without(), EASEL_DATA_DIR: dataDir } });
      first.proc.kill('SIGKILL');
      await first.exited;
      // Its heartbeat row is still fresh: without recognizing it as this node's own dead run, this start was refused for 30 s.
      const again = await startEasel({ env: { ...without(), EASEL_DATA_DIR: dataDir, EASEL_LOG_LEVEL: 'warn' } });
      await again.printed(/an earlier run of this node stopped without leaving/);
      await stopEasel(again);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('an earlier run of a node that never left', () => {
  let env: Record<string, string>;
  let first: TestApp;
  const dataDir = mkdtempSync(join(tmpdir(), 'easel-pg-earlier-run-'));
  let deadPid = 0;
  beforeAll(async () => {
    const empty = await startPgCluster();
    env = empty.env;
    await empty.close();
    first = await startTestApp({ env });
    // A pid no process has now: one that ran and exited.
    const gone = Bun.spawn(['true']);
    await gone.exited;
    deadPid = gone.pid;
  });
  afterAll(async () => {
    await first.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A run of a node at this host, holding an AI reservation and a finalize lease, with a fresh heartbeat. */
  async function earlierRun(id: string, dir: string, pid: number): Promise<{ callId: string; uploadId: string }> {
    const sql = first.ctx.sql;
    const now = Date.now();
    await sql.run(
      'INSERT INTO nodes (id, started_at, heartbeat_at, with_redis, host, data_dir, pid) VALUES (?1, ?2, ?2, 1, ?3, ?4, ?5)',
      id,
      now,
      hostname(),
      resolve(dir),
      pid,
    );
    const owner = await first.signIn(`${id}@example.com`);
    const canvas = await body(await first.request('/api/canvases', { method: 'POST', cookie: owner, json: { title: id } }));
    const callId = `call-${id}`;
    await new AiCallStore(sql, id).reserve(
      {
        id: callId,
        canvasId: canvas.id,
        actorId: canvas.id,
        actorKind: 'member',
        model: 'm',
        reservedUsd: 0.01,
        day: '2026-11-27',
        month: '2026-11',
        createdAt: now,
      },
      () => {},
    );
    const page = new TextEncoder().encode('<h1>staged</h1>');
    const begun = await body(
      await first.request(`/v1/canvases/${canvas.id}/uploads`, {
        method: 'POST',
        headers: { authorization: `Bearer ${canvas.apiKey}` },
        json: {
          manifest: [{ path: 'index.html', hash: new Bun.CryptoHasher('sha256').update(page).digest('hex'), size: page.byteLength }],
        },
      }),
    );
    expect(await new UploadStore(sql).takeLease(begun.uploadId, now, now + 60_000, id)).toBe(true);
    return { callId, uploadId: begun.uploadId };
  }

  const stateOf = async (run: { callId: string; uploadId: string }) => ({
    call: (await first.ctx.sql.get<{ state: string }>('SELECT state FROM ai_calls WHERE id = ?1', run.callId))!.state,
    leased:
      Number(
        (await first.ctx.sql.get<{ lease_until: number }>('SELECT lease_until FROM upload_sessions WHERE id = ?1', run.uploadId))!
          .lease_until,
      ) > 0,
  });

  test('a node started on its data directory releases its reservation and its finalize lease at once; those of a live process are kept', async () => {
    const dead = await earlierRun('earlier-dead', dataDir, deadPid);
    // Same host and data directory, but its process runs (this test's parent): not this node's run, whatever it is.
    const alive = await earlierRun('earlier-alive', dataDir, process.ppid);
    const node = await startTestApp({ env, dataDir });
    try {
      expect(await stateOf(dead)).toEqual({ call: 'settled', leased: false });
      expect(await stateOf(alive)).toEqual({ call: 'reserved', leased: true });
      const rows = (await first.ctx.sql.all<{ id: string }>('SELECT id FROM nodes ORDER BY id')).map((r) => r.id);
      expect(rows).not.toContain('earlier-dead');
      expect(rows).toContain('earlier-alive');
    } finally {
      await node.close();
    }
  });
});
