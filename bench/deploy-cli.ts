// `easel deploy` on a 2000-file site (~50 MB): deploy once, change one file,
// redeploy. Prints what the redeploy sent (request bodies counted by the
// server, blob bytes alone) and its wall time, for the real CLI process
// (`bun src/main.ts deploy …`, start-up included) and for the command run
// in process.
//
//   bun bench/deploy-cli.ts            (BENCH_FILES=2000, BENCH_MB=50, BENCH_RUNS=5)
//
// Target: a redeploy sends only the changed file's bytes (plus the manifest)
// in under 300 ms.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../src/app.ts';
import { deployCommand } from '../src/cli/deploy.ts';
import { loadConfig, withBoundPort } from '../src/config.ts';
import { createCore } from '../src/foundation.ts';
import { newId, newToken, randomBase62, sha256Hex } from '../src/ids.ts';

const FILES = Number(process.env.BENCH_FILES ?? 2000);
const TOTAL_MB = Number(process.env.BENCH_MB ?? 50);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const ROOT = join(import.meta.dir, '..');

const work = mkdtempSync(join(tmpdir(), 'easel-bench-deploy-'));
const dataDir = join(work, 'data');
const siteDir = join(work, 'site');

// The site: an index.html and FILES-1 files of random bytes, sizes spread around the average.
const average = Math.floor((TOTAL_MB * 1024 * 1024) / FILES);
let siteBytes = 0;
for (let i = 0; i < FILES; i++) {
  const path = i === 0 ? 'index.html' : `assets/d${i % 20}/f${i}.${['js', 'css', 'png', 'woff2'][i % 4]}`;
  const size = i === 0 ? 2048 : Math.floor(average * (0.5 + ((i * 7919) % 1000) / 1000));
  const bytes = new Uint8Array(size);
  for (let o = 0; o < size; o += 65536) crypto.getRandomValues(bytes.subarray(o, Math.min(size, o + 65536)));
  mkdirSync(join(siteDir, path, '..'), { recursive: true });
  writeFileSync(join(siteDir, path), bytes);
  siteBytes += size;
}

// The server, in this process, with every request body counted.
const config = loadConfig({ EASEL_DATA_DIR: dataDir, EASEL_PORT: '0', EASEL_LOG_LEVEL: 'silent', EASEL_RATELIMIT_ENABLED: 'false' });
const ctx = await createCore(config);
let bodyBytes = 0;
let blobBytes = 0;
let requests = 0;
let handler: ReturnType<typeof createApp>['handle'];
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  maxRequestBodySize: 128 * 1024 * 1024,
  fetch(request, srv) {
    const length = Number(request.headers.get('content-length') ?? 0);
    bodyBytes += length;
    if (request.method === 'PUT' && request.url.includes('/blobs/')) blobBytes += length;
    requests++;
    return handler(request, srv);
  },
});
withBoundPort(config, server.port!);
const easel = createApp(ctx);
await easel.start();
handler = easel.handle;
const api = `http://127.0.0.1:${server.port}`;

const owner = await ctx.users.ensure('bench@example.test', 'Bench');
const key = 'easel_sk_' + randomBase62(40);
const canvas = await ctx.canvases.insert({
  id: newId(),
  slug: 'bench',
  title: 'bench',
  ownerId: owner.id,
  keyHash: sha256Hex(key),
  publicationToken: newToken(),
  now: Date.now(),
});
const env = { ...process.env, EASEL_CANVAS_KEY: key };
const args = ['deploy', siteDir, '--canvas', canvas.id, '--api', api, '--json'];

function reset() {
  bodyBytes = 0;
  blobBytes = 0;
  requests = 0;
}

async function spawnDeploy(): Promise<number> {
  const start = performance.now();
  const proc = Bun.spawn([process.execPath, join(ROOT, 'src/main.ts'), ...args], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const ms = performance.now() - start;
  if (code !== 0) throw new Error(`deploy failed (${code}): ${err} ${out}`);
  return ms;
}

async function inProcessDeploy(): Promise<number> {
  const start = performance.now();
  const code = await deployCommand(args.slice(1), env, { stdout: () => {}, stderr: () => {}, isTTY: false });
  if (code !== 0) throw new Error(`deploy failed (${code})`);
  return performance.now() - start;
}

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

console.log(`site: ${FILES} files, ${mb(siteBytes)}`);
reset();
const firstMs = await spawnDeploy();
console.log(
  `first deploy (CLI process): ${firstMs.toFixed(0)} ms, ${requests} requests, blobs ${mb(blobBytes)}, all bodies ${mb(bodyBytes)}`,
);

const changed = join(siteDir, 'index.html');
const spawned: number[] = [];
const inProc: number[] = [];
let last = { requests: 0, blobBytes: 0, bodyBytes: 0, changedSize: 0 };
for (let run = 0; run < RUNS; run++) {
  const content = `<!doctype html><title>run ${run}</title>` + 'x'.repeat(2000);
  writeFileSync(changed, content);
  reset();
  spawned.push(await spawnDeploy());
  last = { requests, blobBytes, bodyBytes, changedSize: content.length };
  writeFileSync(changed, content + ' in process');
  inProc.push(await inProcessDeploy());
}
console.log(`redeploy, one file changed (${last.changedSize} B):`);
console.log(
  `  sent: ${last.requests} requests; blob bytes ${last.blobBytes} B; all request bodies ${kb(last.bodyBytes)} (the rest is the ${FILES}-entry manifest)`,
);
console.log(
  `  wall time, CLI process (bun start-up included): median ${median(spawned).toFixed(0)} ms  [${spawned.map((x) => x.toFixed(0)).join(', ')}]`,
);
console.log(
  `  wall time, command in process:                  median ${median(inProc).toFixed(0)} ms  [${inProc.map((x) => x.toFixed(0)).join(', ')}]`,
);

await server.stop(true);
ctx.db!.close();
rmSync(work, { recursive: true, force: true });
