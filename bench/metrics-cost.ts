// What counting a request for /metrics costs, against the cheapest request
// Easel serves: a canvas page view (a signed-in owner, a 10 KB asset),
// through the app's own handler in process (no sockets, so the figure is an
// upper bound on the share: a real request also pays for HTTP parsing and
// the kernel). The rule: prom-client stays unless it costs more than
// 2% of serve throughput.
//
//   bun bench/metrics-cost.ts [page views=50000]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createCore } from '../src/foundation.ts';
import { createLogger } from '../src/log.ts';

const VIEWS = Number(process.argv[2] ?? 50_000);
const dataDir = mkdtempSync(join(tmpdir(), 'easel-bench-metrics-'));
const ctx = await createCore(loadConfig({ EASEL_DATA_DIR: dataDir, EASEL_PORT: '8080', EASEL_LOG_LEVEL: 'warn' }), {
  log: createLogger('warn', () => {}),
});
const app = createApp(ctx);
await app.start();
const base = 'http://localhost:8080';
const call = (path: string, init: RequestInit = {}) => app.handle(new Request(base + path, init));

const login = await call('/auth/dev/login', {
  method: 'POST',
  headers: { 'content-type': 'application/json', origin: base },
  body: JSON.stringify({ email: 'bench@example.com' }),
});
const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
const created = await (
  await call('/api/canvases', {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base, cookie },
    body: JSON.stringify({ title: 'Bench', slug: 'bench' }),
  })
).json();
const asset = new TextEncoder().encode('// asset\n' + 'x'.repeat(10 * 1024));
const deployed = await call(`/v1/canvases/${created.id}/deploy`, {
  method: 'PUT',
  headers: { authorization: `Bearer ${created.apiKey}` },
  body: zipSync({ 'index.html': new TextEncoder().encode('<h1>bench</h1>'), 'app.js': asset }),
});
if (deployed.status !== 200) throw new Error(`deploy: ${deployed.status} ${await deployed.text()}`);

async function pageViews(n: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const res = await call('/c/bench/app.js', { headers: { cookie } });
    await res.arrayBuffer();
  }
  return ((performance.now() - t0) * 1000) / n;
}

function observations(n: number): number {
  const request = new Request(base + '/c/bench/app.js', { headers: { cookie } });
  const t0 = performance.now();
  for (let i = 0; i < n; i++) app.features.metrics.observeRequest(request, 200, 0.0004);
  return ((performance.now() - t0) * 1e6) / n;
}

await pageViews(2000);
observations(100_000);
const rounds: Array<{ pageUs: number; observeNs: number }> = [];
for (let r = 0; r < 3; r++) rounds.push({ pageUs: await pageViews(VIEWS), observeNs: observations(VIEWS * 10) });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pageUs = median(rounds.map((r) => r.pageUs));
const observeNs = median(rounds.map((r) => r.observeNs));
console.log(`page view through the app (in process): ${pageUs.toFixed(2)} µs`);
console.log(`counting it for /metrics (route class, labels, histogram): ${observeNs.toFixed(0)} ns`);
console.log(`share of a page view: ${((observeNs / 1000 / pageUs) * 100).toFixed(2)}% (rule: under 2%)`);
await app.stop();
ctx.db!.close();
rmSync(dataDir, { recursive: true, force: true });
