// Soak (issue 19, a first part): a mixed workload against a real server
// process — page views, KV writes and reads, file uploads, realtime messages
// and deploys — counted in operations, not minutes (EASEL_SOAK_OPS, default
// 12,000; `bun run stress` 150,000), sampling the server's resident memory,
// open descriptors, WAL size and event-loop lag every tenth of the run. None
// may grow without bound: the last samples stay within a margin of the first.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { readdirSync, readFileSync, statSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { startEasel, stopEasel, type Easel } from '../spawn.ts';

const OPS = Number(process.env.EASEL_SOAK_OPS ?? 12_000);
const METRICS_TOKEN = 'soak-metrics-token-0123456789abcdef';
const PUBLISH_EVERY = Math.max(10, Math.ceil(OPS / 90 / 10) * 10);
const dataDir = mkdtempSync(join(tmpdir(), 'easel-soak-'));
let easel: Easel;
let base = '';
let origin = '';
let cookie = '';
let canvas: { id: string; slug: string; apiKey: string };

interface Sample {
  ops: number;
  rssMb: number;
  fds: number;
  walMb: number;
  lagMs: number;
}

beforeAll(async () => {
  easel = await startEasel({ env: { EASEL_DATA_DIR: dataDir, EASEL_RATELIMIT_ENABLED: 'false', EASEL_METRICS_TOKEN: METRICS_TOKEN } });
  base = easel.url;
  origin = base.replace('127.0.0.1', 'localhost');
  const login = await fetch(`${base}/auth/dev/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ email: 'soak@example.com' }),
  });
  cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  canvas = await (
    await fetch(`${base}/api/canvases`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin, cookie },
      body: JSON.stringify({ title: 'Soak' }),
    })
  ).json();
});
afterAll(async () => {
  await stopEasel(easel);
  rmSync(dataDir, { recursive: true, force: true });
});

async function sample(ops: number): Promise<Sample> {
  const pid = easel.proc.pid;
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  const fds = readdirSync(`/proc/${pid}/fd`).length;
  let wal = 0;
  try {
    wal = statSync(join(dataDir, 'easel.db-wal')).size;
  } catch {
    wal = 0;
  }
  const metrics = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const lag = Number(/^easel_event_loop_lag_max_seconds (\S+)$/m.exec(metrics)?.[1] ?? 0);
  return { ops, rssMb: rssKb / 1024, fds, walMb: wal / 1024 / 1024, lagMs: lag * 1000 };
}

test(`${OPS} mixed operations: memory, descriptors and WAL stay bounded, every realtime message arrives once (lag is reported)`, async () => {
  const key = { authorization: `Bearer ${canvas.apiKey}` };
  await fetch(`${base}/v1/canvases/${canvas.id}/deploy`, {
    method: 'PUT',
    body: zipSync({ 'index.html': new TextEncoder().encode('<h1>soak</h1>'), 'app.js': new TextEncoder().encode('x'.repeat(20_000)) }),
    headers: key,
  });
  const session = { cookie, origin };
  // One realtime pair for the whole run: messages flow through the hub all along.
  const wsUrl = `${base.replace('http', 'ws')}/v1/c/${canvas.slug}/realtime`;
  const open = (headers: Record<string, string>) =>
    new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(wsUrl, { headers } as unknown as string[]);
      ws.onopen = () => resolve(ws);
      ws.onerror = () => reject(new Error('realtime did not open'));
    });
  const sender = await open(session);
  const receiver = await open(session);
  let received = 0;
  let expected = Infinity;
  let allDelivered!: () => void;
  const delivered = new Promise<void>((resolve) => (allDelivered = resolve));
  receiver.onmessage = (e) => {
    if (String(e.data).includes('"type":"message"') && ++received >= expected) allDelivered();
  };
  const subscribed = (ws: WebSocket) =>
    new Promise<void>((resolve) => {
      const previous = ws.onmessage;
      ws.onmessage = (e) => {
        if (String(e.data).includes('"type":"subscribed"')) resolve();
        previous?.call(ws, e);
      };
      ws.send(JSON.stringify({ type: 'subscribe', channel: 'soak' }));
    });
  await subscribed(sender);
  await subscribed(receiver);

  const samples: Sample[] = [await sample(0)];
  const every = Math.max(1, Math.floor(OPS / 10));
  const failures: string[] = [];
  let published = 0;
  for (let op = 1; op <= OPS; op++) {
    const kind = op % 10;
    let res: Response | null = null;
    if (kind <= 3) res = await fetch(`${base}/c/${canvas.slug}/app.js`, { headers: session });
    else if (kind <= 5)
      res = await fetch(`${base}/v1/c/${canvas.slug}/kv/k${op % 200}`, {
        method: 'PUT',
        headers: { ...session, 'content-type': 'application/json' },
        body: JSON.stringify({ op }),
      });
    // The key the previous operation wrote.
    else if (kind === 6) res = await fetch(`${base}/v1/c/${canvas.slug}/kv/k${(op - 1) % 200}`, { headers: session });
    // 90 messages spread over the run: within realtime's 100 publishes a minute per connection however long it takes.
    else if (kind === 7 && op % PUBLISH_EVERY === 7) {
      sender.send(JSON.stringify({ type: 'publish', channel: 'soak', data: { op } }));
      published++;
    } else if (kind === 8 && op % 50 === 8) {
      const form = new FormData();
      form.append('file', new Blob([`file ${op}`]), `f${op}.txt`);
      res = await fetch(`${base}/v1/c/${canvas.slug}/files`, { method: 'POST', headers: session, body: form });
    } else if (kind === 9 && op % 500 === 9) {
      res = await fetch(`${base}/v1/canvases/${canvas.id}/deploy`, {
        method: 'PUT',
        body: zipSync({
          'index.html': new TextEncoder().encode(`<h1>soak ${op}</h1>`),
          'app.js': new TextEncoder().encode('x'.repeat(20_000)),
        }),
        headers: key,
      });
    }
    if (res) {
      await res.arrayBuffer();
      if (res.status >= 400 && failures.length < 5) failures.push(`${res.status} ${res.url}`);
    }
    if (op % every === 0) samples.push(await sample(op));
  }
  // Every message reaches the other socket, once.
  expected = published;
  if (received >= expected) allDelivered();
  await delivered;
  sender.close();
  receiver.close();
  process.stdout.write(
    `soak: ${OPS} operations (${published} realtime messages, ${received} delivered)\n` +
      samples
        .map(
          (s) =>
            `  ${String(s.ops).padStart(7)} ops: RSS ${s.rssMb.toFixed(0)} MB, fds ${s.fds}, WAL ${s.walMb.toFixed(1)} MB, lag max ${s.lagMs.toFixed(1)} ms`,
        )
        .join('\n') +
      '\n',
  );
  expect(failures).toEqual([]);
  expect(received).toBe(published);
  // Unbounded growth shows as the late samples pulling away from the early ones (after warm-up).
  const early = samples.slice(1, 4);
  const late = samples.slice(-3);
  const avg = (xs: Sample[], f: (s: Sample) => number) => xs.reduce((n, s) => n + f(s), 0) / xs.length;
  expect(avg(late, (s) => s.rssMb)).toBeLessThan(avg(early, (s) => s.rssMb) * 1.5 + 64);
  expect(avg(late, (s) => s.fds)).toBeLessThan(avg(early, (s) => s.fds) + 32);
  // SQLite checkpoints the WAL as it goes (default 1,000 pages): it must not keep growing.
  expect(Math.max(...samples.map((s) => s.walMb))).toBeLessThan(64);
}, 600_000);
