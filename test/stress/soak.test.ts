// passes: embedded, cluster
// Soak (issue 19, a first part): a mixed workload against a real server
// process — page views, KV writes and reads, file uploads, realtime messages
// and deploys — counted in operations, not minutes (EASEL_SOAK_OPS, default
// 12,000; `bun run stress` 150,000), sampling the server's resident memory,
// open descriptors, WAL size and event-loop lag every tenth of the run. None
// may grow without bound: the last samples stay within a margin of the first.
// In the cluster pass (EASEL_TEST_CLUSTER=postgres) the same workload runs
// on two server processes sharing Postgres, S3 and Redis, requests
// alternating between them and realtime messages crossing from one to the
// other; each node is sampled (the WAL is the embedded engine's only).
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { readdirSync, readFileSync, statSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { ON_CLUSTER } from '../harness.ts';
import { startEasel, stopEasel, type Easel } from '../spawn.ts';
import { createTestDatabase } from '../support/postgres-server.ts';
import { createTestRedis } from '../support/redis-server.ts';
import { startS3Server, type S3TestServer } from '../support/s3-server.ts';

const OPS = Number(process.env.EASEL_SOAK_OPS ?? 12_000);
const METRICS_TOKEN = 'soak-metrics-token-0123456789abcdef';
const PUBLISH_EVERY = Math.max(10, Math.ceil(OPS / 90 / 10) * 10);
const dataDirs: string[] = [];
let nodes: Easel[] = [];
let turn = 0;
let s3: S3TestServer | null = null;
/** The next node in turn (the only one, embedded). */
const next = () => nodes[turn++ % nodes.length]!.url;
let cookie = '';
let canvas: { id: string; slug: string; apiKey: string };
const originOf = (base: string) => base.replace('127.0.0.1', 'localhost');

interface Sample {
  ops: number;
  /** The largest of the nodes'. */
  rssMb: number;
  fds: number;
  walMb: number;
  lagMs: number;
  perNode: string;
}

beforeAll(async () => {
  const shared: Record<string, string> = { EASEL_RATELIMIT_ENABLED: 'false', EASEL_METRICS_TOKEN: METRICS_TOKEN };
  if (ON_CLUSTER) {
    s3 = await startS3Server('easel-soak');
    Object.assign(shared, { EASEL_DATABASE_URL: await createTestDatabase(), EASEL_REDIS_URL: await createTestRedis(), ...s3.env('soak/') });
  }
  for (let i = 0; i < (ON_CLUSTER ? 2 : 1); i++) {
    dataDirs.push(mkdtempSync(join(tmpdir(), 'easel-soak-')));
    // One after the other: the first one migrates a shared database.
    nodes.push(await startEasel({ env: { ...shared, EASEL_DATA_DIR: dataDirs[i]! } }));
  }
  const base = next();
  const login = await fetch(`${base}/auth/dev/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: originOf(base) },
    body: JSON.stringify({ email: 'soak@example.com' }),
  });
  cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  canvas = await (
    await fetch(`${base}/api/canvases`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: originOf(base), cookie },
      body: JSON.stringify({ title: 'Soak' }),
    })
  ).json();
});
afterAll(async () => {
  for (const node of nodes) await stopEasel(node);
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  nodes = [];
  await s3?.stop();
});

async function sample(ops: number): Promise<Sample> {
  const each = await Promise.all(
    nodes.map(async (node, i) => {
      const pid = node.proc.pid;
      const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      const fds = readdirSync(`/proc/${pid}/fd`).length;
      let wal = 0;
      try {
        wal = statSync(join(dataDirs[i]!, 'easel.db-wal')).size;
      } catch {
        wal = 0;
      }
      const metrics = await (await fetch(`${node.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
      const lag = Number(/^easel_event_loop_lag_max_seconds (\S+)$/m.exec(metrics)?.[1] ?? 0);
      return { rssMb: rssKb / 1024, fds, walMb: wal / 1024 / 1024, lagMs: lag * 1000 };
    }),
  );
  const max = (f: (s: (typeof each)[number]) => number) => Math.max(...each.map(f));
  return {
    ops,
    rssMb: max((s) => s.rssMb),
    fds: max((s) => s.fds),
    walMb: max((s) => s.walMb),
    lagMs: max((s) => s.lagMs),
    perNode: each.map((s) => `RSS ${s.rssMb.toFixed(0)} MB, fds ${s.fds}, lag max ${s.lagMs.toFixed(1)} ms`).join(' | '),
  };
}

test(`${OPS} mixed operations: memory, descriptors and WAL stay bounded, every realtime message arrives once (lag is reported)`, async () => {
  const key = { authorization: `Bearer ${canvas.apiKey}` };
  await fetch(`${next()}/v1/canvases/${canvas.id}/deploy`, {
    method: 'PUT',
    body: zipSync({ 'index.html': new TextEncoder().encode('<h1>soak</h1>'), 'app.js': new TextEncoder().encode('x'.repeat(20_000)) }),
    headers: key,
  });
  /** Cookie and Origin as the signed-in browser sends them to that node. */
  const sessionAt = (base: string) => ({ cookie, origin: originOf(base) });
  // One realtime pair for the whole run: messages flow through the hub all along (on a cluster, from one node to the other).
  const open = (base: string) =>
    new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(`${base.replace('http', 'ws')}/v1/c/${canvas.slug}/realtime`, {
        headers: sessionAt(base),
      } as unknown as string[]);
      ws.onopen = () => resolve(ws);
      ws.onerror = () => reject(new Error('realtime did not open'));
    });
  const sender = await open(nodes[0]!.url);
  const receiver = await open(nodes[nodes.length - 1]!.url);
  let received = 0;
  let expected = Infinity;
  let allDelivered!: () => void;
  const delivered = new Promise<void>((resolve) => (allDelivered = resolve));
  receiver.onmessage = (e) => {
    if (String(e.data).includes('"type":"message"') && ++received >= expected) allDelivered();
  };
  const subscribed = (ws: WebSocket) =>
    new Promise<void>((resolve) => {
      const previous = ws.onmessage;
      ws.onmessage = (e) => {
        if (String(e.data).includes('"type":"subscribed"')) resolve();
        previous?.call(ws, e);
      };
      ws.send(JSON.stringify({ type: 'subscribe', channel: 'soak' }));
    });
  await subscribed(sender);
  await subscribed(receiver);

  const samples: Sample[] = [await sample(0)];
  const every = Math.max(1, Math.floor(OPS / 10));
  const failures: string[] = [];
  let published = 0;
  for (let op = 1; op <= OPS; op++) {
    const kind = op % 10;
    const base = next();
    const session = sessionAt(base);
    let res: Response | null = null;
    if (kind <= 3) res = await fetch(`${base}/c/${canvas.slug}/app.js`, { headers: session });
    else if (kind <= 5)
      res = await fetch(`${base}/v1/c/${canvas.slug}/kv/k${op % 200}`, {
        method: 'PUT',
        headers: { ...session, 'content-type': 'application/json' },
        body: JSON.stringify({ op }),
      });
    // The key the previous operation wrote.
    else if (kind === 6) res = await fetch(`${base}/v1/c/${canvas.slug}/kv/k${(op - 1) % 200}`, { headers: session });
    // 90 messages spread over the run: within realtime's 100 publishes a minute per connection however long it takes.
    else if (kind === 7 && op % PUBLISH_EVERY === 7) {
      sender.send(JSON.stringify({ type: 'publish', channel: 'soak', data: { op } }));
      published++;
    } else if (kind === 8 && op % 50 === 8) {
      const form = new FormData();
      form.append('file', new Blob([`file ${op}`]), `f${op}.txt`);
      res = await fetch(`${base}/v1/c/${canvas.slug}/files`, { method: 'POST', headers: session, body: form });
    } else if (kind === 9 && op % 500 === 9) {
      res = await fetch(`${base}/v1/canvases/${canvas.id}/deploy`, {
        method: 'PUT',
        body: zipSync({
          'index.html': new TextEncoder().encode(`<h1>soak ${op}</h1>`),
          'app.js': new TextEncoder().encode('x'.repeat(20_000)),
        }),
        headers: key,
      });
    }
    if (res) {
      await res.arrayBuffer();
      if (res.status >= 400 && failures.length < 5) failures.push(`${res.status} ${res.url}`);
    }
    if (op % every === 0) samples.push(await sample(op));
  }
  // Every message reaches the other socket, once.
  expected = published;
  if (received >= expected) allDelivered();
  await delivered;
  sender.close();
  receiver.close();
  process.stdout.write(
    `soak${ON_CLUSTER ? ' on two nodes (Postgres, S3, Redis)' : ''}: ${OPS} operations (${published} realtime messages, ${received} delivered)\n` +
      samples
        .map(
          (s) =>
            `  ${String(s.ops).padStart(7)} ops: ${ON_CLUSTER ? s.perNode : `RSS ${s.rssMb.toFixed(0)} MB, fds ${s.fds}, WAL ${s.walMb.toFixed(1)} MB, lag max ${s.lagMs.toFixed(1)} ms`}`,
        )
        .join('\n') +
      '\n',
  );
  expect(failures).toEqual([]);
  expect(received).toBe(published);
  // Unbounded growth shows as the late samples pulling away from the early ones (after warm-up).
  const early = samples.slice(1, 4);
  const late = samples.slice(-3);
  const avg = (xs: Sample[], f: (s: Sample) => number) => xs.reduce((n, s) => n + f(s), 0) / xs.length;
  expect(avg(late, (s) => s.rssMb)).toBeLessThan(avg(early, (s) => s.rssMb) * 1.5 + 64);
  expect(avg(late, (s) => s.fds)).toBeLessThan(avg(early, (s) => s.fds) + 32);
  // SQLite checkpoints the WAL as it goes (default 1,000 pages): it must not keep growing.
  expect(Math.max(...samples.map((s) => s.walMb))).toBeLessThan(64);
}, 600_000);
