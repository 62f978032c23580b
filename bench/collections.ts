// Collections through the full HTTP pipeline, against KV measured in the
// same run on the same server: the real server as a child process
// (EASEL_RATELIMIT_ENABLED=false), a canvas whose policy holds 50
// collections, loopback, keep-alive connections each with one request in
// flight and its own signed-in viewer. The connections are spread over four
// such canvases, so the creates stay under the per-canvas record quota.
//   KV phase:          90% GET of shared keys / 10% PUT of per-viewer keys (bench/kv.ts's mix)
//   collections phase: 90% list (limit 20) or GET of one record / 10% POST (create)
// Prints ops/s and latency percentiles of both, and collections as a share of KV
// (issue 15's target: at least 80%), in the median of alternating rounds.
//
//   bun bench/collections.ts   (BENCH_ROUNDS=3 of BENCH_SECONDS=5 per phase, BENCH_CONNECTIONS=32, BENCH_LOG_LEVEL=info)
//
// The client is a minimal HTTP/1.1 writer/reader on raw sockets so the load
// generator costs as little CPU as possible next to the server.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { createCore } from '../src/foundation.ts';
import { newId, newToken, sha256Hex } from '../src/ids.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP_SECONDS = 2;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'info';
const SHARED_KEYS = 100;
const SEEDED_RECORDS = 100;
const COLLECTIONS = 50;
const PRESETS = ['personal', 'submissions', 'contributions', 'managed', 'collaborative'];
const ROOT = join(import.meta.dir, '..');
const CANVASES = 4;
const SLUGS = Array.from({ length: CANVASES }, (_, i) => `bench-${i}`);

const dataDir = mkdtempSync(join(tmpdir(), 'easel-bench-collections-'));
const recordIds: string[] = [];

for (let i = 0; i < SEEDED_RECORDS; i++) recordIds.push(`000000000${String(i).padStart(11, '0')}`);

// Seed: an owner, one viewer per connection, canvases with shared keys, a 50-entry policy and records in `c0`.
{
  const ctx = await createCore(loadConfig({ EASEL_DATA_DIR: dataDir, EASEL_LOG_LEVEL: 'silent' }));
  const owner = await ctx.users.ensure('owner@bench.test', 'Owner');
  const viewers: string[] = [];
  for (let i = 0; i < CONNECTIONS; i++) viewers.push((await ctx.users.ensure(`viewer${i}@bench.test`)).id);
  const now = Date.now();
  const collections = Object.fromEntries(
    Array.from({ length: COLLECTIONS }, (_, i) => [`c${i}`, { preset: i === 0 ? 'contributions' : PRESETS[i % PRESETS.length] }]),
  );
  const put = ctx.db!.query("INSERT INTO kv (canvas_id, scope, owner_id, key, value, updated_at) VALUES (?, 'shared', '', ?, ?, ?)");
  const record = ctx.db!.query(
    "INSERT INTO collection_records (canvas_id, collection, id, author_id, value, updated_at) VALUES (?, 'c0', ?, ?, ?, ?)",
  );
  const item = (i: number) => JSON.stringify({ n: i, label: `item ${i}`, tags: ['a', 'b'] });
  for (const slug of SLUGS) {
    const canvas = await ctx.canvases.insert({
      id: newId(),
      slug,
      title: slug,
      ownerId: owner.id,
      keyHash: sha256Hex(newToken()),
      publicationToken: newToken(),
      now,
    });
    for (const viewer of viewers) await ctx.canvases.setMember(canvas.id, viewer, 'viewer', now);
    ctx
      .db!.query('UPDATE canvases SET runtime_policy = ?, runtime_policy_revision = ? WHERE id = ?')
      .run(JSON.stringify({ collections }), newToken(), canvas.id);
    for (let i = 0; i < SHARED_KEYS; i++) put.run(canvas.id, `k${i}`, item(i), now);
    recordIds.forEach((id, i) => record.run(canvas.id, id, owner.id, item(i), now));
  }
  ctx.db!.close();
}

const logFile = join(dataDir, 'server.log');
const server = Bun.spawn([process.execPath, join(ROOT, 'src/main.ts'), 'serve'], {
  cwd: ROOT,
  env: {
    PATH: process.env.PATH ?? '',
    EASEL_DATA_DIR: dataDir,
    EASEL_PORT: '0',
    EASEL_RATELIMIT_ENABLED: 'false',
    EASEL_LOG_LEVEL: LOG_LEVEL,
  },
  stdin: 'ignore',
  stdout: Bun.file(logFile),
  stderr: 'ignore',
});

let port = 0;
for (let i = 0; i < 200 && !port; i++) {
  await Bun.sleep(25);
  const m = /listening on http:\/\/[^:]+:(\d+)/.exec(safeRead(logFile));
  if (m) port = Number(m[1]);
}
if (!port) throw new Error('server did not start');

const cookies: string[] = [];
for (let i = 0; i < CONNECTIONS; i++) {
  const login = await fetch(`http://127.0.0.1:${port}/auth/dev/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: `http://localhost:${port}` },
    body: JSON.stringify({ email: `viewer${i}@bench.test` }),
  });
  cookies.push(login.headers.get('set-cookie')!.split(';')[0]!);
}

