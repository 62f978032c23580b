// The dashboard's first paint and time to a loaded view on localhost, in
// headless Chromium (issue 38's bar: first contentful paint under 100 ms
// median). The server is started as `easel serve` starts it (it listens, and
// builds what it bundles at start). The first load after start is reported on
// its own (it is the one that would wait for a bundle built on request), then
// the median of `loads` more, with a signed-in person and a few canvases:
// when the page had its first byte, its first contentful paint, and when
// every list had loaded. The page must have run the bundled dashboard,
// /assets/dashboard.js (its size and fetch time are printed).
//   bun bench/dashboard-paint.ts [loads=20]
// BENCH_EASEL_ROOT=<checkout> measures another worktree's server and page.
import { chromium } from 'playwright-core';
import { join } from 'node:path';
import type { startTestApp as Start } from '../test/harness.ts';

const LOADS = Number(process.argv[2] ?? 20);
const root = process.env.BENCH_EASEL_ROOT ?? join(import.meta.dir, '..');
const { startTestApp } = (await import(join(root, 'test/harness.ts'))) as { startTestApp: typeof Start };

const app = await startTestApp({ listen: true, env: { EASEL_RATELIMIT_ENABLED: 'false', EASEL_LOG_LEVEL: 'warn' } });
const cookie = await app.signIn('bench@example.com');
for (let i = 0; i < 5; i++) await app.request('/api/canvases', { method: 'POST', cookie, json: { title: `Canvas ${i}` } });
const origin = new URL(app.ctx.config.baseUrl).origin;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
const context = await browser.newContext();
const at = cookie.indexOf('=');
await context.addCookies([{ name: cookie.slice(0, at), value: cookie.slice(at + 1), url: origin }]);
const page = await context.newPage();

interface Load {
  firstByte: number;
  paint: number;
  loaded: number;
  bundleMs: number;
  bundleBytes: number;
}

async function load(): Promise<Load> {
  await page.goto(`${origin}/`);
  await page.locator('body[data-loaded="true"]').waitFor();
  const t = await page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
    const bundle = performance.getEntriesByType('resource').find((r) => new URL(r.name).pathname === '/assets/dashboard.js') as
      PerformanceResourceTiming | undefined;
    return {
      firstByte: nav?.responseStart ?? NaN,
      paint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
      loaded: performance.now(),
      bundleMs: bundle ? bundle.responseEnd - bundle.startTime : NaN,
      // A 304 revalidation has no body: its decoded size is the cached copy's.
      bundleBytes: bundle?.decodedBodySize ?? NaN,
    };
  });
  if (Number.isNaN(t.bundleMs)) throw new Error('the page did not load /assets/dashboard.js: not the bundled dashboard');
  return t;
}

const ms = (n: number) => `${n.toFixed(0)} ms`;
const first = await load();
// One more load warms Chromium's caches before the measured ones.
await load();
const loads: Load[] = [];
for (let i = 0; i < LOADS; i++) loads.push(await load());
const median = (pick: (l: Load) => number) => [...loads.map(pick)].sort((a, b) => a - b)[Math.floor(loads.length / 2)]!;
console.log(
  `first load after start: first byte ${ms(first.firstByte)}, first contentful paint ${ms(first.paint)}, dashboard.js ${ms(first.bundleMs)}, every list loaded ${ms(first.loaded)}`,
);
console.log(
  `then ${LOADS} loads, medians: first byte ${ms(median((l) => l.firstByte))}, first contentful paint ${ms(median((l) => l.paint))} (max ${ms(Math.max(...loads.map((l) => l.paint)))}), dashboard.js ${ms(median((l) => l.bundleMs))} (${(first.bundleBytes / 1024).toFixed(1)} KB), every list loaded ${ms(median((l) => l.loaded))}`,
);
await browser.close();
await app.close();
