// passes: embedded — Chromium journeys; the API suites run their routes in the s3 and cluster passes
// The XSS table (issue 18 "Tests"): every place the dashboard shows a string
// someone else chose — a canvas title, a person's name, a file name, a release
// id, a guest link's name, an audit entry's details — shows it as text. Each
// row opens a view in Chromium and checks that the markup is on screen
// literally and never ran. (Slugs cannot carry markup: they are [a-z0-9-].)
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { zipSync } from 'fflate';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { dashboardOrigin } from '../../src/http/cross-site.ts';
import { startTestApp, type TestApp } from '../harness.ts';
import { ADMIN_EMAIL } from '../world.ts';
import { api, closeBrowserSuite, dashboardPage, launchChromium } from './helpers.ts';

const MARK = '<img src=x onerror="window.pwned=1">';
const TITLE = `Board ${MARK}`;
const OWNER_NAME = `Owner ${MARK}`;
const MEMBER_NAME = `Member ${MARK}`;
const FILE = `page ${MARK}.html`;
const RELEASE = `r-${MARK}`;
const GUEST = `Guest ${MARK}`;

let app: TestApp;
let browser: Browser;
const contexts: BrowserContext[] = [];
let owner: string;
let admin: string;
let canvasId: string;

beforeAll(async () => {
  app = await startTestApp({ listen: true, env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_RATELIMIT_ENABLED: 'false' } });
  browser = await launchChromium();
  owner = await app.signIn('owner@example.com', OWNER_NAME);
  await app.signIn('member@example.com', MEMBER_NAME);
  admin = await app.signIn(ADMIN_EMAIL, 'Admin');
  const made = await api(app, 'POST', '/api/canvases', { cookie: owner, json: { title: TITLE } });
  canvasId = made.id;
  await api(app, 'PUT', `/api/canvases/${made.id}/members`, { cookie: owner, json: { email: 'member@example.com', role: 'editor' } });
  await api(app, 'PATCH', `/api/canvases/${made.id}`, { cookie: owner, json: { accessMode: 'whole_org' } });
  const zip = zipSync({ 'index.html': new TextEncoder().encode('<p>hi</p>'), [FILE]: new TextEncoder().encode('x') });
  await api(app, 'PUT', `/v1/canvases/${made.id}/deploy?releaseId=${encodeURIComponent(RELEASE)}`, { key: made.apiKey, body: zip });
  await api(app, 'PUT', `/api/canvases/${made.id}/gallery`, { cookie: owner, json: { listed: true } });
  await api(app, 'POST', `/api/canvases/${made.id}/guest-invites`, { cookie: owner, json: { name: GUEST } });
});
afterAll(() => closeBrowserSuite(contexts, browser, app));

/** One page per person and view, shared by the rows that look at it. */
const pages = new Map<string, Page>();
async function open(cookie: string, hash: string, ready: string): Promise<Page> {
  const key = `${cookie} ${hash}`;
  const opened = pages.get(key);
  if (opened) return opened;
  const page = await dashboardPage(browser, app, cookie, contexts);
  pages.set(key, page);
  await page.goto(`${dashboardOrigin(app.ctx.config)}/${hash}`);
  await page.locator(ready).waitFor();
  return page;
}

/** The markup is on screen as text in `selector`, no element it describes exists there, and nothing ran. */
async function shownAsText(page: Page, selector: string, text: string): Promise<void> {
  await page.locator(selector, { hasText: text }).first().waitFor();
  expect(await page.locator(`${selector} img`).count()).toBe(0);
  expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
}

const ROWS: Array<{
  where: string;
  who: 'owner' | 'admin';
  hash: string;
  ready: string;
  selector: string;
  text: string;
  before?: (p: Page) => Promise<void>;
}> = [
  { where: 'your canvases: the title', who: 'owner', hash: '', ready: 'body[data-loaded]', selector: '#canvases', text: TITLE },
  {
    where: 'the gallery: title and owner name',
    who: 'owner',
    hash: '',
    ready: 'body[data-loaded]',
    selector: '#gallery-list',
    text: OWNER_NAME,
  },
  { where: 'the gallery: the title', who: 'owner', hash: '', ready: 'body[data-loaded]', selector: '#gallery-list', text: TITLE },
  {
    where: 'canvas page: the heading',
    who: 'owner',
    hash: '#/canvas/ID',
    ready: '#canvas-page[data-ready]',
    selector: '#cp-title',
    text: TITLE,
  },
  {
    where: 'canvas page: a member name',
    who: 'owner',
    hash: '#/canvas/ID',
    ready: '#canvas-page[data-ready]',
    selector: '#cp-members',
    text: MEMBER_NAME,
  },
  {
    where: 'canvas page: a release id',
    who: 'owner',
    hash: '#/canvas/ID',
    ready: '#canvas-page[data-ready]',
    selector: '#cp-versions',
    text: RELEASE,
  },
  {
    where: 'canvas page: a file name',
    who: 'owner',
    hash: '#/canvas/ID',
    ready: '#canvas-page[data-ready]',
    selector: '#cp-files',
    text: FILE,
  },
  {
    where: 'guest links: the name',
    who: 'owner',
    hash: '',
    ready: 'body[data-loaded]',
    selector: '#guests',
    text: GUEST,
    before: (p) => p.locator('#canvases tbody tr', { hasText: TITLE }).getByRole('button', { name: 'Guest links' }).click(),
  },
  {
    where: 'editor: a file name',
    who: 'owner',
    hash: '#/canvas/ID/edit',
    ready: '#editor-page[data-ready]',
    selector: '#ed-files',
    text: FILE,
  },
  {
    where: 'admin people: a name',
    who: 'admin',
    hash: '#/admin',
    ready: '#admin-page[data-ready="true"]',
    selector: '#ad-users',
    text: MEMBER_NAME,
  },
  {
    where: 'admin canvases: a title',
    who: 'admin',
    hash: '#/admin',
    ready: '#admin-page[data-ready="true"]',
    selector: '#ad-canvases',
    text: TITLE,
  },
  {
    where: 'admin audit: details',
    who: 'admin',
    hash: '#/admin',
    ready: '#admin-page[data-ready="true"]',
    selector: '#ad-audit',
    // The deploy's sentence names its release, as text.
    text: RELEASE,
  },
];

describe('strings people chose are shown as text everywhere', () => {
  for (const row of ROWS) {
    test(row.where, async () => {
      const page = await open(row.who === 'owner' ? owner : admin, row.hash.replace('ID', canvasId), row.ready);
      await row.before?.(page);
      await shownAsText(page, row.selector, row.text);
    });
  }
});
