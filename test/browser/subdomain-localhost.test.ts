// passes: embedded — Chromium journeys; the API suites run their routes in the s3 and cluster passes
// The README's quick start in subdomain mode, in Chromium: canvases at
// http://{slug}.localhost:{port}/ (Chromium resolves *.localhost to this
// machine), the dashboard at http://localhost:{port}. The two are different
// sites, so nothing is shared: a person signs in on the base host, each
// canvas host gets its own session through the handoff, and the README's
// team room works on its own origin (SDK, KV, realtime) with no cookie domain.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { canvasOrigin } from '../../src/runtime/isolation.ts';
import { startTestApp, type TestApp } from '../harness.ts';
import { api, closeBrowserSuite, deploy, docsHtml, launchChromium, publishTeamRoom, waitForText } from './helpers.ts';

let app: TestApp;
let browser: Browser;
let canvas: { id: string; slug: string };
const contexts: BrowserContext[] = [];
/** Every code-bearing URL the browsers were sent to. */
const exchanges: string[] = [];

beforeAll(async () => {
  app = await startTestApp({ listen: true, env: { EASEL_URL_MODE: 'subdomain', EASEL_RATELIMIT_ENABLED: 'false' } });
  canvas = await publishTeamRoom(app, await app.signIn('alice@example.com', 'Alice'), 'bob@example.com');
  browser = await launchChromium();
});

afterAll(() => closeBrowserSuite(contexts, browser, app));

/** A fresh browser that opens the canvas and signs in on the dev sign-in page it is sent to. */
async function signInThroughTheCanvas(email: string, name: string): Promise<Page> {
  const context = await browser.newContext();
  contexts.push(context);
  const page = await context.newPage();
  page.on('pageerror', (err) => console.error(`[${name}] page error:`, err.message));
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/__easel/handoff') exchanges.push(r.url());
  });
  await page.goto(`${canvasOrigin(app.ctx.config, canvas.slug)}/`);
  // Sent through the base host's handoff to its sign-in page.
  expect(new URL(page.url()).host).toBe(new URL(app.ctx.config.baseUrl).host);
  expect(new URL(page.url()).pathname).toBe('/auth/login');
  await page.fill('#email', email);
  await page.fill('#name', name);
  await page.click('button');
  await page.waitForSelector('body[data-ready="true"]', { timeout: 10_000 });
  expect(page.url()).toBe(`${canvasOrigin(app.ctx.config, canvas.slug)}/`);
  return page;
}

describe('subdomain mode on a laptop (*.localhost)', () => {
  let alice: Page;
  let bob: Page;

  test('opening a canvas signs in on the base host and comes back with a session of the canvas host only', async () => {
    alice = await signInThroughTheCanvas('alice@example.com', 'Alice');
    bob = await signInThroughTheCanvas('bob@example.com', 'Bob');
    expect(await alice.locator('#hello').innerText()).toBe('Hello, Alice (owner)');
    expect(await bob.locator('#hello').innerText()).toBe('Hello, Bob (viewer)');
    const cookies = await alice.context().cookies();
    const byHost = cookies.map((c) => `${c.name}@${c.domain}`).sort();
    expect(byHost).toEqual([`easel_session@${canvas.slug}.localhost`, 'easel_session@localhost'].sort());
    // The page's origin has no way to the dashboard's API.
    const answer = await alice.evaluate(async (base) => {
      try {
        return String((await fetch(`${base}/api/me`, { credentials: 'include' })).status);
      } catch (err) {
        return `blocked: ${(err as Error).name}`;
      }
    }, new URL(app.ctx.config.baseUrl).origin);
    expect(answer).toStartWith('blocked');
  });

  test('a code seen once is worth nothing: not again, not in another browser, not on another host', async () => {
    expect(exchanges).toHaveLength(2);
    const stranger = await browser.newContext();
    contexts.push(stranger);
    const page = await stranger.newPage();
    const codeOf = async (url: string) => {
      const res = await page.goto(url);
      return [res!.status(), await page.locator('meta[name="easel-code"]').getAttribute('content')];
    };
    expect(await codeOf(exchanges[0]!)).toEqual([400, 'HANDOFF_INVALID']);
    const other = new URL(exchanges[1]!);
    other.hostname = `elsewhere.${new URL(app.ctx.config.baseUrl).hostname}`;
    expect(await codeOf(other.href)).toEqual([400, 'HANDOFF_INVALID']);
    // The try on another host used the second code up: its own host refuses it now too.
    expect(await codeOf(exchanges[1]!)).toEqual([400, 'HANDOFF_INVALID']);
    expect(await alice.evaluate(() => easel.me().then((m) => m.name))).toBe('Alice');
  });

  test('the SDK talks to its own host: KV and realtime work for both people', async () => {
    await alice.click('#count');
    await waitForText(alice, '#total', '1');
    expect(await bob.evaluate(() => easel.kv.get('clicks'))).toBe(1);
    await alice.waitForFunction(() => document.getElementById('who')!.innerText.split(', ').sort().join() === 'Alice,Bob');
    await alice.fill('#text', 'hello Bob');
    await alice.press('#text', 'Enter');
    await waitForText(bob, '#messages', 'Alice: hello Bob', 'contains');
  });
});

