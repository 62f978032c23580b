// passes: embedded — Chromium design checks; the API suites run these routes in the s3 and cluster passes
// Every view of the dashboard and every page Easel itself shows visitors, at
// a phone's width (390 px) and a laptop's (1280 px), in Chromium (issue 38
// item 7): the page never scrolls sideways (a wide table scrolls inside its
// own box), and axe-core finds nothing serious or critical. Each view's
// screenshot goes to artifacts/screenshots/views/ (git-ignored) for review.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { dashboardOrigin } from '../../src/http/cross-site.ts';
import { startTestApp, type TestApp } from '../harness.ts';
import { unsubscribeUrl } from '../../src/notifications/unsubscribe.ts';
import { ROOT } from '../spawn.ts';
import { ADMIN_EMAIL } from '../world.ts';
import { api, closeBrowserSuite, deploy, launchChromium } from './helpers.ts';

const SHOTS = join(ROOT, 'artifacts', 'screenshots', 'views');
const AXE = readFileSync(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const WIDTHS = [390, 1280] as const;

let app: TestApp;
let browser: Browser;
const contexts: BrowserContext[] = [];
let origin: string;
let owner: string;
let admin: string;
let stranger: string;
let canvas: { id: string; slug: string };
let gated: { slug: string };
let expired: { slug: string };
/** A canvas whose one version's deploy warned (a root link and a missing image), never viewed. */
let warned: { id: string };
/** An email's "Stop these emails" link of Ada's, on this app. */
let unsubscribe: string;

beforeAll(async () => {
  app = await startTestApp({ listen: true, env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_RATELIMIT_ENABLED: 'false' } });
  browser = await launchChromium();
  origin = dashboardOrigin(app.ctx.config);
  mkdirSync(SHOTS, { recursive: true });
  owner = await app.signIn('ada@example.com', 'Ada Lovelace');
  admin = await app.signIn(ADMIN_EMAIL, 'Admin');
  stranger = await app.signIn('grace@example.com', 'Grace Hopper');
  const made = await api(app, 'POST', '/api/canvases', { cookie: owner, json: { title: 'Team lunch poll' } });
  await deploy(app, made.id, made.apiKey, {
    'index.html': '<!doctype html><html lang="en"><title>Poll</title><h1>Lunch</h1></html>',
    'app.js': 'console.log(1)',
  });
  await api(app, 'PUT', `/api/canvases/${made.id}/members`, { cookie: owner, json: { email: 'bob@example.com', role: 'editor' } });
  canvas = made;
  const withPassword = await api(app, 'POST', '/api/canvases', { cookie: owner, json: { title: 'Board notes' } });
  await deploy(app, withPassword.id, withPassword.apiKey, { 'index.html': '<h1>notes</h1>' });
  await api(app, 'PATCH', `/api/canvases/${withPassword.id}`, {
    cookie: owner,
    json: { accessMode: 'whole_org', password: 'open sesame' },
  });
  gated = withPassword;
  const ending = await api(app, 'POST', '/api/canvases', { cookie: owner, json: { title: 'Offsite agenda' } });
  await deploy(app, ending.id, ending.apiKey, { 'index.html': '<h1>agenda</h1>' });
  await api(app, 'PATCH', `/api/canvases/${ending.id}`, { cookie: owner, json: { accessMode: 'whole_org', expiresAt: 1 } });
  expired = ending;
  const fromCi = await api(app, 'POST', '/api/canvases', { cookie: owner, json: { title: 'Release notes' } });
  await deploy(app, fromCi.id, fromCi.apiKey, {
    'index.html':
      '<!doctype html><html lang="en"><title>Notes</title><link rel="stylesheet" href="/assets/site.css"><img src="gone.png" alt=""></html>',
    'assets/site.css': 'h1{}',
  });
  warned = fromCi;
  const me = await api(app, 'GET', '/api/me', { cookie: owner });
  const link = unsubscribeUrl(app.ctx.config, app.ctx.instanceSecret, { userId: me.id, kind: 'share_expiring' });
  unsubscribe = link.slice(link.indexOf('/notifications/'));
});
afterAll(() => closeBrowserSuite(contexts, browser, app));

interface View {
  name: string;
  /** The Cookie header's session, or none (signed out). */
  who: () => string | null;
  path: () => string;
  /** Resolves once the view has rendered what it shows. */
  ready: (page: Page) => Promise<unknown>;
}

