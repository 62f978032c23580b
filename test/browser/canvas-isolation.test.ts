// passes: embedded — Chromium journeys; the API suites run their routes in the s3 and cluster passes
// Issue 23 item 1, the attack in a real browser: a canvas author's page,
// opened by a signed-in visitor, tries to act as that visitor against the
// dashboard API, another canvas's runtime API and its realtime socket. In
// subdomain mode each canvas is its own origin: every attempt is refused or
// unreadable, and nothing changes.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { dashboardOrigin } from '../../src/http/cross-site.ts';
import { sha256Hex } from '../../src/ids.ts';
import { canvasOrigin } from '../../src/runtime/isolation.ts';
import { startTestApp, type TestApp } from '../harness.ts';
import { deployFiles } from '../world.ts';
import { api, launchChromium } from './helpers.ts';

let app: TestApp;
let browser: Browser;
let base: string;
let victim: string;
let author: string;
const made: Record<'alpha' | 'mine' | 'evil', { id: string; slug: string; apiKey: string }> = {} as never;

/** What the author's page tries; each outcome lands in the page's `results`. */
const attackPage = (targets: {
  base: string;
  alpha: string;
  alphaOrigin: string;
  mine: string;
  handoff: string;
}) => `<!doctype html><meta charset="utf-8"><script>
const T = ${JSON.stringify(targets)};
const results = {};
const attempt = async (name, run) => {
  try { results[name] = await run(); } catch (err) { results[name] = 'blocked: ' + err.name; }
};
(async () => {
  await attempt('read /api/canvases', async () => (await fetch(T.base + '/api/canvases', { credentials: 'include' })).text());
  await attempt('read /api/me', async () => (await fetch(T.base + '/api/me', { credentials: 'include' })).text());
  await attempt('regenerate the visitor\\'s key', async () => {
    const res = await fetch(T.base + '/api/canvases/' + T.mine + '/regenerate-key', { method: 'POST', credentials: 'include', mode: 'no-cors' });
    return 'sent (' + res.type + ')';
  });
  await attempt('read another canvas\\'s KV', async () => (await fetch(T.base + '/v1/c/' + T.alpha + '/kv/secret', { credentials: 'include' })).text());
  await attempt('increment another canvas\\'s KV (simple request)', async () => {
    const res = await fetch(T.base + '/v1/c/' + T.alpha + '/kv/count/increment', {
      method: 'POST', credentials: 'include', mode: 'no-cors', body: '{"by":100}', headers: { 'content-type': 'text/plain' },
    });
    return 'sent (' + res.type + ')';
  });
  await attempt('write another canvas\\'s KV (JSON)', async () => {
    const res = await fetch(T.base + '/v1/c/' + T.alpha + '/kv/secret', {
      method: 'PUT', credentials: 'include', body: '"pwned"', headers: { 'content-type': 'application/json' },
    });
    return String(res.status);
  });
  await attempt('join another canvas\\'s realtime', () => new Promise((resolve) => {
    const ws = new WebSocket(T.base.replace(/^http/, 'ws') + '/v1/c/' + T.alpha + '/realtime');
    ws.onopen = () => resolve('open');
    ws.onerror = () => resolve('refused');
  }));
  // On alpha's own host, where the visitor holds alpha's session.
  await attempt('read another canvas\\'s KV on its host', async () => (await fetch(T.alphaOrigin + '/v1/c/' + T.alpha + '/kv/secret', { credentials: 'include' })).text());
  await attempt('write another canvas\\'s KV on its host (simple request)', async () => {
    const res = await fetch(T.alphaOrigin + '/v1/c/' + T.alpha + '/kv/count/increment', {
      method: 'POST', credentials: 'include', mode: 'no-cors', body: '{"by":100}', headers: { 'content-type': 'text/plain' },
    });
    return 'sent (' + res.type + ')';
  });
  await attempt('another canvas\\'s API through this host', async () => String((await fetch('/v1/c/' + T.alpha + '/kv/secret')).status));
  await attempt('join another canvas\\'s realtime on its host', () => new Promise((resolve) => {
    const ws = new WebSocket(T.alphaOrigin.replace(/^http/, 'ws') + '/v1/c/' + T.alpha + '/realtime');
    ws.onopen = () => resolve('open');
    ws.onerror = () => resolve('refused');
  }));
  // A handoff for alpha started from here: the base host makes a code, but alpha's host only trades it
  // for the browser that began the handoff there.
  await attempt('start a sign-in handoff for another canvas', () => new Promise((resolve) => {
    const frame = document.createElement('iframe');
    frame.src = T.handoff;
    frame.onload = () => resolve('loaded');
    document.body.appendChild(frame);
  }));
  window.results = results;
  document.body.dataset.done = 'true';
})();
</script>`;

