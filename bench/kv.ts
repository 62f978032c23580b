// KV through the full HTTP pipeline: the real server as a child process
// (EASEL_RATELIMIT_ENABLED=false), a signed-in viewer, loopback, 32
// keep-alive connections each with one request in flight, 90% GET of shared
// keys / 10% PUT of per-viewer keys. Prints ops/s and latency percentiles.
//
//   bun bench/kv.ts            (BENCH_SECONDS=10, BENCH_CONNECTIONS=32, BENCH_LOG_LEVEL=info)
//   BENCH_EASEL_ROOT=<checkout> bun bench/kv.ts
//                              the server from another worktree (before/after in one session)
//   BENCH_CLUSTER=postgres bun bench/kv.ts
//                              two server processes on one Postgres, S3 bucket and Redis
//                              (real servers on loopback ports), the connections split across them
//
// The client is a minimal HTTP/1.1 writer/reader on raw sockets so the load
// generator costs as little CPU as possible next to the server.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { createCore } from '../src/foundation.ts';
import { clusterEnv, cpuSeconds, seedViewerCanvas, spawnEasel } from './support.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = 2;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'info';
const SHARED_KEYS = 100;

const CLUSTER = process.env.BENCH_CLUSTER === 'postgres';
const dataDir = mkdtempSync(join(tmpdir(), 'easel-bench-kv-'));
const SLUG = 'bench';
const cluster = CLUSTER ? await clusterEnv('easel-bench', 'bench/') : null;
const shared: Record<string, string> = cluster?.env ?? {};

// Seed: an owner, a viewer on the list, a canvas with shared keys.
{
  const ctx = await createCore(loadConfig({ EASEL_DATA_DIR: dataDir, EASEL_LOG_LEVEL: 'silent', ...shared }));
  const { canvas, now } = await seedViewerCanvas(ctx, SLUG);
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

const startServer = (dir: string) => spawnEasel(dir, { EASEL_LOG_LEVEL: LOG_LEVEL, ...shared });

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
// The servers' CPU per answered operation holds still when neighbours load the machine; ops/s does not (bench/README.md).
const cpuBefore = servers.reduce((sum, s) => sum + cpuSeconds(s.process.pid), 0);
await Bun.sleep(SECONDS * 1000);
measuring = false;
const cpuUsed = servers.reduce((sum, s) => sum + cpuSeconds(s.process.pid), 0) - cpuBefore;
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
      serverCpuUsPerOp: Number(((cpuUsed / total) * 1e6).toFixed(1)),
      latencyMs: { p50: pct(50), p90: pct(90), p99: pct(99), max: latencies[latencies.length - 1]!.toFixed(2) },
    },
    null,
    2,
  ),
);

for (const s of servers) s.process.kill('SIGTERM');
for (const s of servers) await s.process.exited;
await cluster?.stop();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