const VIEWS: View[] = [
  { name: 'sign-in', who: () => null, path: () => '/auth/login', ready: (p) => p.locator('#email').waitFor() },
  { name: 'landing', who: () => null, path: () => '/', ready: (p) => p.locator('#landing-sign-in').waitFor() },
  { name: 'docs', who: () => null, path: () => '/docs', ready: (p) => p.locator('main h1').first().waitFor() },
  {
    name: 'home',
    who: () => owner,
    path: () => '/',
    ready: (p) => p.locator('#canvases[data-ready="true"]').waitFor({ state: 'attached' }),
  },
  {
    name: 'home-empty',
    who: () => stranger,
    path: () => '/',
    // The empty list's table is hidden (its words say there is nothing yet): wait for it to be filled, not shown.
    ready: (p) => p.locator('#canvases[data-ready="true"]').waitFor({ state: 'attached' }),
  },
  {
    // The home page with two toasts up, an error and a success (held by the pointer over it, as a reader would).
    name: 'home-toasts',
    who: () => stranger,
    path: () => '/',
    ready: async (p) => {
      await p.locator('#notify-form[data-ready]').waitFor();
      await p.fill('#token-form input[name="name"]', '   ');
      await p.click('#token-form button[type="submit"]');
      await p.locator('#notice .toast-error').waitFor();
      await p.locator('#notify-form input[name="ai_cap"]').click();
      await p.hover('#notice .toast-done');
    },
  },
  {
    name: 'canvas',
    who: () => owner,
    path: () => `/#/canvas/${canvas.id}`,
    ready: (p) => p.locator(`#canvas-page[data-ready="${canvas.id}"]`).waitFor(),
  },
  {
    // A version's deploy warnings opened under its number. (Its views chart starts empty, in words; the page's own
    // preview of the live page soon counts a view, so which one shows depends on the views before it.)
    name: 'canvas-warned',
    who: () => owner,
    path: () => `/#/canvas/${warned.id}`,
    ready: async (p) => {
      await p.locator(`#canvas-page[data-ready="${warned.id}"]`).waitFor();
      await p.locator('#cp-versions details.version-warnings summary').click();
      await p.locator('#cp-versions details.version-warnings li').last().waitFor();
    },
  },
  {
    // The guest links panel of a canvas, with one link just made (shown once) and listed.
    name: 'guest-links',
    who: () => owner,
    path: () => '/',
    ready: async (p) => {
      await p.locator('#canvases tbody tr', { hasText: 'Team lunch poll' }).locator('button.guest-links').click();
      await p.fill('#guest-form input[name="name"]', 'Visiting auditor');
      await p.click('#guest-form button[type="submit"]');
      await p.locator('#guest-created').waitFor({ state: 'visible' });
      await p.locator('#guest-list tbody tr', { hasText: 'Visiting auditor' }).first().waitFor();
    },
  },
  {
    name: 'editor',
    who: () => owner,
    path: () => `/#/canvas/${canvas.id}/edit`,
    ready: (p) => p.locator('#editor-page .cm-editor').first().waitFor(),
  },
  // Administration with no Connection (the empty state in words), and once there is one (its row with a
  // grant to a canvas, and the forms that need one).
  adminView('admin', false),
  adminView('admin-connection', true),
  {
    name: 'password-gate',
    who: () => stranger,
    path: () => `/c/${gated.slug}/`,
    ready: (p) => p.locator('input[type="password"]').waitFor(),
  },
  { name: 'no-access', who: () => stranger, path: () => `/c/${canvas.slug}/`, ready: (p) => p.locator('#signed-in-as').waitFor() },
  { name: 'expired', who: () => stranger, path: () => `/c/${expired.slug}/`, ready: (p) => p.locator('h1').waitFor() },
  { name: 'not-found', who: () => stranger, path: () => '/c/no-such-canvas/', ready: (p) => p.locator('h1').waitFor() },
  {
    name: 'cli-approval',
    who: () => owner,
    path: () =>
      `/auth/cli?${new URLSearchParams({ port: '40123', state: 's'.repeat(20), challenge: 'c'.repeat(43), name: 'easel CLI on laptop' })}`,
    ready: (p) => p.locator('#allow').waitFor(),
  },
  { name: 'guest-link-invalid', who: () => null, path: () => '/auth/guest?token=nope', ready: (p) => p.locator('h1').waitFor() },
  { name: 'unsubscribe', who: () => null, path: () => unsubscribe, ready: (p) => p.locator('form button').waitFor() },
  {
    name: 'unsubscribe-invalid',
    who: () => null,
    path: () => '/notifications/unsubscribe?t=nope',
    ready: (p) => p.locator('h1').waitFor(),
  },
];

/** Administration, with the Connection "crm" there or not (whichever width runs first sets it up). */
function adminView(name: string, connection: boolean): View {
  return {
    name,
    who: () => admin,
    path: () => '/#/admin',
    ready: async (p) => {
      if (await withConnection(connection)) await p.reload();
      await p.locator('#admin-page[data-ready="true"]').waitFor();
      await p.locator(`#ad-connections[data-ready="${connection ? 'crm' : ''}"]`).waitFor({ state: 'attached' });
      if (connection) await p.locator('#ad-connections span.grant').waitFor();
    },
  };
}

