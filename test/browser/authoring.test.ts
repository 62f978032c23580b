// passes: embedded — Chromium journeys; the API suites run their routes in the s3 and cluster passes
// Authoring in Chromium (issue 16): a studio canvas's page publishes a page it
// generated, with easel.canvases and the SDK's own zip; the person opens it,
// lists it, revokes it, and the URL stops serving.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../harness.ts';
import { api, closeBrowserSuite, dashboardPage, deploy, launchChromium, openCanvas } from './helpers.ts';

const STUDIO = `<!doctype html><meta charset="utf-8"><title>Studio</title>
<script src="/sdk/v1.js"></script>
<body><p>Studio</p><script>document.body.dataset.ready = 'true';</script></body>`;

let app: TestApp;
let browser: Browser;
let studio: { id: string; slug: string };
const contexts: BrowserContext[] = [];
let page: Page;
let makerCookie: string;

beforeAll(async () => {
  app = await startTestApp({ listen: true, env: { EASEL_AUTHORING: 'on', EASEL_RATELIMIT_ENABLED: 'false' } });
  const owner = await app.signIn('maker@example.com', 'Maker');
  makerCookie = owner;
  const created = await api(app, 'POST', '/api/canvases', { cookie: owner, json: { title: 'Studio' } });
  studio = { id: created.id, slug: created.slug };
  await api(app, 'PATCH', `/api/canvases/${studio.id}/capabilities`, { cookie: owner, json: { authoring: true } });
  await deploy(app, studio.id, created.apiKey, { 'index.html': STUDIO });
  browser = await launchChromium();
  page = await openCanvas(browser, app, { cookie: owner, slug: studio.slug, label: 'maker', contexts });
});

afterAll(() => closeBrowserSuite(contexts, browser, app));

describe('a page publishing what it generated', () => {
  test('create with {path: content}, open it, find it in list(), revoke it', async () => {
    const made = await page.evaluate(() =>
      easel.canvases.create(
        { title: 'Generated report', tags: ['weekly'], metadata: { sourceApp: 'studio', sourceKind: 'report' } },
        { 'index.html': '<!doctype html><h1 id="t">generated in the browser</h1>', 'data/n.txt': new Blob(['42']) },
      ),
    );
    expect(made).toMatchObject({ title: 'Generated report', publicationStatus: 'published', sourceApp: 'studio', viewerRole: 'owner' });

    const opened = await page.context().newPage();
    // The same site the studio was opened on (the test's base address).
    const at = (path = '') => `${app.base}${new URL(made.url).pathname}${path}`;
    await opened.goto(at());
    expect(await opened.locator('#t').innerText()).toBe('generated in the browser');
    await opened.goto(at('data/n.txt'));
    expect(await opened.locator('body').innerText()).toBe('42');

    const listed = await page.evaluate(() => easel.canvases.list({ sourceKind: 'report', tags: ['weekly'] }));
    expect(listed.map((c: { id: string }) => c.id)).toEqual([made.id]);

    const updated = await page.evaluate(
      (id) => easel.canvases.update(id, { title: 'Report, v2' }, { 'index.html': '<h1 id="t">second version</h1>' }),
      made.id,
    );
    expect(updated.version).not.toBe(made.version);
    await opened.goto(at());
    expect(await opened.locator('#t').innerText()).toBe('second version');

    await page.evaluate((id) => easel.canvases.revoke(id), made.id);
    expect((await opened.goto(at()))!.status()).toBe(404);
    const after = await page.evaluate(() => easel.canvases.list());
    expect(after[0]).toMatchObject({ id: made.id, publicationStatus: 'unpublished' });
  });

  test('refusals arrive as the SDK error classes', async () => {
    const refused = await page.evaluate(() =>
      easel.canvases.create({ title: '' }, { 'index.html': 'x' }).catch((e) => ({ name: e.name, code: e.code, status: e.status })),
    );
    expect(refused).toEqual({ name: 'EaselError', code: 'INVALID_BODY', status: 400 });
    const gone = await page.evaluate(() => easel.canvases.revoke('no-such-id').catch((e) => ({ code: e.code, status: e.status })));
    expect(gone).toEqual({ code: 'NOT_FOUND', status: 404 });
  });

  test('the dashboard shows what a page published, from which app, and revokes it', async () => {
    const made = await page.evaluate(() =>
      easel.canvases.create({ title: 'Poster', metadata: { sourceApp: 'paint' } }, { 'index.html': '<h1>poster</h1>' }),
    );
    const dash = await dashboardPage(browser, app, makerCookie, contexts);
    await dash.waitForSelector('#canvases[data-ready="true"]');
    const row = dash.locator('#canvases tbody tr', { hasText: 'Poster' });
    expect(await row.locator('.authored').innerText()).toBe('Published by a page (paint)');
    await row.locator('button.revoke').click();
    await dash.waitForFunction(() => document.getElementById('notice')!.innerText.includes('no longer serves'));
    await dash.locator('#canvases tbody tr', { hasText: 'Poster' }).locator('.authored', { hasText: 'revoked' }).waitFor();
    expect(await dash.locator('#canvases tbody tr', { hasText: 'Poster' }).locator('button.revoke').count()).toBe(0);
    const opened = await page.context().newPage();
    expect((await opened.goto(`${app.base}${new URL(made.url).pathname}`))!.status()).toBe(404);
  });
});
