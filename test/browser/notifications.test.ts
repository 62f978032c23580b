// passes: embedded — Chromium journeys; the API suites run their routes in the s3 and cluster passes
// The dashboard's Email section and the admin page's notification table in
// Chromium, against a real SMTP relay: a choice saved from a checkbox
// holds after a reload; an admin sees the message that was sent.
import { afterAll, expect, test } from 'bun:test';
import { startRelay } from '../smtp-fixture.ts';
import { ADMIN_EMAIL } from '../world.ts';
import { api, dashboardPage, useBrowserSuite } from './helpers.ts';

// No STARTTLS: the suite's app cannot be handed the relay's test CA through the environment.
const relay = await startRelay({ plain: true });
afterAll(() => relay.stop());
const suite = useBrowserSuite({ EASEL_SMTP_URL: relay.url, EASEL_ADMIN_EMAILS: ADMIN_EMAIL });

test('turning a kind off in the Email section is saved, and holds after a reload', async () => {
  const cookie = await suite.app.signIn('chooser@example.com');
  const page = await dashboardPage(suite.browser, suite.app, cookie, suite.contexts);
  const form = page.locator('#notify-form[data-ready]');
  await form.waitFor();
  expect(await page.locator('#notify-off').isHidden()).toBe(true);
  const box = page.locator('#notify-form input[name="shared_with_me"]');
  expect(await box.isChecked()).toBe(true);
  const before = await form.getAttribute('data-ready');
  await box.uncheck();
  await page.locator(`#notify-form:not([data-ready="${before}"])`).waitFor();
  expect((await api(suite.app, 'GET', '/api/me/notifications', { cookie })).shared_with_me).toBe(false);
  await page.reload();
  await page.locator('#notify-form[data-ready]').waitFor();
  expect(await page.locator('#notify-form input[name="shared_with_me"]').isChecked()).toBe(false);
  expect(await page.locator('#notify-form input[name="ai_cap"]').isChecked()).toBe(true);
});

test('an admin sees a sent notification on the admin page, its recipient as text', async () => {
  const owner = await suite.app.signIn('sheet-owner@example.com');
  const canvas = await api(suite.app, 'POST', '/api/canvases', { cookie: owner, json: { title: 'Sheet' } });
  const arrived = relay.next();
  await api(suite.app, 'PUT', `/api/canvases/${canvas.id}/members`, {
    cookie: owner,
    json: { email: 'added@example.com', role: 'viewer' },
  });
  await arrived;
  const sent = new Promise<void>((resolve) => {
    const off = suite.app.onEvent('notifications.attempted', () => {
      off();
      resolve();
    });
  });
  // The relay answered; the outbox records it as sent right after.
  const rows = await api(suite.app, 'GET', '/api/admin/notifications', { cookie: await suite.app.signIn(ADMIN_EMAIL) });
  if (rows.deliveries[0]?.state !== 'sent') await sent;
  const page = await dashboardPage(suite.browser, suite.app, await suite.app.signIn(ADMIN_EMAIL), suite.contexts);
  await page.click('#admin-link');
  await page.locator('#admin-page[data-ready="true"]').waitFor();
  const row = page.locator('#ad-notifications tbody tr', { hasText: 'added@example.com' });
  expect(await row.getAttribute('data-state')).toBe('sent');
  expect(await row.locator('td').nth(1).innerText()).toBe('shared_with_me');
  expect(await page.locator('#ad-notify-off').isHidden()).toBe(true);
  expect(await page.locator('#ad-notify-none').isHidden()).toBe(true);
});

test("a canvas's owner chooses how new submissions are mailed on its page; an editor is not offered the choice", async () => {
  const owner = await suite.app.signIn('form-owner@example.com');
  const canvas = await api(suite.app, 'POST', '/api/canvases', { cookie: owner, json: { title: 'Sign-up sheet' } });
  await api(suite.app, 'PUT', `/api/canvases/${canvas.id}/members`, {
    cookie: owner,
    json: { email: 'helper@example.com', role: 'editor' },
  });
  const page = await dashboardPage(suite.browser, suite.app, owner, suite.contexts);
  await page.goto(`${new URL(suite.app.ctx.config.baseUrl).origin}/#/canvas/${canvas.id}`);
  await page.locator(`#canvas-page[data-ready="${canvas.id}"]`).waitFor();
  const select = page.getByLabel('Email me new submissions');
  expect(await select.inputValue()).toBe('off');
  await select.selectOption('hourly');
  await page.locator('#cp-submission-mail-state', { hasText: 'Saved.' }).waitFor();
  expect((await api(suite.app, 'GET', '/api/me/notifications', { cookie: owner })).submissions).toEqual({ [canvas.id]: 'hourly' });
  await page.reload();
  await page.locator(`#canvas-page[data-ready="${canvas.id}"]`).waitFor();
  expect(await page.getByLabel('Email me new submissions').inputValue()).toBe('hourly');

  const editor = await dashboardPage(suite.browser, suite.app, await suite.app.signIn('helper@example.com'), suite.contexts);
  await editor.goto(`${new URL(suite.app.ctx.config.baseUrl).origin}/#/canvas/${canvas.id}`);
  await editor.locator(`#canvas-page[data-ready="${canvas.id}"]`).waitFor();
  expect(await editor.locator('#cp-submission-mail-box').isHidden()).toBe(true);
});
