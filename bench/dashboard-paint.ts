// The dashboard's first paint and time to a loaded view on localhost, in
// headless Chromium (the bar: first paint under 100 ms). Twenty
// loads of the home page with a signed-in person and a few canvases; medians.
//   bun bench/dashboard-paint.ts [loads=20]
import { chromium } from 'playwright-core';
import { startTestApp } from '../test/harness.ts';

const LOADS = Number(process.argv[2] ?? 20);
const app = await startTestApp({ listen: true, env: { EASEL_RATELIMIT_ENABLED: 'false', EASEL_LOG_LEVEL: 'warn' } });
const cookie = await app.signIn('bench@example.com');
for (let i = 0; i < 5; i++) await app.request('/api/canvases', { method: 'POST', cookie, json: { title: `Canvas ${i}` } });
const origin = new URL(app.ctx.config.baseUrl).origin;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
const context = await browser.newContext();
const at = cookie.indexOf('=');
await context.addCookies([{ name: cookie.slice(0, at), value: cookie.slice(at + 1), url: origin }]);
const page = await context.newPage();
const paints: number[] = [];
const loaded: number[] = [];
for (let i = 0; i < LOADS + 2; i++) {
  await page.goto(`${origin}/`);
  await page.locator('body[data-loaded="true"]').waitFor();
  const t = await page.evaluate(() => ({
    paint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
    loaded: performance.now(),
  }));
  // The first two loads warm the caches.
  if (i >= 2) {
    paints.push(t.paint);
    loaded.push(t.loaded);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  `dashboard on localhost, ${LOADS} loads: first contentful paint median ${median(paints).toFixed(0)} ms (max ${Math.max(...paints).toFixed(0)} ms); every list loaded median ${median(loaded).toFixed(0)} ms`,
);
await browser.close();
await app.close();
