// passes: embedded — a Chromium journey; the browser's API runs in the cluster pass (test/canvas-data-browse.test.ts)
// The Data section's browser in Chromium (issue 39, item 4), used as a
// person would: open a collection from its Browse button, page with "Load
// more", search (a literal `%`), delete a row after a confirmation naming
// it (gone through the runtime API too), see a refusal in words, and the
// empty state. Keyboard only where a person would type.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { dashboardOrigin } from '../../src/http/cross-site.ts';
import { startTestApp, type TestApp } from '../harness.ts';
import { ROOT } from '../spawn.ts';
import { api, closeBrowserSuite, dashboardPage, deploy, launchChromium } from './helpers.ts';

const SHOTS = join(ROOT, 'artifacts', 'screenshots');
let app: TestApp;
let browser: Browser;
const contexts: BrowserContext[] = [];
let page: Page;
let origin: string;
let ownerCookie: string;
let editorCookie: string;
let canvas: { id: string; slug: string; apiKey: string };
const dialogs: string[] = [];

const rt = (path: string, cookie: string, init: { method?: string; json?: unknown } = {}) =>
  api(app, init.method ?? 'GET', `/v1/c/${canvas.slug}${path}`, { cookie, json: init.json });

beforeAll(async () => {
  app = await startTestApp({ listen: true, env: { EASEL_RATELIMIT_ENABLED: 'false' } });
  browser = await launchChromium();
  mkdirSync(SHOTS, { recursive: true });
  origin = dashboardOrigin(app.ctx.config);
  ownerCookie = await app.signIn('owner@example.com', 'Olive Owner');
  editorCookie = await app.signIn('editor@example.com', 'Eddie Editor');
  canvas = await api(app, 'POST', '/api/canvases', { cookie: ownerCookie, json: { title: 'Lunch poll' } });
  await api(app, 'PUT', `/api/canvases/${canvas.id}/members`, {
    cookie: ownerCookie,
    json: { email: 'editor@example.com', role: 'editor' },
  });
  await deploy(app, canvas.id, canvas.apiKey, { 'index.html': '<h1>Lunch</h1>' });
  const revision = (await api(app, 'GET', `/api/canvases/${canvas.id}`, { cookie: ownerCookie })).runtimePolicyRevision;
  await api(app, 'PATCH', `/api/canvases/${canvas.id}/capabilities`, {
    cookie: ownerCookie,
    json: {
      expectedRuntimePolicy: revision,
      runtimePolicy: { collections: { poll: { preset: 'collaborative' }, board: { preset: 'managed', overrides: { delete: 'own' } } } },
    },
  });
  for (let i = 0; i < 59; i++) await rt('/collections/poll', editorCookie, { method: 'POST', json: { choice: `dish ${i}` } });
  await rt('/collections/poll', editorCookie, { method: 'POST', json: { choice: 'half price: 50% off', note: 'x'.repeat(200) } });
  await rt('/collections/board', editorCookie, { method: 'POST', json: { pinned: 'the editor’s notice' } });
  page = await dashboardPage(browser, app, ownerCookie, contexts);
  page.on('dialog', (d) => void dialogs.push(d.message()));
  page.on('pageerror', (err) => console.error('page error:', err.message));
});
afterAll(() => closeBrowserSuite(contexts, browser, app));

async function setBoardDelete(rule: 'editors' | 'own') {
  const revision = (await api(app, 'GET', `/api/canvases/${canvas.id}`, { cookie: ownerCookie })).runtimePolicyRevision;
  await api(app, 'PATCH', `/api/canvases/${canvas.id}/capabilities`, {
    cookie: ownerCookie,
    json: {
      expectedRuntimePolicy: revision,
      runtimePolicy: { collections: { poll: { preset: 'collaborative' }, board: { preset: 'managed', overrides: { delete: rule } } } },
    },
  });
}

const section = () => page.locator('#cp-data-browser');
const rows = () => page.locator('#cp-browse-rows tr');

async function openBrowser(what: string) {
  await page.goto(`${origin}/#/canvas/${canvas.id}`);
  await page.locator(`#canvas-page[data-ready="${canvas.id}"]`).waitFor();
  await page.getByRole('button', { name: `Browse ${what}` }).click();
  await page.locator('#cp-data-browser[data-loaded]').waitFor();
}

/** Waits for the browser to have drawn `n` rows in all (it marks the count once a page is in). */
const loaded = (n: number) => page.locator(`#cp-data-browser[data-loaded="${n}"]`).waitFor();

