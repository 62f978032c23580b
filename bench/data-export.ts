// A canvas data export through the real server (issue 39: "10,000 records
// export in under a second"): `easel serve` as a child process, a collection
// of BENCH_RECORDS records by 100 named people, exported as CSV by its owner
// over loopback. Prints the time to the last byte (median of BENCH_ROUNDS),
// the size, and the server's peak memory (VmHWM) before and after, so a
// growing figure with more records shows an export that holds rows whole.
//
//   bun bench/data-export.ts   (BENCH_RECORDS=10000, BENCH_ROUNDS=5)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { createCore } from '../src/foundation.ts';
import { seedViewerCanvas, spawnEasel } from './support.ts';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const AUTHORS = 100;

const dataDir = mkdtempSync(join(tmpdir(), 'easel-bench-export-'));
let canvasId = '';
let cookie = '';
{
  const ctx = await createCore(loadConfig({ EASEL_DATA_DIR: dataDir, EASEL_LOG_LEVEL: 'silent' }));
  const { canvas, ownerId, now } = await seedViewerCanvas(ctx, 'bench-export');
  canvasId = canvas.id;
  const authors = [ownerId];
  for (let i = 1; i < AUTHORS; i++) authors.push((await ctx.users.ensure(`author${i}@bench.test`, `Author ${i}`)).id);
  ctx
    .db!.query('UPDATE canvases SET runtime_policy = ?, runtime_policy_revision = ? WHERE id = ?')
    .run(JSON.stringify({ collections: { signups: { preset: 'collaborative' } } }), 'bench', canvas.id);
  const insert = ctx.db!.query(
    "INSERT INTO collection_records (canvas_id, collection, id, author_id, value, updated_at) VALUES (?, 'signups', ?, ?, ?, ?)",
  );
  ctx.db!.transaction(() => {
    for (let i = 0; i < RECORDS; i++) {
      const value = {
        name: `Person ${i}`,
        dish: i % 3 ? 'soup' : '=pie, "large"',
        note: `line one\nline ${i}`,
        seats: i % 7,
        tags: ['a', 'b'],
      };
      insert.run(canvas.id, `r${String(i).padStart(19, '0')}`, authors[i % AUTHORS]!, JSON.stringify(value), now - i);
    }
  })();
  cookie = `easel_session=${await ctx.sessions.create(ownerId)}`;
  ctx.db!.close();
}

const server = await spawnEasel(dataDir, { EASEL_LOG_LEVEL: 'warn' });
const peakKb = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${server.process.pid}/status`, 'utf8'))?.[1] ?? 0);
try {
  const url = `http://127.0.0.1:${server.port}/api/canvases/${canvasId}/data/collections/signups?format=csv`;
  const before = peakKb();
  const times: number[] = [];
  let size = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const start = performance.now();
    const res = await fetch(url, { headers: { cookie } });
    if (res.status !== 200) throw new Error(`export answered ${res.status}: ${await res.text()}`);
    size = (await res.arrayBuffer()).byteLength;
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  console.log(`data export: ${RECORDS.toLocaleString()} records as CSV, ${(size / 1024 / 1024).toFixed(1)} MB`);
  console.log(
    `  time to last byte: median ${median.toFixed(0)} ms, best ${times[0]!.toFixed(0)} ms, worst ${times.at(-1)!.toFixed(0)} ms (target < 1000 ms)`,
  );
  console.log(`  server peak RSS: ${(before / 1024).toFixed(0)} MB before the exports, ${(peakKb() / 1024).toFixed(0)} MB after`);
} finally {
  server.process.kill();
  await server.process.exited;
  rmSync(dataDir, { recursive: true, force: true });
}
