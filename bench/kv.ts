// KV through the full HTTP pipeline: the real server as a child process
// (EASEL_RATELIMIT_ENABLED=false), a signed-in viewer, loopback, 32
// keep-alive connections each with one request in flight, 90% GET of shared
// keys / 10% PUT of per-viewer keys. Prints ops/s and latency percentiles.
//
//   bun bench/kv.ts            (BENCH_SECONDS=10, BENCH_CONNECTIONS=32, BENCH_LOG_LEVEL=info)
//   BENCH_CLUSTER=postgres bun bench/kv.ts
//                              two server processes on one Postgres, S3 bucket and Redis
//                              (real servers on loopback ports), the connections split across them
//
// The client is a minimal HTTP/1.1 writer/reader on raw sockets so the load
// generator costs as little CPU as possible next to the server.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/context.ts';
import { newId, newToken, sha256Hex } from '../src/ids.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = 2;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'info';
const SHARED_KEYS = 100;
const ROOT = join(import.meta.dir, '..');

const CLUSTER = process.env.BENCH_CLUSTER === 'postgres';
const dataDir = mkdtempSync(join(tmpdir(), 'easel-bench-kv-'));
const SLUG = 'bench';
const shared: Record<string, string> = CLUSTER ? await clusterEnv() : {};

// Seed: an owner, a viewer on the list, a canvas with shared keys.
{
  const ctx = await createContext(loadConfig({ EASEL_DATA_DIR: dataDir, EASEL_LOG_LEVEL: 'silent', ...shared }));
  const owner = await ctx.users.ensure('owner@bench.test', 'Owner');
  const viewer = await ctx.users.ensure('viewer@bench.test', 'Viewer');
  const now = Date.now();
  const canvas = await ctx.canvases.insert({
    id: newId(),
    slug: SLUG,
    title: 'bench',
    ownerId: owner.id,
    keyHash: sha256Hex(newToken()),
    publicationToken: newToken(),
    now,
  });
  await ctx.canvases.setMember(canvas.id, viewer.id, 'viewer', now);
  for (let i = 0; i < SHARED_KEYS; i++)
    await ctx.sql.run(
      "INSERT INTO kv (canvas_id, scope, owner_id, key, value, updated_at) VALUES (?1, 'shared', '', ?2, ?3, ?4)",
      canvas.id,
      `k${i}`,
      JSON.stringify({ n: i, label: `item ${i}`, tags: ['a', 'b'] }),
      now,
    );
  await ctx.sql.close();
}

/** One `easel serve` process; its port once it printed its start line. */
async function startServer(dir: string): Promise<{ process: Bun.Subprocess; port: number }> {
  const logFile = join(dir, 'server.log');
  const child = Bun.spawn([process.execPath, join(ROOT, 'src/main.ts'), 'serve'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      EASEL_DATA_DIR: dir,
      EASEL_PORT: '0',
      EASEL_RATELIMIT_ENABLED: 'false',
      EASEL_LOG_LEVEL: LOG_LEVEL,
      ...shared,
    },
    stdin: 'ignore',
    stdout: Bun.file(logFile),
    stderr: 'ignore',
  });
  for (let i = 0; i < 400; i++) {
    await Bun.sleep(25);
    const m = /listening on http:\/\/[^:]+:(\d+)/.exec(safeRead(logFile));
    if (m) return { process: child, port: Number(m[1]) };
  }
  throw new Error('server did not start');
}

const servers = [await startServer(dataDir)];
if (CLUSTER) servers.push(await startServer(mkdtempSync(join(tmpdir(), 'easel-bench-kv-b-'))));
const port = servers[0]!.port;

const login = await fetch(`http://127.0.0.1:${port}/auth/dev/login`, {
  method: 'POST',
  // The start line names EASEL_BASE_URL (http://localhost:<port>): the dashboard's origin, which sign-in needs.
  headers: { 'content-type': 'application/json', origin: `http://localhost:${port}` },
  body: JSON.stringify({ email: 'viewer@bench.test' }),
});
const cookie = login.headers.get('set-cookie')!.split(';')[0]!;

const getRequest = (i: number) => `GET /v1/c/${SLUG}/kv/k${i} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${cookie}\r\n\r\n`;
function putRequest(i: number): string {
  const body = JSON.stringify({ theme: i % 2 ? 'dark' : 'light', at: i });
  return `PUT /v1/c/${SLUG}/kv/user/pref${i % 50} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${cookie}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

interface Conn {
  socket: Bun.Socket<Conn>;
  buf: Buffer;
  sentAt: number;
  isPut: boolean;
}

let measuring = false;
let stopping = false;
const latencies: number[] = [];
let gets = 0;
let puts = 0;
let errors = 0;
let seq = 0;

function send(c: Conn): void {
  if (stopping) return;
  const n = seq++;
  c.isPut = n % 10 === 9;
  c.sentAt = performance.now();
  c.socket.write(c.isPut ? putRequest(n) : getRequest(n % SHARED_KEYS));
}

/** Consumes one complete response from the buffer, if there is one. */
function takeResponse(c: Conn): number | null {
  const end = c.buf.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const head = c.buf.subarray(0, end).toString('latin1');
  const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
  if (c.buf.length < end + 4 + length) return null;
  c.buf = c.buf.subarray(end + 4 + length);
  return Number(head.slice(9, 12));
}

const conns: Conn[] = [];
for (let i = 0; i < CONNECTIONS; i++) {
  const conn = { buf: Buffer.alloc(0), sentAt: 0, isPut: false } as Conn;
  conn.socket = await Bun.connect<Conn>({
    hostname: '127.0.0.1',
    // On a cluster the connections alternate between the nodes, as a load balancer would spread them.
    port: servers[i % servers.length]!.port,
    data: conn,
    socket: {
      data(socket, data) {
        const c = socket.data;
        c.buf = c.buf.length ? Buffer.concat([c.buf, data]) : Buffer.from(data);
        const status = takeResponse(c);
        if (status === null) return;
        if (measuring) {
          latencies.push(performance.now() - c.sentAt);
          if (status !== 200) errors++;
          else if (c.isPut) puts++;
          else gets++;
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
const total = gets + puts;
console.log(
  JSON.stringify(
    {
      bench: CLUSTER ? 'kv over HTTP, two nodes on Postgres + S3 + Redis' : 'kv over HTTP (full runtime pipeline)',
      connections: CONNECTIONS,
      seconds: Number(elapsed.toFixed(2)),
      serverLogLevel: LOG_LEVEL,
      ops: total,
      opsPerSec: Math.round(total / elapsed),
      gets,
      puts,
      errors,
      latencyMs: { p50: pct(50), p90: pct(90), p99: pct(99), max: latencies[latencies.length - 1]!.toFixed(2) },
    },
    null,
    2,
  ),
);

for (const s of servers) s.process.kill('SIGTERM');
for (const s of servers) await s.process.exited;
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);

/** A fresh Postgres database, Redis and S3 prefix from the test suite's own servers (Debian's packages, s3rver). */
async function clusterEnv(): Promise<Record<string, string>> {
  const { createTestDatabase } = await import('../test/support/postgres-server.ts');
  const { createTestRedis } = await import('../test/support/redis-server.ts');
  const { startS3Server } = await import('../test/support/s3-server.ts');
  const s3 = await startS3Server('easel-bench');
  return { EASEL_DATABASE_URL: await createTestDatabase(), EASEL_REDIS_URL: await createTestRedis(), ...s3.env('bench/') };
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