type Mix = (n: number, cookie: string, slug: string) => { request: string; write: boolean };

const withBody = (method: string, path: string, cookie: string, body: string) =>
  `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${cookie}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
const get = (path: string, cookie: string) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${cookie}\r\n\r\n`;

const kvMix: Mix = (n, cookie, slug) =>
  n % 10 === 9
    ? {
        request: withBody('PUT', `/v1/c/${slug}/kv/user/pref${n % 50}`, cookie, JSON.stringify({ theme: n % 2 ? 'dark' : 'light', at: n })),
        write: true,
      }
    : { request: get(`/v1/c/${slug}/kv/k${n % SHARED_KEYS}`, cookie), write: false };

const collectionsMix: Mix = (n, cookie, slug) => {
  const base = `/v1/c/${slug}/collections/c0`;
  if (n % 10 === 9)
    return { request: withBody('POST', base, cookie, JSON.stringify({ n, label: `item ${n}`, tags: ['a', 'b'] })), write: true };
  return { request: get(n % 2 ? `${base}?limit=20` : `${base}/${recordIds[n % SEEDED_RECORDS]}`, cookie), write: false };
};

interface Result {
  ops: number;
  opsPerSec: number;
  reads: number;
  writes: number;
  errors: number;
  latencyMs: { p50: string; p90: string; p99: string; max: string };
}

async function phase(mix: Mix): Promise<Result> {
  interface Conn {
    socket: Bun.Socket<Conn>;
    buf: Buffer;
    sentAt: number;
    write: boolean;
    cookie: string;
    slug: string;
  }
  let measuring = false;
  let stopping = false;
  const latencies: number[] = [];
  let reads = 0;
  let writes = 0;
  let errors = 0;
  let seq = 0;

  const send = (c: Conn) => {
    if (stopping) return;
    const next = mix(seq++, c.cookie, c.slug);
    c.write = next.write;
    c.sentAt = performance.now();
    c.socket.write(next.request);
  };
  const takeResponse = (c: Conn): number | null => {
    const end = c.buf.indexOf('\r\n\r\n');
    if (end < 0) return null;
    const head = c.buf.subarray(0, end).toString('latin1');
    const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
    if (c.buf.length < end + 4 + length) return null;
    c.buf = c.buf.subarray(end + 4 + length);
    return Number(head.slice(9, 12));
  };

  const conns: Conn[] = [];
  for (let i = 0; i < CONNECTIONS; i++) {
    const conn = { buf: Buffer.alloc(0), sentAt: 0, write: false, cookie: cookies[i]!, slug: SLUGS[i % CANVASES]! } as Conn;
    conn.socket = await Bun.connect<Conn>({
      hostname: '127.0.0.1',
      port,
      data: conn,
      socket: {
        data(socket, data) {
          const c = socket.data;
          c.buf = c.buf.length ? Buffer.concat([c.buf, data]) : Buffer.from(data);
          const status = takeResponse(c);
          if (status === null) return;
          if (measuring) {
            latencies.push(performance.now() - c.sentAt);
            if (status !== 200 && status !== 201) errors++;
            else if (c.write) writes++;
            else reads++;
          }
          send(c);
        },
        error() {
          errors++;
        },
      },
    });
    conns.push(conn);
  }

  for (const c of conns) send(c);
  await Bun.sleep(WARMUP_SECONDS * 1000);
  measuring = true;
  const started = performance.now();
  await Bun.sleep(SECONDS * 1000);
  measuring = false;
  const elapsed = (performance.now() - started) / 1000;
  stopping = true;
  for (const c of conns) c.socket.end();

  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((latencies.length * p) / 100))]!.toFixed(2);
  const ops = reads + writes;
  return {
    ops,
    opsPerSec: Math.round(ops / elapsed),
    reads,
    writes,
    errors,
    latencyMs: { p50: pct(50), p90: pct(90), p99: pct(99), max: latencies[latencies.length - 1]!.toFixed(2) },
  };
}

// Alternating rounds: a slow moment of the machine hits both sides, and the median round is reported.
const rounds: Array<{ kv: Result; collections: Result; share: number }> = [];
for (let i = 0; i < ROUNDS; i++) {
  const kv = await phase(kvMix);
  const collections = await phase(collectionsMix);
  rounds.push({ kv, collections, share: Number((collections.opsPerSec / kv.opsPerSec).toFixed(2)) });
}
const median = [...rounds].sort((a, b) => a.share - b.share)[Math.floor(ROUNDS / 2)]!;
console.log(
  JSON.stringify(
    {
      bench: 'collections vs kv over HTTP (full runtime pipeline)',
      connections: CONNECTIONS,
      secondsPerPhase: SECONDS,
      rounds: ROUNDS,
      serverLogLevel: LOG_LEVEL,
      canvases: CANVASES,
      policyCollections: COLLECTIONS,
      kv: median.kv,
      collections: median.collections,
      sharePerRound: rounds.map((r) => r.share),
      collectionsShareOfKv: median.share,
    },
    null,
    2,
  ),
);

server.kill('SIGTERM');
await server.exited;
rmSync(dataDir, { recursive: true, force: true });

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
