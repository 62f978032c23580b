// Where a served request's CPU goes, in µs per answered request, for bare
// Bun.serve and Easel at warn and info under the load of bench/serve.ts (the
// same seed, the same 10 KB asset, a signed-in viewer): `perf record` samples
// each server, and each sample is put where its stack says:
//   kernel              system calls; on loopback the send also delivers the
//                       bytes to wrk and wakes it
//   server, outside JS  Bun's own code with no JavaScript on the stack: the
//                       HTTP server, the event loop, finalizers
//   native for JS       Bun's code (and libc) called from JavaScript: header
//                       reads, Response construction, hashing, allocation
//   JavaScript          code the JIT compiled (Easel's own logic)
//   other threads       the JIT compiler, the collector's helpers
//
//   bun bench/serve-where.ts          (BENCH_SECONDS=8; needs wrk and perf, and
//                                      kernel.perf_event_paranoid ≤ 1 or root)
//
// Bun's binary carries no symbols, so its native code is named only by
// whether JavaScript called it; bench/README.md ("Tenth pass") shows how to
// name the JavaScript functions too.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVER_ROOT, seedServedAsset } from './support.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const SLUG = 'bench-canvas';
const ASSET = 'assets/app.js';

for (const tool of ['wrk', 'perf']) {
  if (!Bun.which(tool)) {
    process.stderr.write(`bench/serve-where.ts needs ${tool} (apt-get install -y wrk linux-perf)\n`);
    process.exit(2);
  }
}

const work = mkdtempSync(join(tmpdir(), 'easel-bench-where-'));
const js = `// bench asset\n${Array.from({ length: 400 }, (_, i) => `export const v${i} = ${i};`).join('\n')}\n`.slice(0, 10 * 1024);
const jsBytes = new TextEncoder().encode(js);
mkdirSync(join(work, 'www'), { recursive: true });
writeFileSync(join(work, 'www/app.js'), jsBytes);
const cookie = await seedServedAsset(join(work, 'data'), SLUG, ASSET, jsBytes);

interface Server {
  name: string;
  process: Bun.Subprocess;
  url: string;
  headers: string[];
}

function port(): number {
  return 20_000 + Math.floor(Math.random() * 20_000);
}

function start(kind: 'bare' | 'warn' | 'info'): Server {
  const p = port();
  if (kind === 'bare') {
    const child = Bun.spawn([process.execPath, join(import.meta.dir, 'serve.ts'), '--bare', String(p), join(work, 'www/app.js')], {
      stdout: 'ignore',
      stderr: 'inherit',
    });
    return { name: 'bare Bun.serve', process: child, url: `http://127.0.0.1:${p}/${ASSET}`, headers: [] };
  }
  const child = Bun.spawn([process.execPath, join(SERVER_ROOT, 'src/main.ts'), 'serve'], {
    cwd: SERVER_ROOT,
    env: { PATH: process.env.PATH ?? '', EASEL_DATA_DIR: join(work, 'data'), EASEL_PORT: String(p), EASEL_LOG_LEVEL: kind },
    stdin: 'ignore',
    stdout: Bun.file(join(work, `easel-${kind}.log`)),
    stderr: 'ignore',
  });
  return { name: `Easel (${kind})`, process: child, url: `http://127.0.0.1:${p}/c/${SLUG}/${ASSET}`, headers: ['-H', `cookie: ${cookie}`] };
}

async function answering(server: Server): Promise<void> {
  for (let i = 0; i < 400; i++) {
    try {
      const res = await fetch(server.url, { headers: server.headers.length ? { cookie } : {} });
      if (res.status === 200 && (await res.text()) === js) return;
    } catch {
      // not up yet
    }
    await Bun.sleep(25);
  }
  throw new Error(`${server.name} did not answer with the asset`);
}

async function run(cmd: string[]): Promise<string> {
  const child = Bun.spawn(cmd, { stdout: 'pipe', stderr: 'pipe' });
  const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
  if ((await child.exited) !== 0) throw new Error(`${cmd[0]} failed: ${err}`);
  return out;
}

/**
 * Where each sample of `perf script` fell, in ns of CPU (cpu-clock periods):
 * the leaf's part of the process, and for Bun's own code and libc whether a
 * JavaScript frame (code the JIT made) is further up the stack, i.e. whether
 * JavaScript asked for that work.
 */
function split(script: string): Record<string, number> {
  const out: Record<string, number> = {};
  const add = (key: string, ns: number) => (out[key] = (out[key] ?? 0) + ns);
  for (const sample of script.split('\n\n')) {
    const lines = sample.trim().split('\n');
    const head = /^(.*?)\s+\d+\s+(\d+)\s*$/.exec(lines[0] ?? '');
    if (!head) continue;
    const ns = Number(head[2]);
    add('total', ns);
    // The process's other threads: the JIT compiler, the collector's helpers, mimalloc's scavenger.
    if (!head[1]!.startsWith('bun')) {
      add('other threads', ns);
      continue;
    }
    const frames = lines.slice(1);
    const isJs = (frame: string) => frame.includes('[JIT]') || frame.includes('/perf-');
    const leaf = frames[0] ?? '';
    if (leaf.includes('[kernel.kallsyms]')) add('kernel', ns);
    else if (isJs(leaf)) add('JavaScript', ns);
    else add(frames.some(isJs) ? 'native for JS' : 'server, outside JS', ns);
  }
  return out;
}

const COLUMNS = ['total', 'kernel', 'server, outside JS', 'native for JS', 'JavaScript', 'other threads'];

interface Split {
  name: string;
  rps: number;
  usPerRequest: Record<string, number>;
}

async function measure(kind: 'bare' | 'warn' | 'info'): Promise<Split> {
  const server = start(kind);
  try {
    await answering(server);
    await run(['wrk', '-t2', '-c64', '-d2s', ...server.headers, server.url]); // warm the JIT
    const data = join(work, `${kind}.perf`);
    const perf = Bun.spawn(
      ['perf', 'record', '-q', '-F', '999', '-g', '-o', data, '-p', String(server.process.pid), '--', 'sleep', String(SECONDS)],
      {
        stdout: 'ignore',
        stderr: 'pipe',
      },
    );
    const out = await run(['wrk', '-t2', '-c64', `-d${SECONDS}s`, ...server.headers, server.url]);
    await perf.exited;
    const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
    const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
    const ns = split(await run(['perf', 'script', '-i', data, '-F', 'comm,tid,period,ip,dso']));
    const usPerRequest: Record<string, number> = {};
    for (const key of COLUMNS) usPerRequest[key] = (ns[key] ?? 0) / 1000 / requests;
    return { name: server.name, rps, usPerRequest };
  } finally {
    server.process.kill('SIGTERM');
    await server.process.exited;
  }
}

const results: Split[] = [];
try {
  for (const kind of ['bare', 'warn', 'info'] as const) results.push(await measure(kind));
} finally {
  rmSync(work, { recursive: true, force: true });
}

console.log(`\nµs of CPU per request (perf record -F 999, wrk -t2 -c64 -d${SECONDS}s, ${navigator.hardwareConcurrency} CPUs)\n`);
console.log(`${'server'.padEnd(18)} ${'req/s'.padStart(8)} ${COLUMNS.map((c) => c.padStart(20)).join('')}`);
for (const r of results) {
  console.log(
    `${r.name.padEnd(18)} ${r.rps.toFixed(0).padStart(8)} ${COLUMNS.map((c) => r.usPerRequest[c]!.toFixed(2).padStart(20)).join('')}`,
  );
}
