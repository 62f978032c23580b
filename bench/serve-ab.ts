// Two checkouts of Easel serving the same page at the same time: each gets
// its own wrk (one thread, 32 connections) for the same seconds, so both
// meet the same neighbours, and the figure is each server's CPU time per
// answered request, round by round. On a shared machine this tells a change
// of ~0.3 µs per request apart, where runs one after the other (serve.ts)
// swing by several µs. Both at the default log level (info).
//
//   bun bench/serve-ab.ts <checkout A> <checkout B>   (BENCH_ROUNDS=8, BENCH_SECONDS=4)
//   BENCH_ENV_B='{"NAME":"value"}' bun bench/serve-ab.ts . .
//                               one checkout, B's server with more environment (BENCH_ENV_A likewise)
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cpuSeconds, seedServedAsset } from './support.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const SLUG = 'bench-canvas';
const ASSET = 'assets/app.js';
const roots = process.argv.slice(2, 4).map((r) => resolve(r));
if (roots.length !== 2) {
  process.stderr.write('usage: bun bench/serve-ab.ts <checkout A> <checkout B>\n');
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), 'easel-bench-serve-ab-'));
const js = `// bench asset\n${Array.from({ length: 400 }, (_, i) => `export const v${i} = ${i};`).join('\n')}\n`.slice(0, 10 * 1024);
const cookie = await seedServedAsset(join(work, 'data-a'), SLUG, ASSET, new TextEncoder().encode(js));
cpSync(join(work, 'data-a'), join(work, 'data-b'), { recursive: true });

interface Server {
  root: string;
  process: Bun.Subprocess;
  url: string;
}

async function start(root: string, dataDir: string, port: number, more: Record<string, string>): Promise<Server> {
  const child = Bun.spawn([process.execPath, join(root, 'src/main.ts'), 'serve'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', EASEL_DATA_DIR: dataDir, EASEL_PORT: String(port), EASEL_LOG_LEVEL: 'info', ...more },
    stdin: 'ignore',
    stdout: Bun.file(join(dataDir, '..', `${port}.log`)),
    stderr: 'ignore',
  });
  const url = `http://127.0.0.1:${port}/c/${SLUG}/${ASSET}`;
  for (let i = 0; ; i++) {
    const res = await fetch(url, { headers: { cookie } }).catch(() => null);
    if (res?.status === 200 && (await res.text()) === js) break;
    if (i > 400) throw new Error(`${root} did not answer with the asset`);
    await Bun.sleep(25);
  }
  return { root, process: child, url };
}

async function load(server: Server, seconds: number): Promise<number> {
  const wrk = Bun.spawn(['wrk', '-t1', '-c32', `-d${seconds}s`, '-H', `cookie: ${cookie}`, server.url], { stdout: 'pipe', stderr: 'pipe' });
  const out = await new Response(wrk.stdout).text();
  await wrk.exited;
  if (/Non-2xx/.test(out)) throw new Error(`${server.root}: non-2xx answers\n${out}`);
  return Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
}

/** Both servers loaded at once for `seconds`: each one's CPU µs per request. */
async function round(servers: Server[], seconds: number): Promise<number[]> {
  const before = servers.map((s) => cpuSeconds(s.process.pid));
  const requests = await Promise.all(servers.map((s) => load(s, seconds)));
  return servers.map((s, i) => ((cpuSeconds(s.process.pid) - before[i]!) / requests[i]!) * 1e6);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const servers: Server[] = [];
try {
  const envOf = (side: string): Record<string, string> => JSON.parse(process.env[`BENCH_ENV_${side}`] ?? '{}');
  servers.push(await start(roots[0]!, join(work, 'data-a'), 18000 + Math.floor(Math.random() * 20000), envOf('A')));
  servers.push(await start(roots[1]!, join(work, 'data-b'), 38000 + Math.floor(Math.random() * 20000), envOf('B')));
  await round(servers, 2); // JIT warm-up
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const [x, y] = await round(servers, SECONDS);
    a.push(x!);
    b.push(y!);
    process.stdout.write(`round ${i + 1}: A ${x!.toFixed(2)} µs/req   B ${y!.toFixed(2)} µs/req   B − A ${(y! - x!).toFixed(2)}\n`);
  }
  const diffs = b.map((y, i) => y - a[i]!);
  console.log(`\nA ${roots[0]}: median ${median(a).toFixed(2)} µs/req`);
  console.log(`B ${roots[1]}: median ${median(b).toFixed(2)} µs/req`);
  console.log(
    `B − A: median ${median(diffs).toFixed(2)} µs/req (${diffs.filter((d) => d < 0).length} of ${diffs.length} rounds B cheaper)`,
  );
} finally {
  for (const s of servers) {
    s.process.kill('SIGTERM');
    await s.process.exited;
  }
  rmSync(work, { recursive: true, force: true });
}
