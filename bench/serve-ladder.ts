// How much of Easel's page-view cost is the work every such answer must do,
// and how much is Easel's own: a bare Bun.serve climbs a ladder of what
// Easel does for a signed-in viewer's 10 KB asset, one rung at a time, each
// rung its own process under the load of bench/serve.ts; Easel at info is
// the top. Rungs (each adds to the one before):
//   bare      one header, the bytes from memory (serve.ts's baseline)
//   headers   Easel's answer headers, from a reused Headers with the request's id set
//   reads     the request's headers Easel reads (id, cookie, Service-Worker,
//             If-None-Match, Range, Accept-Encoding), its URL and method
//   session   the session cookie parsed and its token's SHA-256 looked up in a Map
//   wrapper   Easel's own request wrapper (src/http/handler.ts) and logger at
//             info: the request id, meta, timing, the batched JSON line
//   easel     `easel serve` at info
// Rounds alternate the order; prints CPU µs per request (median of rounds)
// and each rung's step.
//
//   bun bench/serve-ladder.ts        (BENCH_SECONDS=6, BENCH_ROUNDS=3; needs wrk)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { wrapHandler } from '../src/http/handler.ts';
import { metaOf } from '../src/http/meta.ts';
import { newRequestId } from '../src/http/request-id.ts';
import { sha256Hex } from '../src/ids.ts';
import { createLogger } from '../src/log.ts';
import { cpuSeconds, SERVER_ROOT, seedServedAsset } from './support.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SLUG = 'bench-canvas';
const ASSET = 'assets/app.js';
const RUNGS = ['bare', 'headers', 'reads', 'session', 'wrapper-warn', 'wrapper'] as const;
type Rung = (typeof RUNGS)[number];

if (process.argv[2] === '--rung') {
  const rung = process.argv[3] as Rung;
  const level = RUNGS.indexOf(rung);
  const bytes = readFileSync(process.argv[5]!);
  const answerHeaders = new Headers(JSON.parse(process.argv[6]!) as Record<string, string>);
  const sessions = new Map<string, object>();
  let seen = 0;
  const inner = (request: Request, id: string): Response => {
    if (level === 0) return new Response(bytes, { headers: { 'content-type': 'text/javascript; charset=utf-8' } });
    if (level >= 2) {
      const url = request.url;
      if (request.method !== 'GET' || url.length === 0) throw new Error('unexpected');
      const cookie = request.headers.get('cookie');
      if (level >= 3 && cookie !== null) {
        const eq = cookie.indexOf('=');
        const token = cookie.slice(eq + 1);
        const key = sha256Hex(token);
        if (sessions.get(key) === undefined) sessions.set(key, { token: key });
      }
      if (request.headers.get('service-worker') === 'script') seen++;
      if (request.headers.get('if-none-match') !== null) seen++;
      if (request.headers.get('range') !== null) seen++;
      if (request.headers.get('accept-encoding') !== null) seen++;
    }
    if (level < 4) {
      answerHeaders.set('x-request-id', id);
      return new Response(bytes, { headers: answerHeaders });
    }
    // As send-file.ts answers: the id on the ready set, the wrapper told the answer is finished.
    const meta = metaOf(request);
    answerHeaders.set('x-request-id', meta.id);
    const response = new Response(bytes, { headers: answerHeaders });
    meta.finishedIn = response;
    return response;
  };
  let fetch: (request: Request, server: unknown) => Response | Promise<Response>;
  if (level >= 4) {
    const served = wrapHandler((request) => inner(request, ''), createLogger(rung === 'wrapper' ? 'info' : 'warn'));
    fetch = (request, server) => served(request, server as never);
  } else {
    fetch = (request) => {
      const id = level >= 2 ? (request.headers.get('x-request-id') ?? newRequestId()) : newRequestId();
      return inner(request, id);
    };
  }
  const server = Bun.serve({ hostname: '127.0.0.1', port: Number(process.argv[4]), development: false, fetch });
  process.stderr.write(`rung ${rung} on ${server.port} (${seen})\n`);
  await new Promise(() => {});
}

