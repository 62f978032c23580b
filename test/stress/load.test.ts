// passes: embedded, s3
// Load (issue 19 item 1, concurrency, the heavy part), against a real server
// process whose memory is read from /proc: 10 deploys of EASEL_LOAD_DEPLOY_MB
// each at once (default 10; `bun run stress` sends 95, just under the 100 MB
// canvas cap) must all publish or fail cleanly while the server stays under
// 400 MB; and realtime on 20 canvases with 30 sockets each, publishing 50
// messages a second per canvas for EASEL_LOAD_REALTIME_S seconds (default 2,
// 20 in stress): every message reaches each of the 30 sockets once (the
// sender hears its own, as the SDK expects), and
// the p99 of publish-to-delivery is printed.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { startEasel, stopEasel, type Easel } from '../spawn.ts';
import { startS3Server } from '../support/s3-server.ts';

const DEPLOY_MB = Number(process.env.EASEL_LOAD_DEPLOY_MB ?? 10);
const REALTIME_S = Number(process.env.EASEL_LOAD_REALTIME_S ?? 2);
const CANVASES = 20;
const SOCKETS = 30;
const RATE = 50;

let easel: Easel;
let origin: string;
// Its own data directory: the default (./data under the checkout) would pile up canvases run after run.
const dataDir = mkdtempSync(join(tmpdir(), 'easel-load-'));

// `bun run test:s3`: the same load with every blob going to a real S3-compatible server.
const s3 = process.env.EASEL_TEST_BLOBS === 's3' ? await startS3Server('easel-load') : null;