test('browse a collection: a table with people by name, pages with Load more, a literal search, a long value on expand', async () => {
  await openBrowser('Collection poll');
  expect(await page.locator('#cp-browse-title').innerText()).toBe('Collection poll');
  expect(await rows().count()).toBe(50);
  expect(await page.locator('#cp-browse-head th').allInnerTexts()).toEqual(['Record', 'Author', 'Updated', 'Value', '']);
  const first = rows().first();
  expect(await first.locator('td').nth(1).innerText()).toBe('Eddie Editor');
  expect(await first.locator('td').nth(1).getAttribute('title')).toBe('editor@example.com');
  expect(await first.locator('time').innerText()).toMatch(/now|second|minute/);
  expect(await first.locator('time').getAttribute('title')).toBe(
    await first.locator('time').evaluate((t) => new Date(t.getAttribute('datetime')!).toLocaleString()),
  );
  expect(await page.locator('#cp-browse-status').innerText()).toBe('Showing 50 items; there are more.');
  await section().getByRole('button', { name: 'Load more' }).click();
  await loaded(60);
  expect(await page.locator('#cp-browse-more').isHidden()).toBe(true);
  const choices = await rows().evaluateAll((trs) => trs.map((tr) => tr.querySelectorAll('td')[3]!.textContent));
  expect(new Set(choices).size).toBe(60);

  // Search by keyboard: `%` is a percent sign, not a wildcard.
  await section().getByLabel('Search').fill('50%');
  await section().getByLabel('Search').press('Enter');
  await loaded(1);
  const long = rows().first().locator('details');
  expect(await long.locator('summary').innerText()).toMatch(/^\{"choice":"half price: 50% off".{40,}…$/);
  await long.locator('summary').focus();
  await page.keyboard.press('Enter');
  expect(await long.locator('pre').innerText()).toContain(`"note": "${'x'.repeat(200)}"`);
  await page.locator('#cp-data-browser').screenshot({ path: join(SHOTS, 'canvas-page-data-browser.png') });
});

test('delete a row after a confirmation naming it: gone from the table and from the runtime API; empty state in words', async () => {
  await openBrowser('Collection poll');
  await section().getByLabel('Search').fill('half price');
  await section().getByRole('button', { name: 'Search', exact: true }).click();
  await loaded(1);
  const id = await rows().first().locator('td').first().innerText();
  dialogs.length = 0;
  await page.getByRole('button', { name: `Delete record ${id} by Eddie Editor` }).click();
  await page.locator('#cp-browse-rows tr').first().waitFor({ state: 'detached' });
  expect(dialogs).toEqual([`Delete record ${id} by Eddie Editor? It is gone for everyone, as if the canvas had deleted it.`]);
  expect(await page.locator('#cp-browse-status').innerText()).toBe('Nothing here holds "half price".');
  const res = await app.request(`/v1/c/${canvas.slug}/collections/poll/${id}`, { cookie: editorCookie });
  expect(res.status).toBe(404);
  // The section's counts follow.
  await page.waitForFunction(() => document.getElementById('cp-data-summary')!.textContent!.includes('poll: 59 records'));
});

test('Delete is offered only where it works; a refusal (the policy changed meanwhile) is shown in words and the row stays; an empty list says so', async () => {
  await openBrowser('Collection board');
  expect(await rows().count()).toBe(1);
  // The board's policy keeps others' records from the owner: no Delete, and why.
  expect(
    await rows()
      .first()
      .getByRole('button', { name: /^Delete/ })
      .count(),
  ).toBe(0);
  expect(await rows().first().innerText()).toContain('Only its author may delete it');
  // The policy opens deletes, the page is reloaded, then closed again before the click.
  await setBoardDelete('editors');
  await openBrowser('Collection board');
  await setBoardDelete('own');
  await rows()
    .first()
    .getByRole('button', { name: /^Delete/ })
    .click();
  await page.locator('#cp-browse-error:not([hidden])').waitFor();
  expect(await page.locator('#cp-browse-error').innerText()).toMatch(/^Could not delete record \w+ by Eddie Editor: .*policy/);
  expect(await rows().count()).toBe(1);
  await openBrowser('Shared keys');
  expect(await page.locator('#cp-browse-status').innerText()).toBe('Shared keys holds nothing yet.');
  expect(await page.locator('#cp-browse-error').isHidden()).toBe(true);
});

test('on a phone the rows stand as cards: each value under its kind’s own column name, which follows the header', async () => {
  const before = page.viewportSize()!;
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await openBrowser('Collection poll');
    const labels = () =>
      rows()
        .first()
        .locator('td')
        .evaluateAll((tds) => tds.map((td) => td.getAttribute('data-label')));
    expect(await labels()).toEqual(['Record', 'Author', 'Updated', 'Value', null]);
    expect(await page.locator('#cp-browse-table').evaluate((t) => t.scrollWidth <= t.clientWidth + 1)).toBe(true);
    expect(
      await rows()
        .first()
        .locator('td')
        .nth(1)
        .evaluate((td) => getComputedStyle(td, '::before').content),
    ).toBe('"Author" / ""');
    // A header renamed after the rows were drawn is followed at once.
    await page
      .locator('#cp-browse-head th')
      .nth(1)
      .evaluate((th) => (th.textContent = 'Written by'));
    await page.waitForFunction(
      () => document.querySelector('#cp-browse-rows td:nth-child(2)')?.getAttribute('data-label') === 'Written by',
    );
    await page.locator('#cp-data-browser').screenshot({ path: join(SHOTS, 'canvas-page-data-browser-phone.png') });
  } finally {
    await page.setViewportSize(before);
  }
});
