// Canvas asset serving against two baselines, with wrk on loopback (2 threads,
// 64 connections, 15 s each): a 10 KB JS asset of a restricted canvas fetched
// by a signed-in viewer from
//   (a) a bare Bun.serve answering the same bytes from memory,
//   (b) nginx serving the same file from disk (1 worker, access log off),
//   (c) Easel (`bun src/main.ts`) at EASEL_LOG_LEVEL=warn, and
//   (d) Easel at the default `info` (one JSON request line per request).
// Prints req/s, p99 and the server's CPU time per request for each, and the
// ratios (CPU per request holds still when neighbours load the machine;
// req/s does not). Targets (issue 42), at the default `info`: ≥ 70% of bare
// Bun.serve, ≥ 90% of nginx, p99 < 3 ms.
//
//   bun bench/serve.ts          (BENCH_SECONDS=15, BENCH_CONNECTIONS=64, BENCH_THREADS=2)
//   BENCH_EASEL_ROOT=<checkout> bun bench/serve.ts
//                               Easel from another worktree (before/after in one session)
//
// Needs `wrk` and `nginx` (Debian: apt-get install -y wrk nginx).
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuSeconds, SERVER_ROOT, seedServedAsset } from './support.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const THREADS = Number(process.env.BENCH_THREADS ?? 2);
const SLUG = 'bench-canvas';
const ASSET = 'assets/app.js';

// `bun bench/serve.ts --bare <port> <file>`: the baseline server, in its own process like the others.
if (process.argv[2] === '--bare') {
  const bytes = readFileSync(process.argv[4]!);
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: Number(process.argv[3]),
    development: false,
    fetch: () => new Response(bytes, { headers: { 'content-type': 'text/javascript; charset=utf-8' } }),
  });
  process.stdout.write(`bare listening on ${server.port}\n`);
  await new Promise(() => {});
}

for (const tool of ['wrk', 'nginx']) {
  if (!Bun.which(tool, { PATH: `${process.env.PATH}:/usr/sbin` })) {
    process.stderr.write(`bench/serve.ts needs ${tool} (apt-get install -y wrk nginx)\n`);
    process.exit(2);
  }
}

const work = mkdtempSync(join(tmpdir(), 'easel-bench-serve-'));
// nginx workers run as an unprivileged user when started by root: they must be able to reach www/.
chmodSync(work, 0o755);
const dataDir = join(work, 'data');
const js = `// bench asset\n${Array.from({ length: 400 }, (_, i) => `export const v${i} = ${i};`).join('\n')}\n`.slice(0, 10 * 1024);
const jsBytes = new TextEncoder().encode(js);
const assetFile = join(work, 'www', ASSET);
mkdirSync(join(work, 'www', 'assets'), { recursive: true });
writeFileSync(assetFile, jsBytes);

// Seed Easel's data directory: an owner, a viewer on the list and their session, a restricted canvas with a live version.
const cookie = await seedServedAsset(dataDir, SLUG, ASSET, jsBytes);

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function waitFor(url: string, headers: Record<string, string> = {}): Promise<void> {
  for (let i = 0; i < 400; i++) {
    try {
      const res = await fetch(url, { headers });
      if (res.status === 200 && (await res.text()) === js) return;
    } catch {
      // not up yet
    }
    await Bun.sleep(25);
  }
  throw new Error(`${url} did not answer with the asset`);
}

interface Result {
  name: string;
  rps: number;
  p99Ms: number;
  errors: string;
  /** The server's CPU time per answered request (its process and children): robust where req/s swings with the neighbours' load. */
  cpuUsPerRequest: number;
}

function ms(value: string, unit: string): number {
  const n = Number(value);
  return unit === 'us' ? n / 1000 : unit === 's' ? n * 1000 : unit === 'm' ? n * 60_000 : n;
}

async function wrk(name: string, pid: number, url: string, headers: Record<string, string> = {}): Promise<Result> {
  const args = ['wrk', `-t${THREADS}`, `-c${CONNECTIONS}`, `-d${SECONDS}s`, '--latency'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  args.push(url);
  const cpuBefore = cpuSeconds(pid);
  const proc = Bun.spawn(args, { stdout: 'pipe', stderr: 'pipe' });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  const cpu = cpuSeconds(pid) - cpuBefore;
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
  const p99 = /\s99%\s+([\d.]+)(us|ms|s|m)/.exec(out);
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1];
  const socketErrors = /Socket errors: (.*)/.exec(out)?.[1];
  const errors = [non2xx ? `${non2xx} non-2xx` : '', socketErrors ? `socket errors: ${socketErrors}` : ''].filter(Boolean).join('; ');
  return { name, rps, p99Ms: p99 ? ms(p99[1]!, p99[2]!) : NaN, errors, cpuUsPerRequest: requests ? (cpu / requests) * 1e6 : NaN };
}

