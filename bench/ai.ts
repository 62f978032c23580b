// AI chat through the real server and the real @anthropic-ai/sdk against the
// local fake provider (test/fake-anthropic.ts): the overhead we add per call.
// Prints time to the first delta and to `done` (p50/p99) for sequential
// calls, and calls per second with CONCURRENCY calls in flight.
//
//   bun bench/ai.ts            (BENCH_CALLS=200, BENCH_CONCURRENCY=20, BENCH_CHUNKS=100)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { createCore } from '../src/foundation.ts';
import { newId, newToken, sha256Hex } from '../src/ids.ts';
import { startServer } from '../src/server/listener.ts';
import { startFakeAnthropic } from '../test/fake-anthropic.ts';

const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20);
const CHUNKS = Number(process.env.BENCH_CHUNKS ?? 100);

const fake = await startFakeAnthropic();
const dataDir = mkdtempSync(join(tmpdir(), 'easel-bench-ai-'));
const ctx = await createCore(
  loadConfig({
    EASEL_DATA_DIR: dataDir,
    EASEL_PORT: '0',
    EASEL_LOG_LEVEL: 'warn',
    EASEL_RATELIMIT_ENABLED: 'false',
    EASEL_AI_API_KEY: 'bench',
    EASEL_AI_BASE_URL: fake.url,
    EASEL_AI_USER_DAILY_USD: '1000000',
    EASEL_AI_CANVAS_MONTHLY_USD: '1000000',
  }),
);
const user = await ctx.users.ensure('bench@bench.test', 'Bench');
const canvas = await ctx.canvases.insert({
  id: newId(),
  slug: 'bench',
  title: 'bench',
  ownerId: user.id,
  keyHash: sha256Hex(newToken()),
  publicationToken: newToken(),
  now: Date.now(),
});
await ctx.canvases.update(canvas.id, { cap_ai: 1 }, Date.now());
const token = await ctx.sessions.create(user.id);
const server = await startServer(ctx);
const url = `${server.url}/v1/c/bench/ai/chat`;
const cookie = `easel_session=${token}`;
const body = JSON.stringify({ model: 'claude-haiku-5-5', messages: [{ role: 'user', content: 'hello' }] });
const chunks = Array.from({ length: CHUNKS }, (_, i) => `word${i} `);

async function call(): Promise<{ first: number; total: number }> {
  fake.script({ kind: 'stream', chunks });
  const start = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body });
  if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
  const reader = res.body!.getReader();
  let first = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!first) first = performance.now() - start;
    text += new TextDecoder().decode(value);
  }
  if (!text.includes('"type":"done"')) throw new Error('no done');
  return { first, total: performance.now() - start };
}

const pct = (xs: number[], p: number) =>
  xs
    .slice()
    .sort((a, b) => a - b)
    [Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!.toFixed(2);

for (let i = 0; i < 20; i++) await call(); // warm-up
const seq: Array<{ first: number; total: number }> = [];
for (let i = 0; i < CALLS; i++) seq.push(await call());
console.log(
  `sequential, ${CHUNKS} deltas per answer: first delta p50 ${pct(
    seq.map((s) => s.first),
    50,
  )} ms p99 ${pct(
    seq.map((s) => s.first),
    99,
  )} ms; done p50 ${pct(
    seq.map((s) => s.total),
    50,
  )} ms p99 ${pct(
    seq.map((s) => s.total),
    99,
  )} ms`,
);

let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next++ < CALLS) await call();
  }),
);
const seconds = (performance.now() - started) / 1000;
console.log(`concurrent (${CONCURRENCY} in flight): ${(CALLS / seconds).toFixed(1)} calls/s`);
const rows = ctx.db!.query<{ n: number; open: number }, []>("SELECT COUNT(*) AS n, SUM(state = 'reserved') AS open FROM ai_calls").get()!;
console.log(`recorded calls: ${rows.n} (still reserved: ${rows.open})`);

await server.shutdown();
await fake.close();
rmSync(dataDir, { recursive: true, force: true });
