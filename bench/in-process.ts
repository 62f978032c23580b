// The request path's own CPU time, without sockets: one or more checkouts'
// apps in this one process, each on its own seeded data directory, called
// through the handler Bun.serve calls (app.serve, else app.handle) in
// alternating bursts, so every checkout meets the same load from the
// neighbours. Prints each one's median, mean and 10th percentile CPU µs per
// request (the 10th percentile moves least when neighbours load the machine).
//
//   bun bench/in-process.ts <checkout> [<checkout> …] >/dev/null
//                 a signed-in viewer's 10 KB asset (the page path of bench/serve.ts)
//   BENCH_ROUTE=kv bun bench/in-process.ts <checkout> …  >/dev/null
//                 a viewer's GET of a shared KV key (the 90% of bench/kv.ts)
//   BENCH_ROUTE=kv-put | kv-increment bun bench/in-process.ts <checkout> …  >/dev/null
//                 a viewer's PUT of one of their own keys, or an increment of one (the
//                 writes of bench/kv.ts: they go through the router, not GET's fast path)
//
// The request log (level info) goes to stdout: send it to /dev/null. Results go to stderr.
// BENCH_ROUNDS (default 60) bursts of 2,000 requests each, after 5 unmeasured ones.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROUTES = ['page', 'kv', 'kv-put', 'kv-increment'] as const;
const ROUTE = ROUTES.find((r) => r === process.env.BENCH_ROUTE) ?? 'page';
const TITLES: Record<(typeof ROUTES)[number], string> = {
  page: "signed-in viewer's 10 KB asset",
  kv: 'viewer GET of a shared KV key',
  'kv-put': 'viewer PUT of one of their own KV keys',
  'kv-increment': 'viewer increment of one of their own KV keys',
};
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 60);
const WARMUP_ROUNDS = 5;
const BURST = 2000;
const roots = process.argv.slice(2).map((r) => resolve(r));
if (roots.length === 0) {
  process.stderr.write('usage: bun bench/in-process.ts <checkout> [<checkout> …]\n');
  process.exit(2);
}

type Handler = (request: Request, server: null) => Response | Promise<Response>;

/** A started app of `root` on a fresh data directory, and the requests it is to answer. */
async function setup(root: string): Promise<{ handle: Handler; request: (i: number) => Request; stop(): Promise<void> }> {
  const { loadConfig } = await import(join(root, 'src/config.ts'));
  // Checkouts before the kernel split built everything in createContext.
  const createCore = existsSync(join(root, 'src/foundation.ts'))
    ? (await import(join(root, 'src/foundation.ts'))).createCore
    : (await import(join(root, 'src/context.ts'))).createContext;
  const { createApp } = await import(join(root, 'src/app.ts'));
  const { newId } = await import(join(root, 'src/ids.ts'));
  const { seedViewerCanvas } = await import(join(root, 'bench/support.ts'));
  const dataDir = mkdtempSync(join(tmpdir(), 'easel-bench-inprocess-'));
  const ctx = await createCore(loadConfig({ EASEL_DATA_DIR: dataDir, EASEL_LOG_LEVEL: 'info', EASEL_RATELIMIT_ENABLED: 'false' }));
  const { canvas, ownerId, viewerId, now } = await seedViewerCanvas(ctx, 'bench');
  if (ROUTE === 'page') {
    const bytes = new TextEncoder().encode('x'.repeat(10 * 1024));
    const versionId = newId();
    await ctx.sql.run(
      `INSERT INTO versions (id, canvas_id, number, source, status, created_by, created_at, file_count, total_bytes) VALUES (?1, ?2, 1, 'api', 'ready', ?3, ?4, 1, ?5)`,
      versionId,
      canvas.id,
      ownerId,
      now,
      bytes.length,
    );
    const { hash, size } = await ctx.blobs.putBytes(bytes);
    await ctx.sql.run(
      'INSERT INTO version_files (version_id, path, hash, size, mime) VALUES (?1, ?2, ?3, ?4, ?5)',
      versionId,
      'assets/app.js',
      hash,
      size,
      'text/javascript; charset=utf-8',
    );
    await ctx.canvases.update(canvas.id, { current_version_id: versionId }, now);
  } else {
    for (let i = 0; i < 100; i++)
      await ctx.sql.run(
        "INSERT INTO kv (canvas_id, scope, owner_id, key, value, updated_at) VALUES (?1, 'shared', '', ?2, ?3, ?4)",
        canvas.id,
        `k${i}`,
        JSON.stringify({ n: i, label: `item ${i}`, tags: ['a', 'b'] }),
        now,
      );
  }
  const cookie = `easel_session=${await ctx.sessions.create(viewerId)}`;
  const app = createApp(ctx, {});
  await app.start();
  const headers = { cookie, host: '127.0.0.1:3000', 'user-agent': 'bench' };
  const request = (i: number): Request => {
    if (ROUTE === 'page') return new Request('http://127.0.0.1:3000/c/bench/assets/app.js', { headers });
    if (ROUTE === 'kv') return new Request(`http://127.0.0.1:3000/v1/c/bench/kv/k${i % 100}`, { headers });
    const json = { ...headers, 'content-type': 'application/json' };
    if (ROUTE === 'kv-put')
      return new Request(`http://127.0.0.1:3000/v1/c/bench/kv/user/k${i % 100}`, { method: 'PUT', headers: json, body: `{"n":${i}}` });
    return new Request(`http://127.0.0.1:3000/v1/c/bench/kv/user/n${i % 100}/increment`, {
      method: 'POST',
      headers: json,
      body: '{"by":1}',
    });
  };
  return {
    handle: app.serve ?? app.handle,
    request,
    async stop() {
      await app.stop();
      await ctx.sql.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const apps = [];
for (const root of roots) apps.push(await setup(root));
const samples = roots.map((): number[] => []);
for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
  for (const [k, app] of apps.entries()) {
    // Built before the clock starts: making a Request is the client's cost, not the server's.
    const requests = Array.from({ length: BURST }, (_, i) => app.request(i));
    const before = process.cpuUsage();
    for (const request of requests) {
      const answer = app.handle(request, null);
      const response = answer instanceof Promise ? await answer : answer;
      if (response.status !== 200) throw new Error(`${roots[k]} answered ${response.status}`);
    }
    const used = process.cpuUsage(before);
    if (round >= WARMUP_ROUNDS) samples[k]!.push((used.user + used.system) / BURST);
  }
}
for (const app of apps) await app.stop();

const quantile = (xs: number[], q: number) => xs.slice().sort((a, b) => a - b)[Math.floor((xs.length - 1) * q)]!;
const median = (xs: number[]) => quantile(xs, 0.5);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
process.stderr.write(`${TITLES[ROUTE]}, CPU µs per request (${ROUNDS} × ${BURST})\n`);
for (const [k, root] of roots.entries())
  process.stderr.write(
    `${root.padEnd(36)} median ${median(samples[k]!).toFixed(2).padStart(6)}   mean ${mean(samples[k]!).toFixed(2).padStart(6)}   p10 ${quantile(samples[k]!, 0.1).toFixed(2).padStart(6)}\n`,
  );
process.exit(0);
