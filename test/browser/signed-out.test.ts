// passes: embedded — Chromium journeys; the API suites run their routes in the s3 and cluster passes
// Pages a person sees when their sign-in does not fit (issue 22 item 7), in
// Chromium: a refusal names who is signed in and offers another account; the
// dashboard sends an ended session to sign in and back; the SDK rejects with
// an UnauthorizedError carrying where to sign in, and easel.signIn() goes
// there and comes back.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, BrowserContext } from 'playwright-core';
import { dashboardOrigin } from '../../src/http/cross-site.ts';
import { startTestApp, type TestApp } from '../harness.ts';
import { api, closeBrowserSuite, deploy, launchChromium } from './helpers.ts';

let app: TestApp;
let browser: Browser;
const contexts: BrowserContext[] = [];
let origin: string;

beforeAll(async () => {
  app = await startTestApp({ listen: true, env: { EASEL_RATELIMIT_ENABLED: 'false' } });
  browser = await launchChromium();
  origin = dashboardOrigin(app.ctx.config);
});
afterAll(() => closeBrowserSuite(contexts, browser, app));

async function signedInPage(email: string) {
  const cookie = await app.signIn(email);
  const context = await browser.newContext();
  contexts.push(context);
  const at = cookie.indexOf('=');
  await context.addCookies([{ name: cookie.slice(0, at), value: cookie.slice(at + 1), url: origin }]);
  return { page: await context.newPage(), cookie };
}

describe('who is signed in, and another account', () => {
  test('a canvas you cannot see names you and offers to sign in as someone else, which comes back to it', async () => {
    const ownerCookie = await app.signIn('owner@example.com');
    const made = await api(app, 'POST', '/api/canvases', { cookie: ownerCookie, json: { title: 'Private' } });
    await deploy(app, made.id, made.apiKey, { 'index.html': '<h1 id="hello">private page</h1>' });
    const { page } = await signedInPage('stranger@example.com');
    await page.goto(`${origin}/c/${made.slug}/`);
    expect(await page.locator('#signed-in-as').innerText()).toContain('Signed in as stranger@example.com.');
    await page.click('#switch-account');
    await page.fill('#email', 'owner@example.com');
    await page.click('button');
    await page.waitForURL(`${origin}/c/${made.slug}/`);
    expect(await page.locator('#hello').innerText()).toBe('private page');
  });
});

describe('the first visit', () => {
  test('signed out, the dashboard says what Easel is; Sign in comes back to the canvas page the link named', async () => {
    const ownerCookie = await app.signIn('landing-owner@example.com');
    const made = await api(app, 'POST', '/api/canvases', { cookie: ownerCookie, json: { title: 'Landing' } });
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${origin}/#/canvas/${made.id}`);
    await page.locator('#landing-sign-in').waitFor();
    expect(await page.locator('#landing-title').innerText()).toContain('Publish your team');
    expect(await page.locator('#create').isHidden()).toBe(true);
    await page.click('#landing-sign-in');
    await page.fill('#email', 'landing-owner@example.com');
    await page.click('button');
    await page.waitForURL(`${origin}/#/canvas/${made.id}`);
    await page.locator(`#canvas-page[data-ready="${made.id}"]`).waitFor();
    expect(await page.locator('#landing').isHidden()).toBe(true);
  });
});

describe('an ended session', () => {
  test('the dashboard sends you to sign in and back instead of showing "unauthorized"', async () => {
    const { page, cookie } = await signedInPage('dash@example.com');
    await page.goto(`${origin}/`);
    await page.locator('body[data-loaded="true"]').waitFor();
    // The session ends elsewhere (signed out in another tab).
    await app.request('/auth/logout', { method: 'POST', cookie });
    await page.fill('#create-form input[name="title"]', 'Too late');
    await page.click('#create-form button');
    await page.waitForURL(/\/auth\/login\?returnTo=%2F$/);
    await page.fill('#email', 'dash@example.com');
    await page.click('button');
    await page.waitForURL(`${origin}/`);
    await page.locator('#create').waitFor();
  });

  test("a refused sign-in says the server's reason, not a status number", async () => {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${origin}/auth/login`);
    await page.fill('#email', 'long-name@example.com');
    // The field stops at 200 characters; a name past that (pasted by a script) is refused by the server, which says why.
    expect(await page.locator('#name').getAttribute('maxlength')).toBe('200');
    await page.locator('#name').evaluate((input) => ((input as HTMLInputElement).value = 'n'.repeat(201)));
    await page.click('button');
    await page.locator('#err', { hasText: 'Could not sign in' }).waitFor();
    expect(await page.locator('#err').innerText()).toBe('Could not sign in: name: must be at most 200 characters.');
  });

  test('the SDK rejects with UnauthorizedError and its signInUrl; easel.signIn() goes there and back', async () => {
    const ownerCookie = await app.signIn('sdk-owner@example.com');
    const made = await api(app, 'POST', '/api/canvases', { cookie: ownerCookie, json: { title: 'SDK' } });
    await api(app, 'PATCH', `/api/canvases/${made.id}/capabilities`, { cookie: ownerCookie, json: { backend: true, kv: true } });
    await deploy(app, made.id, made.apiKey, { 'index.html': '<script src="/sdk/v1.js"></script><h1 id="t">sdk page</h1>' });
    const { page, cookie } = await signedInPage('sdk-owner@example.com');
    await page.goto(`${origin}/c/${made.slug}/?tab=2`);
    await page.waitForFunction(() => 'easel' in window);
    await app.request('/auth/logout', { method: 'POST', cookie });
    const err = await page.evaluate(() =>
      easel.kv.get('x').then(
        () => null,
        (e: any) => ({
          name: e.name,
          code: e.code,
          status: e.status,
          signInUrl: e.signInUrl,
          isClass: e instanceof easel.UnauthorizedError,
        }),
      ),
    );
    expect(err).toEqual({
      name: 'UnauthorizedError',
      code: 'UNAUTHORIZED',
      status: 401,
      signInUrl: `${origin}/auth/login?returnTo=${encodeURIComponent(`/c/${made.slug}/?tab=2`)}`,
      isClass: true,
    });
    await page.evaluate(() => easel.signIn());
    await page.waitForURL(/\/auth\/login\?returnTo=/);
    await page.fill('#email', 'sdk-owner@example.com');
    await page.click('button');
    await page.waitForURL(`${origin}/c/${made.slug}/?tab=2`);
    expect(await page.locator('#t').innerText()).toBe('sdk page');
  });
});

declare const easel: any;