describe('the editor preview in subdomain mode', () => {
  test("the draft shows in the editor's frame on the canvas host, another site, with no session there (the address carries a token)", async () => {
    const owner = await app.signIn('alice@example.com', 'Alice');
    await app.request(`/api/canvases/${canvas.id}/draft`, { cookie: owner });
    const put = await app.request(`/api/canvases/${canvas.id}/draft/file?path=index.html`, {
      method: 'PUT',
      cookie: owner,
      // The README's team room as the draft: its SDK, KV and realtime answer the preview on the canvas host too (issue 38 item 6.3).
      body: docsHtml('## Example: a team room').replace('<h1 id="hello">', '<p id="d">draft here</p><h1 id="hello">'),
    });
    expect(put.status).toBe(200);
    const context = await browser.newContext();
    contexts.push(context);
    const at = owner.indexOf('=');
    await context.addCookies([{ name: owner.slice(0, at), value: owner.slice(at + 1), url: new URL(app.ctx.config.baseUrl).origin }]);
    const page = await context.newPage();
    await page.goto(`${new URL(app.ctx.config.baseUrl).origin}/#/canvas/${canvas.id}/edit`);
    await page.locator(`#editor-page[data-ready="${canvas.id}"]`).waitFor();
    const frame = page.frameLocator('#ed-preview');
    await frame.locator('#d').waitFor({ timeout: 10_000 });
    expect(await frame.locator('#d').innerText()).toBe('draft here');
    await frame.locator('body[data-ready="true"]').waitFor({ timeout: 10_000 });
    expect(await frame.locator('#hello').innerText()).toBe('Hello, Alice (owner)');
    // KV (a count, not a refusal) and realtime presence, with the token as the only credential.
    expect(await frame.locator('#total').innerText()).toMatch(/^\d+$/);
    expect(await frame.locator('#status').innerText()).toBe('');
    await frame.locator('#text').fill('from the preview');
    await frame.locator('#text').press('Enter');
    await frame.locator('#messages li', { hasText: 'Alice: from the preview' }).waitFor({ timeout: 10_000 });
    expect(await frame.locator('#status').innerText()).toBe('');
  });

  test('a kept version at __easel/v/{n}/ loads the SDK from the canvas host and calls its runtime API', async () => {
    const owner = await app.signIn('alice@example.com', 'Alice');
    const context = await browser.newContext();
    contexts.push(context);
    const at = owner.indexOf('=');
    await context.addCookies([{ name: owner.slice(0, at), value: owner.slice(at + 1), url: new URL(app.ctx.config.baseUrl).origin }]);
    const page = await context.newPage();
    await page.goto(`${canvasOrigin(app.ctx.config, canvas.slug)}/__easel/v/1/`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 10_000 });
    expect(await page.locator('#hello').innerText()).toBe('Hello, Alice (owner)');
  });
});