beforeAll(async () => {
  // easel.test and its subdomains are this machine (Chromium maps them); each canvas is {slug}.easel.test:{port}.
  app = await startTestApp({
    listen: true,
    env: {
      EASEL_URL_MODE: 'subdomain',
      EASEL_BASE_URL: 'http://easel.test:0',
      EASEL_RATELIMIT_ENABLED: 'false',
    },
  });
  base = dashboardOrigin(app.ctx.config);
  victim = await app.signIn('victim@example.com', 'Victim');
  author = await app.signIn('author@example.com', 'Author');
  const create = async (cookie: string, title: string) => {
    const c = await api(app, 'POST', '/api/canvases', { cookie, json: { title } });
    return { id: c.id as string, slug: c.slug as string, apiKey: c.apiKey as string };
  };
  made.alpha = await create(author, 'Alpha');
  made.mine = await create(victim, 'Mine');
  made.evil = await create(author, 'Evil');
  for (const c of [made.alpha, made.evil]) {
    await api(app, 'PUT', `/api/canvases/${c.id}/members`, { cookie: author, json: { email: 'victim@example.com', role: 'editor' } });
  }
  await api(app, 'PUT', `/v1/c/${made.alpha.slug}/kv/secret`, { cookie: author, json: 'original' });
  await api(app, 'PUT', `/v1/c/${made.alpha.slug}/kv/count`, { cookie: author, json: 1 });
  const alphaOrigin = canvasOrigin(app.ctx.config, made.alpha.slug);
  const forged = `${base}/auth/handoff?canvas=${made.alpha.slug}&state=${sha256Hex('chosen by the attacker')}&next=%2F`;
  await deployFiles(app, made.alpha, { 'index.html': '<!doctype html><title>alpha</title><p>alpha</p>' });
  await deployFiles(app, made.evil, {
    'index.html': attackPage({ base, alpha: made.alpha.slug, alphaOrigin, mine: made.mine.id, handoff: forged }),
  });
  browser = await launchChromium(['--host-resolver-rules=MAP *.easel.test 127.0.0.1, MAP easel.test 127.0.0.1']);
}, 60_000);

/** How many canvas-host sessions the canvas at `slug` holds. */
function sessionsOf(slug: string): number {
  return app.ctx
    .db!.query<{ n: number }, [string]>('SELECT COUNT(*) AS n FROM sessions WHERE canvas_id = (SELECT id FROM canvases WHERE slug = ?)')
    .get(slug)!.n;
}

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe('a canvas page acting as its visitor (subdomain mode)', () => {
  test('cannot read the dashboard API, change the visitor’s canvases, or touch another canvas’s KV or realtime', async () => {
    const context = await browser.newContext();
    const at = victim.indexOf('=');
    // Signed in on the base host only (a host-only cookie); each canvas host gets its own session by handoff.
    await context.addCookies([{ name: victim.slice(0, at), value: victim.slice(at + 1), url: `${base}/` }]);
    const page = await context.newPage();
    const alphaPage = await page.goto(`${canvasOrigin(app.ctx.config, made.alpha.slug)}/`);
    expect(await alphaPage!.text()).toContain('<p>alpha</p>');
    const alphaSessions = () => sessionsOf(made.alpha.slug);
    expect(alphaSessions()).toBe(1);
    await page.goto(`${canvasOrigin(app.ctx.config, made.evil.slug)}/`);
    await page.waitForSelector('body[data-done="true"]', { state: 'attached' });
    const results = (await page.evaluate(() => (window as unknown as { results: Record<string, string> }).results)) as Record<
      string,
      string
    >;
    await context.close();

    // Reads: the browser refuses to hand the answers to another origin.
    expect(results['read /api/canvases']).toStartWith('blocked');
    expect(results['read /api/me']).toStartWith('blocked');
    expect(results["read another canvas's KV"]).toStartWith('blocked');
    // A JSON write needs a preflight, which names only alpha's own origin: the PUT is never sent.
    expect(results["write another canvas's KV (JSON)"]).toStartWith('blocked');
    // Writes the browser does send (no-cors) are refused by the server: nothing changed.
    expect(results["regenerate the visitor's key"]).toBe('sent (opaque)');
    expect(results["increment another canvas's KV (simple request)"]).toBe('sent (opaque)');
    // The visitor's key still works (it was not regenerated); alpha's values are as they were.
    expect((await api(app, 'GET', `/v1/canvases/${made.mine.id}`, { key: made.mine.apiKey })).id).toBe(made.mine.id);
    expect(await api(app, 'GET', `/v1/c/${made.alpha.slug}/kv/secret`, { cookie: author })).toEqual({ value: 'original' });
    expect(await api(app, 'GET', `/v1/c/${made.alpha.slug}/kv/count`, { cookie: author })).toEqual({ value: 1 });
    // The socket upgrade checks the Origin before anything else.
    expect(results["join another canvas's realtime"]).toBe('refused');
    // Alpha's own host: its answers are for alpha's origin only, its writes refused, its socket closed to others.
    expect(results["read another canvas's KV on its host"]).toStartWith('blocked');
    expect(results["write another canvas's KV on its host (simple request)"]).toBe('sent (opaque)');
    expect(results["join another canvas's realtime on its host"]).toBe('refused');
    // A canvas host answers its own API only: alpha's path on evil's host is a missing page of evil.
    expect(results["another canvas's API through this host"]).toBe('404');
    // The forged handoff loaded alpha's refusal page, and made no session.
    expect(results['start a sign-in handoff for another canvas']).toBe('loaded');
    expect(alphaSessions()).toBe(1);
    // And the refusals were the server's, by name.
    const refusals = app.logs
      .filter((l) => l.msg === 'request' && (l.status === 403 || l.status === 404))
      .map((l) => `${l.method} ${l.path}`);
    expect(refusals).toContain(`POST /api/canvases/${made.mine.id}/regenerate-key`);
    expect(refusals).toContain(`POST /v1/c/${made.alpha.slug}/kv/count/increment`);
    const handoffs = app.logs.filter((l) => l.msg === 'request' && l.path === '/__easel/handoff').map((l) => l.status);
    expect(handoffs).toEqual([303, 303, 400]);
  });
});
