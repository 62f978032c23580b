// passes: embedded — Chromium journeys; test/webhooks.test.ts runs the routes and deliveries in the s3 and cluster passes
// The canvas page's Webhooks section in Chromium, against a real HTTPS
// receiver on loopback (pinned and trusted as in test/webhooks.test.ts): add
// a hook with its events, the secret shown once and copied, a deploy
// delivered and listed with its status, turn it off, remove it; a refusal
// explained; an editor's page has the section too (viewers cannot open a
// canvas's page at all; test/webhooks.test.ts checks their 404).
import { afterAll, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import { makeCert, SECRET_KEY_HEX, startUpstream } from '../connections-fixtures.ts';
import { api, dashboardPage, deploy, useBrowserSuite } from './helpers.ts';

const HOST = 'hooks.receiver.test';
const cert = makeCert(HOST);
const receiver = startUpstream(cert);
afterAll(async () => {
  await receiver.stop();
  cert.cleanup();
});
const suite = useBrowserSuite({
  EASEL_SECRET_KEY: SECRET_KEY_HEX,
  EASEL_CONNECTIONS_CA_FILE: cert.certFile,
  EASEL_CONNECTIONS_RESOLVE: `${HOST}:${receiver.port}:127.0.0.1`,
});

test('add a webhook, copy its secret, see its delivery, turn it off and remove it', async () => {
  const { app, browser, contexts } = suite;
  const owner = await app.signIn('hook-owner@example.com');
  const canvas = await api(app, 'POST', '/api/canvases', { cookie: owner, json: { title: 'Hooked' } });
  const page = await dashboardPage(browser, app, owner, contexts);
  const origin = new URL(app.ctx.config.baseUrl).origin;
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  await page.goto(`${origin}/#/canvas/${canvas.id}`);
  await page.locator(`#canvas-page[data-ready="${canvas.id}"]`).waitFor();
  const section = page.locator('#cp-webhooks');
  expect(await section.isVisible()).toBe(true);
  expect(await page.locator('#cp-hooks-none').isVisible()).toBe(true);

  const url = `https://${HOST}:${receiver.port}/easel`;
  const ready = await section.getAttribute('data-ready');
  await page.fill('#cp-hook-form input[name="url"]', url);
  await page.check('#cp-hook-events input[value="deploy.published"]');
  await page.check('#cp-hook-events input[value="submission.created"]');
  await page.click('#cp-hook-form button[type="submit"]');
  await page.locator(`#cp-webhooks:not([data-ready="${ready}"])`).waitFor();
  const row = page.locator('#cp-hooks tbody tr');
  expect(await row.count()).toBe(1);
  expect(await row.locator('td').nth(0).innerText()).toBe(url);
  expect(await row.locator('td').nth(1).innerText()).toBe('deploy.published, submission.created');
  expect(await row.locator('td').nth(2).innerText()).toBe('active');

  // The secret, once: on screen and copied; never in the list the API gives.
  const secret = await page.locator('#cp-hook-secret-value').innerText();
  expect(secret).toMatch(/^whsec_/);
  await page.click('#cp-copy-hook-secret');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
  const listed = await api(app, 'GET', `/api/canvases/${canvas.id}/webhooks`, { cookie: owner });
  expect(JSON.stringify(listed)).not.toContain(secret);

  const delivered = new Promise<void>((resolve) => {
    const off = app.onEvent('webhooks.attempted', (a) => {
      if (a.outcome !== 'delivered') return;
      off();
      resolve();
    });
  });
  await deploy(app, canvas.id, canvas.apiKey, { 'index.html': '<h1>hi</h1>' });
  await delivered;
  const got = receiver.received.find((r) => r.path === '/easel')!;
  const expected = createHmac('sha256', secret).update(`${got.headers['x-easel-timestamp']}.${got.body}`).digest('hex');
  expect(got.headers['x-easel-signature']).toBe(`sha256=${expected}`);

  // Reopened: the last delivery in the row; its deliveries listed with their status.
  await page.reload();
  await page.locator(`#canvas-page[data-ready="${canvas.id}"]`).waitFor();
  expect(await page.locator('#cp-hook-secret').isHidden()).toBe(true);
  expect(await row.locator('td').nth(3).innerText()).toContain('delivered (HTTP 200)');
  await row.locator('button', { hasText: 'Deliveries' }).click();
  const delivery = page.locator('#cp-hook-deliveries tbody tr');
  await delivery.first().waitFor();
  expect(await delivery.count()).toBe(1);
  expect(await delivery.getAttribute('data-status')).toBe('delivered');
  expect(await delivery.locator('td').nth(1).innerText()).toBe('deploy.published');
  expect(await delivery.locator('td').nth(3).innerText()).toBe('200');

  let before = await section.getAttribute('data-ready');
  await row.locator('button', { hasText: 'Turn off' }).click();
  await page.locator(`#cp-webhooks:not([data-ready="${before}"])`).waitFor();
  expect(await row.locator('td').nth(2).innerText()).toBe('paused');
  expect((await api(app, 'GET', `/api/canvases/${canvas.id}/webhooks`, { cookie: owner })).hooks[0].active).toBe(false);

  before = await section.getAttribute('data-ready');
  await row.locator('button', { hasText: 'Remove' }).click();
  await page.locator(`#cp-webhooks:not([data-ready="${before}"])`).waitFor();
  expect(await row.count()).toBe(0);
  expect(await api(app, 'GET', `/api/canvases/${canvas.id}/webhooks`, { cookie: owner })).toEqual({ hooks: [] });
});

test('a refused URL is explained next to the form; an editor has the section too', async () => {
  const { app, browser, contexts } = suite;
  const owner = await app.signIn('hook-owner2@example.com');
  const canvas = await api(app, 'POST', '/api/canvases', { cookie: owner, json: { title: 'Refused' } });
  const editorCookie = await app.signIn('hook-editor@example.com');
  await api(app, 'PUT', `/api/canvases/${canvas.id}/members`, {
    cookie: owner,
    json: { email: 'hook-editor@example.com', role: 'editor' },
  });
  const page = await dashboardPage(browser, app, owner, contexts);
  const origin = new URL(app.ctx.config.baseUrl).origin;
  await page.goto(`${origin}/#/canvas/${canvas.id}`);
  await page.locator(`#canvas-page[data-ready="${canvas.id}"]`).waitFor();
  await page.fill('#cp-hook-form input[name="url"]', 'https://127.0.0.1/x');
  await page.check('#cp-hook-events input[value="deploy.published"]');
  await page.click('#cp-hook-form button[type="submit"]');
  await page.locator('#cp-hook-error:not([hidden])').waitFor();
  expect(await page.locator('#cp-hook-error').innerText()).toContain('non-public');

  expect(await page.locator('#cp-hooks tbody tr').count()).toBe(0);

  // An editor manages hooks too: the section is there, with the same (empty) list.
  const editor = await dashboardPage(browser, app, editorCookie, contexts);
  await editor.goto(`${origin}/#/canvas/${canvas.id}`);
  await editor.locator('#cp-webhooks[data-ready]').waitFor();
  expect(await editor.locator('#cp-hooks-none').isVisible()).toBe(true);
});