describe("the canvas page's live preview in subdomain mode", () => {
  test("a Public link canvas shows in the canvas page's frame, on its own host: the dashboard's CSP frames canvas hosts", async () => {
    const owner = await app.signIn('alice@example.com', 'Alice');
    const open = await api(app, 'POST', '/api/canvases', { cookie: owner, json: { title: 'Open board' } });
    await api(app, 'PATCH', `/api/canvases/${open.id}`, { cookie: owner, json: { accessMode: 'public_link' } });
    await deploy(app, open.id, open.apiKey, { 'index.html': '<h1 id="open">open to all</h1>' });
    const context = await browser.newContext();
    contexts.push(context);
    const at = owner.indexOf('=');
    await context.addCookies([{ name: owner.slice(0, at), value: owner.slice(at + 1), url: new URL(app.ctx.config.baseUrl).origin }]);
    const page = await context.newPage();
    const refused: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) refused.push(m.text());
    });
    await page.goto(`${new URL(app.ctx.config.baseUrl).origin}/#/canvas/${open.id}`);
    await page.locator(`#canvas-page[data-ready="${open.id}"]`).waitFor();
    await page.click('#cp-preview-show');
    expect(await page.locator('#cp-preview-frame').getAttribute('src')).toBe(`${canvasOrigin(app.ctx.config, open.slug)}/`);
    await page.frameLocator('#cp-preview-frame').locator('#open').waitFor({ timeout: 10_000 });
    expect(await page.frameLocator('#cp-preview-frame').locator('#open').innerText()).toBe('open to all');
    expect(refused).toEqual([]);
  });

  test('a canvas that needs sign-in, on another site than the dashboard, is not framed: a sentence and a link open it in a tab, which signs in there', async () => {
    // localhost and team-room.localhost are different sites: the frame could neither send nor receive the canvas host's SameSite=Lax session.
    const owner = await app.signIn('alice@example.com', 'Alice');
    const context = await browser.newContext();
    contexts.push(context);
    const at = owner.indexOf('=');
    await context.addCookies([{ name: owner.slice(0, at), value: owner.slice(at + 1), url: new URL(app.ctx.config.baseUrl).origin }]);
    const page = await context.newPage();
    await page.goto(`${new URL(app.ctx.config.baseUrl).origin}/#/canvas/${canvas.id}`);
    await page.locator(`#canvas-page[data-ready="${canvas.id}"]`).waitFor();
    const elsewhere = page.locator('#cp-preview-elsewhere');
    expect(await elsewhere.isVisible()).toBe(true);
    expect(await elsewhere.innerText()).toContain(
      `The live page is on ${new URL(canvasOrigin(app.ctx.config, canvas.slug)).host}, another site`,
    );
    expect(await page.locator('#cp-preview-frame').isVisible()).toBe(false);
    expect(await page.locator('#cp-preview-frame').getAttribute('src')).toBeNull();
    const link = page.getByRole('link', { name: 'Open the live page in a new tab (it signs you in there)' });
    expect(await link.getAttribute('href')).toBe(`${canvasOrigin(app.ctx.config, canvas.slug)}/`);
    expect(await link.getAttribute('target')).toBe('_blank');
    // The tab is a top-level page: the handoff signs Alice in on the canvas host (her session on the base host is enough).
    const [tab] = await Promise.all([context.waitForEvent('page'), link.click()]);
    await tab.waitForSelector('body[data-ready="true"]', { timeout: 10_000 });
    expect(new URL(tab.url()).origin).toBe(canvasOrigin(app.ctx.config, canvas.slug));
    expect(await tab.locator('#hello').innerText()).toBe('Hello, Alice (owner)');
  });
});
