// Realtime fan-out on loopback: the real server as a child process, one
// canvas, 30 sockets subscribed to one channel (the canvas cap is 30
// connections, so the publisher is one of the 30 subscribers and hears its
// own messages too), one publisher at 50 publishes per second. Reports the
// delivery latency (publish sent → message received, one clock: every socket
// lives in this process) and the messages delivered per second.
//
//   bun bench/realtime.ts            (BENCH_ROUNDS=5, BENCH_RATE=50)
//
// A connection may publish 100 times a minute (spec: Limits / Realtime), so
// each round is 100 publishes (2 s at 50/s) from a freshly opened publisher
// socket; the first round warms up and is not counted.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REALTIME_LIMITS } from '../src/runtime/realtime/limits.ts';
import { EDITORS, publishRounds, seedRealtimeCanvas, SOCKETS, subscribeTicks } from './realtime-seed.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const RATE = Number(process.env.BENCH_RATE ?? 50);
const PER_ROUND = REALTIME_LIMITS.publishesPerMinute;
const ROOT = join(import.meta.dir, '..');
const SLUG = 'bench-rt';
const CHANNEL = 'participants:bench';

const dataDir = mkdtempSync(join(tmpdir(), 'easel-bench-rt-'));
const emails = await seedRealtimeCanvas({ EASEL_DATA_DIR: dataDir }, SLUG);

const logFile = join(dataDir, 'server.log');
const server = Bun.spawn([process.execPath, join(ROOT, 'src/main.ts'), 'serve'], {
  cwd: ROOT,
  env: {
    PATH: process.env.PATH ?? '',
    EASEL_DATA_DIR: dataDir,
    EASEL_PORT: '0',
    EASEL_RATELIMIT_ENABLED: 'false',
    EASEL_LOG_LEVEL: 'warn',
  },
  stdin: 'ignore',
  stdout: Bun.file(logFile),
  stderr: 'ignore',
});

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

let port = 0;
for (let i = 0; i < 200 && !port; i++) {
  await Bun.sleep(25);
  const m = /listening on http:\/\/[^:]+:(\d+)/.exec(safeRead(logFile));
  if (m) port = Number(m[1]);
}
if (!port) throw new Error('server did not start');
const base = `http://127.0.0.1:${port}`;

async function signIn(email: string): Promise<string> {
  const res = await fetch(`${base}/auth/dev/login`, {
    method: 'POST',
    // The start line names EASEL_BASE_URL (http://localhost:<port>): the dashboard's origin, which sign-in needs.
    headers: { 'content-type': 'application/json', origin: `http://localhost:${port}` },
    body: JSON.stringify({ email }),
  });
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

const latencies: number[] = [];
let counting = false;
let delivered = 0;

/** A subscribed socket recording the latency of every bench message it receives while counting. */
const subscriber = (cookie: string) =>
  subscribeTicks(`ws://127.0.0.1:${port}/v1/c/${SLUG}/realtime`, cookie, CHANNEL, (t) => {
    if (!counting) return;
    latencies.push(performance.now() - t);
    delivered++;
  });

const cookies = await Promise.all(emails.map(signIn));
// Sockets 1..29 stay for the whole run; socket 0 (the owner) is the publisher, reopened every round.
// Viewers connect before the editors: a viewer finds no slot once 25 are taken.
const listeners = await Promise.all(cookies.slice(1 + EDITORS).map(subscriber));
listeners.push(...(await Promise.all(cookies.slice(1, 1 + EDITORS).map(subscriber))));

const rounds = await publishRounds({
  rounds: ROUNDS,
  perRound: PER_ROUND,
  rate: RATE,
  channel: CHANNEL,
  openPublisher: () => subscriber(cookies[0]!),
  setCounting: (on) => (counting = on),
  delivered: () => delivered,
});
for (const ws of listeners) ws.close();

const sorted = latencies.sort((a, b) => a - b);
const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const totalDelivered = rounds.reduce((s, r) => s + r.delivered, 0);
const totalSeconds = rounds.reduce((s, r) => s + r.seconds, 0);
const expected = ROUNDS * PER_ROUND * SOCKETS;
console.log(
  `realtime fan-out: ${SOCKETS} subscribers (publisher included), ${RATE} publishes/s, ${ROUNDS} rounds of ${PER_ROUND} (after 1 warm-up round)`,
);
console.log(`  delivered ${totalDelivered}/${expected} messages, ${(totalDelivered / totalSeconds).toFixed(0)} messages/s`);
console.log(
  `  latency ms: p50 ${pct(50).toFixed(2)}  p90 ${pct(90).toFixed(2)}  p99 ${pct(99).toFixed(2)}  max ${sorted.at(-1)?.toFixed(2)}`,
);
console.log(`  target p99 < 10 ms: ${pct(99) < 10 ? 'met' : 'NOT met'}`);

server.kill('SIGTERM');
await server.exited;
rmSync(dataDir, { recursive: true, force: true });