const work = mkdtempSync(join(tmpdir(), 'easel-bench-ladder-'));
const dataDir = join(work, 'data');
const js = `// bench asset\n${Array.from({ length: 400 }, (_, i) => `export const v${i} = ${i};`).join('\n')}\n`.slice(0, 10 * 1024);
const jsBytes = new TextEncoder().encode(js);
const assetFile = join(work, 'app.js');
await Bun.write(assetFile, jsBytes);
const cookie = await seedServedAsset(dataDir, SLUG, ASSET, jsBytes);

async function up(url: string, headers: Record<string, string>): Promise<Response> {
  for (let i = 0; i < 400; i++) {
    try {
      const res = await fetch(url, { headers });
      if (res.status === 200 && (await res.clone().text()) === js) return res;
    } catch {
      // not up yet
    }
    await Bun.sleep(25);
  }
  throw new Error(`${url} did not answer with the asset`);
}

async function load(pid: number, url: string): Promise<number> {
  const before = cpuSeconds(pid);
  const proc = Bun.spawn(['wrk', '-t2', '-c64', `-d${SECONDS}s`, '-H', `cookie: ${cookie}`, url], { stdout: 'pipe' });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  return ((cpuSeconds(pid) - before) / requests) * 1e6;
}

let port = 43_100;
function easel(level: string) {
  const p = port++;
  const proc = Bun.spawn([process.execPath, join(SERVER_ROOT, 'src/main.ts'), 'serve'], {
    cwd: SERVER_ROOT,
    env: { PATH: process.env.PATH ?? '', EASEL_DATA_DIR: dataDir, EASEL_PORT: String(p), EASEL_LOG_LEVEL: level },
    stdin: 'ignore',
    stdout: Bun.file(join(work, 'easel.log')),
    stderr: 'ignore',
  });
  return { proc, url: `http://127.0.0.1:${p}/c/${SLUG}/${ASSET}` };
}

// Easel's own answer headers, for the rungs to send.
const first = easel('info');
const answer = await up(first.url, { cookie, 'accept-encoding': 'identity' });
first.proc.kill('SIGTERM');
await first.proc.exited;
const headers = Object.fromEntries([...answer.headers].filter(([k]) => !['date', 'content-length', 'x-request-id'].includes(k)));

const figures = new Map<string, number[]>();
try {
  for (let round = 0; round < ROUNDS; round++) {
    const order = [...RUNGS, 'easel-warn', 'easel'];
    if (round % 2 === 1) order.reverse();
    for (const rung of order) {
      let proc;
      let url;
      if (rung.startsWith('easel')) ({ proc, url } = easel(rung === 'easel' ? 'info' : 'warn'));
      else {
        const p = port++;
        proc = Bun.spawn([process.execPath, import.meta.path, '--rung', rung, String(p), assetFile, JSON.stringify(headers)], {
          stdout: 'ignore',
          stderr: 'ignore',
        });
        url = `http://127.0.0.1:${p}/${ASSET}`;
      }
      try {
        await up(url, { cookie });
        figures.set(rung, [...(figures.get(rung) ?? []), await load(proc.pid, url)]);
      } finally {
        proc.kill('SIGTERM');
        await proc.exited;
      }
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`\nCPU µs per request, wrk -t2 -c64 -d${SECONDS}s, ${ROUNDS} rounds (median; each round's figure after it)\n`);
console.log('rung          µs/req    step   rounds');
let previous = 0;
for (const rung of [...RUNGS, 'easel-warn', 'easel']) {
  const xs = figures.get(rung)!;
  const m = median(xs);
  const step = previous === 0 ? '' : `${m - previous >= 0 ? '+' : ''}${(m - previous).toFixed(2)}`;
  console.log(`${rung.padEnd(12)}${m.toFixed(2).padStart(8)}${step.padStart(8)}   ${xs.map((x) => x.toFixed(1)).join(' ')}`);
  previous = m;
}