const children: Array<{ kill(signal?: number | NodeJS.Signals): void; exited: Promise<number> }> = [];
async function stopAll(): Promise<void> {
  for (const c of children.splice(0)) {
    c.kill('SIGTERM');
    await c.exited;
  }
}

const results: Result[] = [];
try {
  // (a) bare Bun.serve
  {
    const port = await freePort();
    const bare = Bun.spawn([process.execPath, import.meta.path, '--bare', String(port), assetFile], {
      stdout: 'ignore',
      stderr: 'inherit',
    });
    children.push(bare);
    await waitFor(`http://127.0.0.1:${port}/`);
    results.push(await wrk('bare Bun.serve (memory)', bare.pid, `http://127.0.0.1:${port}/${ASSET}`));
    await stopAll();
  }
  // (b) nginx from disk
  {
    const port = await freePort();
    const prefix = join(work, 'nginx');
    mkdirSync(join(prefix, 'logs'), { recursive: true });
    const conf = join(prefix, 'nginx.conf');
    writeFileSync(
      conf,
      `worker_processes 1;
pid ${join(prefix, 'nginx.pid')};
error_log ${join(prefix, 'logs/error.log')} warn;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  types { text/javascript js; }
  client_body_temp_path ${prefix}/tmp-body; proxy_temp_path ${prefix}/tmp-proxy; fastcgi_temp_path ${prefix}/tmp-fcgi; uwsgi_temp_path ${prefix}/tmp-uwsgi; scgi_temp_path ${prefix}/tmp-scgi;
  server { listen 127.0.0.1:${port}; root ${join(work, 'www')}; }
}
`,
    );
    const nginx = Bun.spawn(['nginx', '-p', prefix, '-c', conf, '-g', 'daemon off;'], {
      stdout: 'ignore',
      stderr: 'inherit',
      env: { PATH: `${process.env.PATH}:/usr/sbin` },
    });
    children.push(nginx);
    await waitFor(`http://127.0.0.1:${port}/${ASSET}`);
    results.push(await wrk('nginx (disk, 1 worker)', nginx.pid, `http://127.0.0.1:${port}/${ASSET}`));
    await stopAll();
  }
  // (c, d) Easel, quiet and with the request log
  for (const level of ['warn', 'info']) {
    const port = await freePort();
    // BENCH_CPU_PROF=<dir>: Bun's CPU profile of each Easel run lands there (written at its SIGTERM).
    const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
    const easel = Bun.spawn([process.execPath, ...profile, join(SERVER_ROOT, 'src/main.ts'), 'serve'], {
      cwd: SERVER_ROOT,
      env: { PATH: process.env.PATH ?? '', EASEL_DATA_DIR: dataDir, EASEL_PORT: String(port), EASEL_LOG_LEVEL: level },
      stdin: 'ignore',
      stdout: Bun.file(join(work, `easel-${level}.log`)),
      stderr: 'ignore',
    });
    children.push(easel);
    const url = `http://127.0.0.1:${port}/c/${SLUG}/${ASSET}`;
    await waitFor(url, { cookie, 'accept-encoding': 'identity' });
    results.push(await wrk(`Easel (EASEL_LOG_LEVEL=${level})`, easel.pid, url, { cookie }));
    await stopAll();
  }
} finally {
  await stopAll();
  rmSync(work, { recursive: true, force: true });
}

const bare = results[0]!;
console.log(
  `\n10 KB JS asset, wrk -t${THREADS} -c${CONNECTIONS} -d${SECONDS}s on loopback (${navigator.hardwareConcurrency} CPUs, shared with the load generator)\n`,
);
console.log('server                          req/s      p99 ms   vs bare Bun   CPU µs/req   vs bare Bun');
for (const r of results) {
  console.log(
    `${r.name.padEnd(30)} ${r.rps.toFixed(0).padStart(8)} ${r.p99Ms.toFixed(2).padStart(10)} ${((r.rps / bare.rps) * 100).toFixed(0).padStart(12)}% ${r.cpuUsPerRequest.toFixed(1).padStart(12)} ${((bare.cpuUsPerRequest / r.cpuUsPerRequest) * 100).toFixed(0).padStart(12)}%${r.errors ? `   (${r.errors})` : ''}`,
  );
}
const easel = results.find((r) => r.name.includes('info'));
const nginx = results.find((r) => r.name.startsWith('nginx'));
if (easel && nginx) {
  console.log(
    `\nEasel (info) / nginx: ${((easel.rps / nginx.rps) * 100).toFixed(0)}% by req/s, ${((nginx.cpuUsPerRequest / easel.cpuUsPerRequest) * 100).toFixed(0)}% by CPU per request`,
  );
  const ok = easel.rps >= bare.rps * 0.7 && easel.rps >= nginx.rps * 0.9 && easel.p99Ms < 3;
  console.log(`targets at info (≥ 70% of bare Bun.serve, ≥ 90% of nginx, p99 < 3 ms): ${ok ? 'met' : 'NOT met'}`);
}
