// Realtime fan-out across two nodes (issue 21: p99 under 25 ms at 50 msg/s
// to 30 subscribers split across nodes): two real server processes
// (`bun src/main.ts`) sharing a real redis-server (Debian's package, started
// as the tests start it), one canvas, 30 sockets subscribed to one channel,
// 15 on each node. The publisher is one of node A's 15 and hears its own
// messages. Reports the delivery latency (publish sent → message received,
// one clock: every socket lives in this process) for the sockets on the
// publisher's node and on the other node, and the messages delivered.
//
//   bun bench/realtime-cluster.ts      (BENCH_ROUNDS=5, BENCH_RATE=50)
//
// Like bench/realtime.ts: a connection may publish 100 times a minute, so
// each round is 100 publishes (2 s at 50/s) from a freshly opened publisher
// socket; the first round warms up and is not counted.
//
// The two nodes share one Postgres database (the canvas and its people,
// each person signed in on the node their socket uses) and one Redis, each
// with its own data directory, as a cluster runs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REALTIME_LIMITS } from '../src/runtime/realtime/limits.ts';
import { createTestDatabase } from '../test/support/postgres-server.ts';
import { createTestRedis } from '../test/support/redis-server.ts';
import { EDITORS, publishRounds, seedRealtimeCanvas, SOCKETS, subscribeTicks } from './realtime-seed.ts';
import { startEasel, stopEasel, type Easel } from '../test/spawn.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const RATE = Number(process.env.BENCH_RATE ?? 50);
const PER_ROUND = REALTIME_LIMITS.publishesPerMinute;
const SLUG = 'bench-rt-cluster';
const CHANNEL = 'participants:bench';
const TARGET_P99_MS = 25;

const dirA = mkdtempSync(join(tmpdir(), 'easel-bench-rtc-a-'));
const dirB = mkdtempSync(join(tmpdir(), 'easel-bench-rtc-b-'));
const redisUrl = await createTestRedis();
const databaseUrl = await createTestDatabase();
const emails = await seedRealtimeCanvas({ EASEL_DATA_DIR: dirA, EASEL_DATABASE_URL: databaseUrl }, SLUG);

const env = (dataDir: string) => ({
  EASEL_DATA_DIR: dataDir,
  EASEL_DATABASE_URL: databaseUrl,
  EASEL_REDIS_URL: redisUrl,
  EASEL_RATELIMIT_ENABLED: 'false',
});
const nodes = await Promise.all([startEasel({ env: env(dirA) }), startEasel({ env: env(dirB) })]);
const [nodeA, nodeB] = nodes as [Easel, Easel];

const loopback = (easel: Easel) => easel.url.replace('localhost', '127.0.0.1');

async function signIn(easel: Easel, email: string): Promise<string> {
  const res = await fetch(`${loopback(easel)}/auth/dev/login`, {
    method: 'POST',
    // The dashboard's origin (EASEL_BASE_URL), which sign-in needs.
    headers: { 'content-type': 'application/json', origin: easel.url },
    body: JSON.stringify({ email }),
  });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status}`);
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

const latencies = { same: [] as number[], other: [] as number[] };
let counting = false;
let delivered = 0;

/** A subscribed socket on `easel` recording the latency of every bench message it receives while counting. */
const subscriber = (easel: Easel, cookie: string, bucket: number[]) =>
  subscribeTicks(`${loopback(easel).replace('http', 'ws')}/v1/c/${SLUG}/realtime`, cookie, CHANNEL, (t) => {
    if (!counting) return;
    bucket.push(performance.now() - t);
    delivered++;
  });

const half = SOCKETS / 2;
const cookies = await Promise.all(emails.map((e, i) => signIn(i < half ? nodeA : nodeB, e)));
// Socket 0 (the owner, on A) publishes, reopened every round; 1..14 listen on A, 15..29 on B.
// Viewers connect before the editors: a viewer finds no slot once 25 are taken.
const listen = (i: number) => (i < half ? subscriber(nodeA, cookies[i]!, latencies.same) : subscriber(nodeB, cookies[i]!, latencies.other));
const ids = Array.from({ length: SOCKETS - 1 }, (_, i) => i + 1);
const listeners = await Promise.all(ids.filter((i) => i > EDITORS).map(listen));
listeners.push(...(await Promise.all(ids.filter((i) => i <= EDITORS).map(listen))));

const rounds = await publishRounds({
  rounds: ROUNDS,
  perRound: PER_ROUND,
  rate: RATE,
  channel: CHANNEL,
  openPublisher: () => subscriber(nodeA, cookies[0]!, latencies.same),
  setCounting: (on) => (counting = on),
  delivered: () => delivered,
});
for (const ws of listeners) ws.close();

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};
const line = (name: string, values: number[]) =>
  `  ${name.padEnd(22)} p50 ${percentile(values, 50).toFixed(2)}  p90 ${percentile(values, 90).toFixed(2)}  p99 ${percentile(values, 99).toFixed(2)}  max ${Math.max(...values).toFixed(2)}  (${values.length} deliveries)`;
const all = [...latencies.same, ...latencies.other];
const totalDelivered = rounds.reduce((s, r) => s + r.delivered, 0);
const totalSeconds = rounds.reduce((s, r) => s + r.seconds, 0);
console.log(
  `realtime fan-out across 2 nodes (Redis): ${SOCKETS} subscribers, ${half} per node (publisher included on A), ${RATE} publishes/s, ${ROUNDS} rounds of ${PER_ROUND} (after 1 warm-up round)`,
);
console.log(
  `  delivered ${totalDelivered}/${ROUNDS * PER_ROUND * SOCKETS} messages, ${(totalDelivered / totalSeconds).toFixed(0)} messages/s`,
);
console.log('  latency ms:');
console.log(line('same node (A → A)', latencies.same));
console.log(line('other node (A → B)', latencies.other));
console.log(line('all', all));
console.log(`  target p99 < ${TARGET_P99_MS} ms across nodes (issue 21): ${percentile(all, 99) < TARGET_P99_MS ? 'met' : 'NOT met'}`);

await Promise.all(nodes.map(stopEasel));
rmSync(dirA, { recursive: true, force: true });
rmSync(dirB, { recursive: true, force: true });
