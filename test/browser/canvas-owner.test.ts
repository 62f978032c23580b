// passes: embedded — Chromium journeys; the API suites run their routes in the s3 and cluster passes
// The dashboard's "Transfer ownership" form and the guest link email field,
// in Chromium against a real SMTP relay: the owner gives a canvas away
// (after confirming) and is shown it as an editor, without the form; the
// guest link is emailed to the address typed; `#/canvas/<id>/data` (the
// digest's link) opens the canvas page.
import { afterAll, expect, test } from 'bun:test';
import { startRelay } from '../smtp-fixture.ts';
import { api, dashboardPage, useBrowserSuite } from './helpers.ts';

const relay = await startRelay({ plain: true });
afterAll(() => relay.stop());
const suite = useBrowserSuite({ EASEL_SMTP_URL: relay.url });

test('the owner transfers a canvas from its page; the page then shows them as an editor without the form', async () => {
  const owner = await suite.app.signIn('giver@example.com');
  await suite.app.signIn('taker@example.com');
  const canvas = await api(suite.app, 'POST', '/api/canvases', { cookie: owner, json: { title: 'Handed over' } });
  const page = await dashboardPage(suite.browser, suite.app, owner, suite.contexts);
  await page.goto(`${new URL(suite.app.ctx.config.baseUrl).origin}/#/canvas/${canvas.id}/data`);
  await page.locator(`#canvas-page[data-ready="${canvas.id}"]`).waitFor();
  expect(await page.locator('#cp-data').isVisible()).toBe(true);
  await page.fill('#cp-transfer input[name="email"]', 'taker@example.com');
  // (dashboardPage accepts the confirmation.)
  await page.click('#cp-transfer button');
  await page.locator('#cp-transfer').waitFor({ state: 'hidden' });
  await page.locator('#cp-members tbody tr', { hasText: 'taker@example.com' }).locator('td', { hasText: 'owner' }).waitFor();
  expect((await api(suite.app, 'GET', `/api/canvases/${canvas.id}`, { cookie: owner })).role).toBe('editor');
  await relay.find((m) => m.subject === 'You now own "Handed over"');
});

test('a guest link is emailed to the address typed beside it', async () => {
  const owner = await suite.app.signIn('inviter@example.com');
  const canvas = await api(suite.app, 'POST', '/api/canvases', { cookie: owner, json: { title: 'Open house' } });
  const page = await dashboardPage(suite.browser, suite.app, owner, suite.contexts);
  await page.locator('#canvases tbody tr', { hasText: 'Open house' }).locator('button.guest-links').click();
  expect(await page.locator('#guest-email-off').isHidden()).toBe(true);
  await page.fill('#guest-form input[name="email"]', 'visitor@example.com');
  await page.click('#guest-form button[type="submit"]');
  await page.locator('#guest-emailed', { hasText: 'Emailed to visitor@example.com.' }).waitFor();
  const url = await page.locator('#guest-url').textContent();
  const mail = await relay.find((m) => m.subject?.endsWith('invited you to "Open house"') === true);
  expect(mail.text).toContain(url!);
  expect(canvas.id).toBeString();
});