beforeAll(async () => {
  easel = await startEasel({ env: { EASEL_RATELIMIT_ENABLED: 'false', EASEL_DATA_DIR: dataDir, ...s3?.env('load/') } });
  origin = easel.url.replace('127.0.0.1', 'localhost');
});
afterAll(async () => {
  await stopEasel(easel);
  await s3?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const memory = (field: 'VmRSS' | 'VmHWM') =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${easel.proc.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

async function signIn(email: string): Promise<string> {
  const res = await fetch(`${easel.url}/auth/dev/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ email }),
  });
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

async function api(cookie: string, method: string, path: string, json?: unknown): Promise<any> {
  const res = await fetch(`${easel.url}${path}`, {
    method,
    headers: { cookie, origin, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

test(`10 deploys of ${DEPLOY_MB} MB at once: all publish, the server stays under 400 MB`, async () => {
  const owner = await signIn('loader@example.com');
  const canvases = await Promise.all(Array.from({ length: 10 }, (_, i) => api(owner, 'POST', '/api/canvases', { title: `Load ${i}` })));
  // Ten different archives (content addressing would store one copy of ten equal ones), made before the clock starts.
  // Files of at most 20 MB: one file may hold 25 MB.
  const zips = canvases.map((_, i) => {
    const files: Record<string, Uint8Array | [Uint8Array, { level: 0 }]> = { 'index.html': new TextEncoder().encode(`<h1>load ${i}</h1>`) };
    for (let left = DEPLOY_MB * 1024 * 1024, n = 0; left > 0; n++) {
      const bytes = new Uint8Array(Math.min(left, 20 * 1024 * 1024));
      for (let at = 0; at < bytes.length; at += 65536) crypto.getRandomValues(bytes.subarray(at, Math.min(at + 65536, bytes.length)));
      files[`part-${n}.bin`] = [bytes, { level: 0 }];
      left -= bytes.length;
    }
    return zipSync(files);
  });
  const rssBefore = memory('VmRSS');
  // Linux: writing 5 to clear_refs resets the peak (VmHWM) to the current size, so VmHWM afterwards is this phase's peak.
  writeFileSync(`/proc/${easel.proc.pid}/clear_refs`, '5');
  const started = performance.now();
  const answers = await Promise.all(
    canvases.map((c, i) =>
      fetch(`${easel.url}/v1/canvases/${c.id}/deploy`, {
        method: 'PUT',
        body: zips[i],
        headers: { authorization: `Bearer ${c.apiKey}` },
      }).then(async (res) => ({ status: res.status, body: await res.json() })),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  const peak = memory('VmHWM');
  expect(answers.map((a) => [a.status, a.body.outcome ?? a.body.code])).toEqual(Array(10).fill([200, 'published']));
  expect(peak).toBeLessThan(400);
  process.stdout.write(
    `load: 10 × ${DEPLOY_MB} MB deploys at once in ${seconds.toFixed(1)} s (${((10 * DEPLOY_MB) / seconds).toFixed(0)} MB/s); ` +
      `server RSS ${rssBefore.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB (VmHWM)\n`,
  );
}, 600_000);

test(`realtime: ${CANVASES} canvases × ${SOCKETS} sockets, ${RATE} messages a second per canvas for ${REALTIME_S} s: each delivered once to every socket`, async () => {
  // An owner and five editors: managers may fill all 30 slots, five sockets each.
  const people = await Promise.all(Array.from({ length: 6 }, (_, i) => signIn(`rt${i}@example.com`)));
  const channel = { subscribe: 'viewers', publish: 'viewers', seePresence: 'none', participatePresence: 'none' };
  const canvases = [];
  for (let i = 0; i < CANVASES; i++) {
    const c = await api(people[0]!, 'POST', '/api/canvases', { title: `Room ${i}` });
    for (let p = 1; p < 6; p++)
      await api(people[0]!, 'PUT', `/api/canvases/${c.id}/members`, { email: `rt${p}@example.com`, role: 'editor' });
    await api(people[0]!, 'PATCH', `/api/canvases/${c.id}/capabilities`, {
      realtime: true,
      expectedRuntimePolicy: null,
      runtimePolicy: { channels: { load: channel } },
    });
    canvases.push(c);
  }
  const latencies: number[] = [];
  /** Per receiving socket: message ids seen (a duplicate fails the test). */
  const received: Array<Set<string>> = [];
  let duplicates = 0;
  let delivered = 0;
  /** Set once publishing is done: resolves when the last delivery arrives (the sockets' own signal). */
  let expectAll: { count: number; resolve: () => void } | null = null;
  const sockets: Array<{ ws: WebSocket; canvas: number }> = [];
  for (let ci = 0; ci < CANVASES; ci++) {
    for (let s = 0; s < SOCKETS; s++) {
      const cookie = people[Math.floor(s / 5)]!;
      const ws = new WebSocket(`${easel.url.replace('http', 'ws')}/v1/c/${canvases[ci].slug}/realtime`, {
        headers: { cookie, origin },
      } as unknown as string[]);
      const seen = new Set<string>();
      received.push(seen);
      await new Promise<void>((resolve, reject) => {
        ws.onopen = () => ws.send(JSON.stringify({ type: 'subscribe', channel: 'load' }));
        ws.onerror = () => reject(new Error(`socket ${ci}/${s} did not open`));
        ws.onmessage = (e) => {
          const frame = JSON.parse(String(e.data));
          if (frame.type === 'subscribed') resolve();
          else if (frame.type === 'message') {
            if (seen.has(frame.data.id)) duplicates++;
            seen.add(frame.data.id);
            latencies.push(Date.now() - frame.data.at);
            if (++delivered === expectAll?.count) expectAll.resolve();
          } else if (frame.type === 'error') reject(new Error(JSON.stringify(frame)));
        };
      });
      sockets.push({ ws, canvas: ci });
    }
  }
  // Each canvas publishes RATE messages a second, round-robin over its sockets (one timer tick per 1/RATE s).
  const perCanvas = RATE * REALTIME_S;
  for (let tick = 0; tick < perCanvas; tick++) {
    for (let ci = 0; ci < CANVASES; ci++) {
      const index = ci * SOCKETS + (tick % SOCKETS);
      const id = `${ci}-${tick}`;
      sockets[index]!.ws.send(JSON.stringify({ type: 'publish', channel: 'load', event: 'x', data: { id, at: Date.now() } }));
    }
    await new Promise((resolve) => setTimeout(resolve, 1000 / RATE));
  }
  // Every socket of the canvas hears each message once, the sender included.
  const expected = CANVASES * perCanvas * SOCKETS;
  const total = () => received.reduce((n, s) => n + s.size, 0);
  // Nothing lost means every delivery arrives: wait for the last one (a loss leaves the test to its timeout).
  await new Promise<void>((resolve) => {
    expectAll = { count: expected, resolve };
    if (delivered >= expected) resolve();
  });
  const rss = memory('VmRSS');
  for (const { ws } of sockets) ws.close();
  const sorted = [...latencies].sort((a, b) => a - b);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
  process.stdout.write(
    `realtime load: ${CANVASES * perCanvas} messages to ${CANVASES * SOCKETS} sockets, ${total()} of ${expected} deliveries, ${duplicates} duplicates; ` +
      `publish-to-delivery p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms, max ${sorted.at(-1)} ms; server RSS ${rss.toFixed(0)} MB\n`,
  );
  expect(duplicates).toBe(0);
  expect(total()).toBe(expected);
}, 600_000);
