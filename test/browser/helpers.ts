// What the Chromium suites share: launching Debian's chromium, calling the
// app's HTTP API as a signed-in person or with a canvas key, deploying a
// canvas through the staged Deploy API, and opening a canvas page in its own
// browser context with someone's session cookie.
import { afterAll, beforeAll, expect } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { sha256Hex } from '../../src/ids.ts';
import { startTestApp, type TestApp } from '../harness.ts';

export const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Headless Chromium (with `extraArgs`, e.g. host mappings); a clear failure (never a skip) when it is not installed. */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is missing at ${CHROMIUM}: install it (apt-get install -y chromium); .ci/run does when test/browser.enabled exists`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM, args: [...ARGS, ...extraArgs], headless: true });
}

/** One HTTP call to the app; throws on any status from 300 up, returns the parsed JSON body (or null). */
export async function api(
  app: TestApp,
  method: string,
  path: string,
  init: { cookie?: string; json?: unknown; key?: string; body?: BodyInit } = {},
): Promise<any> {
  const headers: Record<string, string> = {};
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  if (init.body !== undefined) headers['content-type'] = 'application/octet-stream';
  const res = await app.request(path, { method, cookie: init.cookie, json: init.json, body: init.body, headers });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** The staged Deploy API: begin with the manifest, send the missing blobs, finalize. */
export async function deploy(app: TestApp, id: string, key: string, files: Record<string, string>): Promise<void> {
  const manifest = Object.entries(files).map(([path, text]) => ({ path, hash: sha256Hex(text), size: Buffer.byteLength(text) }));
  const begun = await api(app, 'POST', `/v1/canvases/${id}/uploads`, { key, json: { manifest } });
  for (const hash of begun.missingHashes as string[]) {
    const text = Object.values(files).find((t) => sha256Hex(t) === hash)!;
    await api(app, 'PUT', `/v1/canvases/${id}/uploads/${begun.uploadId}/blobs/${hash}`, { key, body: text });
  }
  const result = await api(app, 'POST', `/v1/canvases/${id}/uploads/${begun.uploadId}/finalize`, { key, json: {} });
  expect(result.outcome).toBe('published');
}

/**
 * A canvas page in a fresh browser context signed in with `cookie` (a
 * `name=value` Cookie header), once the page has set body[data-ready="true"].
 * The context is pushed onto `contexts` for the suite to close.
 */
export async function openCanvas(
  browser: Browser,
  app: TestApp,
  opts: { cookie: string; slug: string; label: string; contexts: BrowserContext[] },
): Promise<Page> {
  const context = await browser.newContext();
  opts.contexts.push(context);
  const at = opts.cookie.indexOf('=');
  await context.addCookies([{ name: opts.cookie.slice(0, at), value: opts.cookie.slice(at + 1), url: app.base }]);
  const page = await context.newPage();
  page.on('pageerror', (err) => console.error(`[${opts.label}] page error:`, err.message));
  await page.goto(`${app.base}/c/${opts.slug}/`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 10_000 });
  return page;
}

/** Waits, in the page and on its own rendering, until `selector`'s text is `want` (or contains it). */
export async function waitForText(page: Page, selector: string, want: string, how: 'is' | 'contains' = 'is'): Promise<void> {
  await page.waitForFunction(
    ([sel, text, contains]) => {
      const got = (document.querySelector(sel) as HTMLElement | null)?.innerText;
      return got !== undefined && (contains ? got.includes(text) : got === text);
    },
    [selector, want, how === 'contains'] as const,
  );
}

/** The html block right after `heading` in docs/realtime.md (its examples are the canvases these tests run). */
export function docsHtml(heading: string): string {
  const readme = readFileSync(join(import.meta.dir, '../../docs/realtime.md'), 'utf8');
  const at = readme.indexOf(heading);
  const match = /```html\n([\s\S]*?)```/.exec(readme.slice(at));
  if (at < 0 || !match) throw new Error(`docs/realtime.md has no "${heading}" html block`);
  return match[1]!;
}

/** The README's team room, published by `ownerCookie`'s holder, with `viewerEmail` on its list as a viewer. */
export async function publishTeamRoom(
  app: TestApp,
  ownerCookie: string,
  viewerEmail: string,
): Promise<{ id: string; slug: string; url: string }> {
  const created = await api(app, 'POST', '/api/canvases', { cookie: ownerCookie, json: { title: 'Team room' } });
  await api(app, 'PUT', `/api/canvases/${created.id}/members`, { cookie: ownerCookie, json: { email: viewerEmail, role: 'viewer' } });
  await deploy(app, created.id, created.apiKey, { 'index.html': docsHtml('## Example: a team room') });
  return { id: created.id, slug: created.slug, url: created.url };
}

/** Closes what a browser suite opened, browser contexts first. */
export async function closeBrowserSuite(contexts: BrowserContext[], browser: Browser | undefined, app: TestApp | undefined): Promise<void> {
  for (const c of contexts) await c.close().catch(() => {});
  await browser?.close();
  await app?.close();
}

export interface BrowserSuite {
  app: TestApp;
  browser: Browser;
  /** Contexts the tests open; closed with the suite. */
  contexts: BrowserContext[];
}

/**
 * The usual browser suite: a listening app (rate limits off, `env` added)
 * and Chromium, started before the tests and closed after them. The fields
 * are filled in once `beforeAll` ran.
 */
export function useBrowserSuite(env: Record<string, string> = {}): BrowserSuite {
  const suite = { contexts: [] } as unknown as BrowserSuite;
  beforeAll(async () => {
    suite.app = await startTestApp({ listen: true, env: { EASEL_RATELIMIT_ENABLED: 'false', ...env } });
    suite.browser = await launchChromium();
  });
  afterAll(() => closeBrowserSuite(suite.contexts, suite.browser, suite.app));
  return suite;
}

/** A new browser context signed in with `cookie` on the dashboard's own origin (its writes must come from there), and a page in it. */
export async function dashboardPage(browser: Browser, app: TestApp, cookie: string, contexts: BrowserContext[]): Promise<Page> {
  const origin = new URL(app.ctx.config.baseUrl).origin;
  const context = await browser.newContext();
  contexts.push(context);
  const at = cookie.indexOf('=');
  await context.addCookies([{ name: cookie.slice(0, at), value: cookie.slice(at + 1), url: origin }]);
  const page = await context.newPage();
  page.on('dialog', (dialog) => void dialog.accept());
  await page.goto(`${origin}/`);
  return page;
}
