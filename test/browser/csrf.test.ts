// passes: embedded — Chromium journeys; the API suites run their routes in the s3 and cluster passes
// Issue 23 items 2 and 12 in a real browser. Over plain http to a host that is
// not localhost, Chromium sends no Sec-Fetch-* headers, and a page on a
// sibling host (another canvas host, here evil.easel.test) is same-site with
// the dashboard (easel.test), so the SameSite=Lax session cookie rides along
// on its form posts. Only the Origin header tells the dashboard apart.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, BrowserContext } from 'playwright-core';
import { dashboardOrigin } from '../../src/http/cross-site.ts';
import { startTestApp, type TestApp } from '../harness.ts';
import { api, launchChromium } from './helpers.ts';

let app: TestApp;
let attacker: ReturnType<typeof Bun.serve>;
let browser: Browser;
let context: BrowserContext;
let cookie: string;
let canvas: { id: string };
let base: string;

/** The attacker's page: a form that posts itself to `target` as soon as it loads. */
const formPage = (target: string) =>
  `<!doctype html><form id="f" method="POST" enctype="text/plain" action="${target}"><input name='{"title":"x","a' value='":1}'></form>` +
  `<script>document.getElementById('f').submit()</script>`;

beforeAll(async () => {
  // EASEL_BASE_URL's :0 becomes the bound port.
  app = await startTestApp({ listen: true, env: { EASEL_BASE_URL: 'http://easel.test:0', EASEL_RATELIMIT_ENABLED: 'false' } });
  base = dashboardOrigin(app.ctx.config);
  cookie = await app.signIn('victim@example.com', 'Victim');
  canvas = await api(app, 'POST', '/api/canvases', { cookie, json: { title: 'Victim canvas' } });
  attacker = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: (req) => new Response(formPage(new URL(req.url).searchParams.get('target')!), { headers: { 'content-type': 'text/html' } }),
  });
  // easel.test and its subdomains are this machine: plain http, and not localhost (no Sec-Fetch-* headers).
  browser = await launchChromium(['--host-resolver-rules=MAP *.easel.test 127.0.0.1, MAP easel.test 127.0.0.1']);
  context = await browser.newContext();
  const at = cookie.indexOf('=');
  await context.addCookies([{ name: cookie.slice(0, at), value: cookie.slice(at + 1), url: base }]);
});

afterAll(async () => {
  await context?.close().catch(() => {});
  await browser?.close();
  attacker?.stop(true);
  await app?.close();
});

const stillSignedIn = async () => (await app.request('/api/me', { cookie })).status === 200;
const canvasStatus = async () => (await api(app, 'GET', `/api/canvases/${canvas.id}`, { cookie })).status as string;

describe('a sibling host posting forms with the visitor’s cookie', () => {
  for (const [what, path] of [
    ['archive the canvas', () => `/api/canvases/${canvas.id}/archive`],
    ['regenerate its key', () => `/api/canvases/${canvas.id}/regenerate-key`],
    ['create a canvas', () => '/api/canvases'],
    ['sign the visitor out', () => '/auth/logout'],
    ['sign the visitor in as someone else', () => '/auth/dev/login'],
  ] as const) {
    test(`${what}: 403 CROSS_SITE_FORBIDDEN, nothing happens`, async () => {
      const before = await api(app, 'GET', '/api/canvases', { cookie });
      const page = await context.newPage();
      const answer = page.waitForResponse((r) => r.url().startsWith(base) && r.request().method() === 'POST');
      const attackPort = attacker.port;
      await page.goto(`http://evil.easel.test:${attackPort}/?target=${encodeURIComponent(base + path())}`);
      const res = await answer;
      // What the browser sent: the session cookie went along, no fetch metadata, the attacker's Origin.
      const sent = await res.request().allHeaders();
      expect(sent.cookie).toContain(cookie);
      expect(sent.origin).toBe(`http://evil.easel.test:${attackPort}`);
      expect(sent['sec-fetch-site']).toBeUndefined();
      expect(res.status()).toBe(403);
      expect(JSON.parse(await res.text()).code).toBe('CROSS_SITE_FORBIDDEN');
      await page.close();
      expect(await stillSignedIn()).toBe(true);
      expect(await canvasStatus()).toBe('active');
      expect(await api(app, 'GET', '/api/canvases', { cookie })).toEqual(before);
    });
  }
});

describe('the dashboard itself', () => {
  test('its own fetches (with its Origin) still change things', async () => {
    const page = await context.newPage();
    await page.goto(`${base}/`);
    const status = await page.evaluate(
      async (id) => (await fetch(`/api/canvases/${id}/archive`, { method: 'POST', credentials: 'include' })).status,
      canvas.id,
    );
    expect(status).toBe(200);
    expect(await canvasStatus()).toBe('archived');
    await page.close();
  });
});