/** Makes the Connection "crm" (granted to the poll) exist or not; answers whether that changed anything. */
async function withConnection(present: boolean): Promise<boolean> {
  const listed = (await (await app.request('/api/admin/connections', { cookie: admin })).json()) as { connections: { name: string }[] };
  if (listed.connections.some((c) => c.name === 'crm') === present) return false;
  const answers = present
    ? [
        await app.request('/api/admin/connections', {
          method: 'POST',
          cookie: admin,
          json: { name: 'crm', origin: 'https://api.crm.example', methods: ['GET', 'POST'] },
        }),
        await app.request(`/api/admin/canvases/${canvas.id}/connections/crm`, { method: 'PUT', cookie: admin }),
      ]
    : [await app.request('/api/admin/connections/crm', { method: 'DELETE', cookie: admin })];
  for (const res of answers) if (!res.ok) throw new Error(`the Connection could not be set up: ${res.status} ${await res.text()}`);
  return true;
}

async function open(view: View, width: number, colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme });
  contexts.push(context);
  const cookie = view.who();
  if (cookie) {
    const at = cookie.indexOf('=');
    await context.addCookies([{ name: cookie.slice(0, at), value: cookie.slice(at + 1), url: origin }]);
  }
  const page = await context.newPage();
  await page.goto(origin + view.path());
  await view.ready(page);
  return page;
}

/** axe-core's serious and critical findings, as `rule: target …` lines. evaluate() is not subject to the page's CSP. */
async function seriousFindings(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run(): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> };
      }
    ).axe;
    const result = await axe.run();
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return violations.map((v) => `${v.id}: ${v.targets.slice(0, 5).join(', ')}`);
}

/** How far the page itself scrolls sideways (0 when it fits). */
function overflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

/**
 * Shown elements past the window's right edge that the page does not scroll
 * to: cut off by a box that clips (a <details>'s content does), or beyond
 * the page's own width. What scrolls inside its own box (a wide table, a
 * code block) is left to sidewaysTables.
 */
function cutOff(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const edge = document.documentElement.clientWidth + 1;
    const scrollsItself = (e: Element | null): boolean => {
      for (let at = e?.parentElement ?? null; at && at !== document.body; at = at.parentElement) {
        const x = getComputedStyle(at).overflowX;
        if (x === 'auto' || x === 'scroll') return true;
      }
      return false;
    };
    return [...document.body.querySelectorAll('*')]
      .filter((e) => {
        const r = e.getBoundingClientRect();
        return r.width > 1 && r.height > 1 && r.right > edge && getComputedStyle(e).visibility === 'visible' && !scrollsItself(e);
      })
      .slice(0, 5)
      .map(
        (e) =>
          `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.className && typeof e.className === 'string' ? `.${e.className.split(' ')[0]}` : ''}: right edge at ${Math.round(e.getBoundingClientRect().right)} px`,
      );
  });
}

/** The shown tables that scroll sideways inside their own box (a phone's reader would miss the columns past the edge). */
function sidewaysTables(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('table')]
      .filter((t) => t.getClientRects().length > 0 && t.scrollWidth > t.clientWidth + 1)
      .map((t) => `${t.id || t.getAttribute('aria-labelledby') || 'a table'}: ${t.scrollWidth} px in ${t.clientWidth}`),
  );
}

for (const width of WIDTHS) {
  describe(`at ${width} px`, () => {
    for (const view of VIEWS) {
      test(`${view.name}: no sideways scroll, nothing serious for axe`, async () => {
        const page = await open(view, width);
        await page.screenshot({ path: join(SHOTS, `${view.name}-${width}.png`), fullPage: true });
        expect({ view: view.name, overflow: await overflow(page) }).toEqual({ view: view.name, overflow: 0 });
        expect({ view: view.name, sideways: await sidewaysTables(page) }).toEqual({ view: view.name, sideways: [] });
        expect({ view: view.name, cutOff: await cutOff(page) }).toEqual({ view: view.name, cutOff: [] });
        expect(await seriousFindings(page)).toEqual([]);
      });
    }
  });
}

// The dashboard and the visitor pages follow the system's dark scheme; its colours must pass too, at both
// widths (a phone shows what a wide screen does not: the tables' cards and their column names).
for (const width of WIDTHS) {
  describe(`dark scheme, at ${width} px`, () => {
    for (const view of VIEWS) {
      test(`${view.name}: nothing serious for axe`, async () => {
        const page = await open(view, width, 'dark');
        await page.screenshot({ path: join(SHOTS, `${view.name}-${width}-dark.png`), fullPage: true });
        expect(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)).toBe(true);
        expect(await seriousFindings(page)).toEqual([]);
      });
    }
  });
}

test('the checks can fail: a page wider than the window and an unlabelled field are found', async () => {
  const page = await open(VIEWS[0]!, 390);
  await page.evaluate(() => {
    const wide = document.createElement('div');
    wide.style.width = '2000px';
    wide.style.height = '1px';
    document.body.append(wide);
    const field = document.createElement('input');
    document.body.append(field);
  });
  expect(await overflow(page)).toBeGreaterThan(1000);
  expect((await seriousFindings(page)).some((f) => f.startsWith('label:'))).toBe(true);
});
