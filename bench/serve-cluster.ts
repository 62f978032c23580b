// Canvas asset serving through two nodes (issue 21): two `easel serve`
// processes on one Postgres database, one S3 bucket and one Redis (the test
// suite's real servers), each with its own data directory; a signed-in
// viewer fetches a 10 KB JS asset of a restricted canvas, with one wrk per
// node (half the connections each) running at once. Prints each node's and
// the total req/s and p99. Compare with `bun bench/serve.ts` (one node,
// embedded) on the same machine.
//
//   bun bench/serve-cluster.ts      (BENCH_SECONDS=15, BENCH_CONNECTIONS=64)
//
// Needs `wrk` (Debian: apt-get install -y wrk). On a 2-core machine both
// nodes, Postgres, Redis, s3rver and wrk share the cores: read the figure as
// "what a cluster costs per request", not as what two hosts would give.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { createCore } from '../src/foundation.ts';
import { newId } from '../src/ids.ts';
import { clusterEnv, seedViewerCanvas, spawnEasel } from './support.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const SLUG = 'bench-canvas';
const ASSET = 'assets/app.js';

if (!Bun.which('wrk')) {
  process.stderr.write('bench/serve-cluster.ts needs wrk (apt-get install -y wrk)\n');
  process.exit(2);
}

const cluster = await clusterEnv('easel-bench-serve', 'serve/');
const shared = cluster.env;
const dirs = [mkdtempSync(join(tmpdir(), 'easel-bench-sc-a-')), mkdtempSync(join(tmpdir(), 'easel-bench-sc-b-'))];
const js = `// bench asset\n${Array.from({ length: 400 }, (_, i) => `export const v${i} = ${i};`).join('\n')}\n`.slice(0, 10 * 1024);

// Seed through node A's storage: the people, the canvas, its live version (blobs into the bucket) and a session.
let cookie: string;
{
  const ctx = await createCore(loadConfig({ EASEL_DATA_DIR: dirs[0]!, EASEL_LOG_LEVEL: 'silent', ...shared }));
  await ctx.blobs.seedRemote();
  const { canvas, ownerId, viewerId, now } = await seedViewerCanvas(ctx, SLUG);
  const files: Record<string, string> = { 'index.html': '<script src="assets/app.js"></script>', [ASSET]: js };
  const versionId = newId();
  await ctx.sql.run(
    `INSERT INTO versions (id, canvas_id, number, source, status, created_by, created_at, file_count, total_bytes) VALUES (?1, ?2, 1, 'api', 'ready', ?3, ?4, 2, ?5)`,
    versionId,
    canvas.id,
    ownerId,
    now,
    js.length,
  );
  for (const [path, text] of Object.entries(files)) {
    const { hash, size } = await ctx.blobs.putBytes(new TextEncoder().encode(text));
    const mime = path.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/html; charset=utf-8';
    await ctx.sql.run(
      'INSERT INTO version_files (version_id, path, hash, size, mime) VALUES (?1, ?2, ?3, ?4, ?5)',
      versionId,
      path,
      hash,
      size,
      mime,
    );
  }
  await ctx.canvases.update(canvas.id, { current_version_id: versionId }, now);
  cookie = `easel_session=${await ctx.sessions.create(viewerId)}`;
  await ctx.sql.close();
}

const startNode = (dir: string) => spawnEasel(dir, { EASEL_LOG_LEVEL: 'warn', ...shared });

async function wrk(port: number): Promise<{ rps: number; p99: string; errors: string }> {
  const url = `http://127.0.0.1:${port}/c/${SLUG}/${ASSET}`;
  const check = await fetch(url, { headers: { cookie } });
  if (check.status !== 200 || (await check.text()) !== js) throw new Error(`node on ${port} did not answer the asset (${check.status})`);
  const proc = Bun.spawn(['wrk', '-t1', `-c${CONNECTIONS / 2}`, `-d${SECONDS}s`, '--latency', '-H', `cookie: ${cookie}`, url], {
    stdout: 'pipe',
  });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
    p99: /\s99%\s+([\d.]+\w+)/.exec(out)?.[1] ?? '?',
    errors: /Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? '0',
  };
}

const nodes = [await startNode(dirs[0]!), await startNode(dirs[1]!)];
try {
  const [a, b] = await Promise.all(nodes.map((n) => wrk(n.port)));
  console.log(`serve through two nodes (Postgres + S3 + Redis): ${CONNECTIONS} connections split over 2 nodes, ${SECONDS} s, 10 KB asset`);
  console.log(`  node A  ${Math.round(a!.rps)} req/s  p99 ${a!.p99}  non-2xx ${a!.errors}`);
  console.log(`  node B  ${Math.round(b!.rps)} req/s  p99 ${b!.p99}  non-2xx ${b!.errors}`);
  console.log(`  total   ${Math.round(a!.rps + b!.rps)} req/s`);
} finally {
  for (const n of nodes) n.process.kill('SIGTERM');
  for (const n of nodes) await n.process.exited;
  await cluster.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
