// passes: embedded — Chromium journeys; the API suites run their routes in the s3 and cluster passes
// The dashboard's guest links in Chromium: an owner creates a link with a
// name and a lifetime, sees it listed as active, and revokes it.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { World } from '../world.ts';
import { launchChromium } from './helpers.ts';

const DAY = 24 * 3600 * 1000;
// The dashboard's own origin is the page's origin (its writes must carry it): EASEL_BASE_URL's :0 becomes the bound port.
const w = new World({ reset: 'none', listen: true, env: { EASEL_BASE_URL: 'http://127.0.0.1:0' } });
let browser: Browser;

beforeAll(async () => {
  await w.start();
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await w.close();
});

describe('guest links in the dashboard', () => {
  test('create (name, days), listed as active, revoke', async () => {
    const context = await browser.newContext();
    const at = w.cookie.owner.indexOf('=');
    await context.addCookies([{ name: w.cookie.owner.slice(0, at), value: w.cookie.owner.slice(at + 1), url: w.app.base }]);
    const page = await context.newPage();
    await page.goto(`${w.app.base}/`);
    const row = page.locator('#canvases tbody tr', { hasText: w.canvas.view.title });
    await row.locator('button.guest-links').click();
    // What a link lets its holder past is said before one is made: the password too (spec: guests skip the gate).
    expect(await page.locator('#guests > p').first().innerText()).toContain('without an account, and without its password if it has one');
    await page.locator('#guest-form input[name="name"]').fill('Visitor');
    await page.locator('#guest-form input[name="days"]').fill('3');
    const before = Date.now();
    await page.locator('#guest-form button[type="submit"]').click();
    await page.locator('#guest-created').waitFor({ state: 'visible' });
    const url = await page.locator('#guest-url').textContent();
    // This instance sends no email: the address field is off and the page says why.
    expect(await page.locator('#guest-email-off').isVisible()).toBe(true);
    expect(await page.locator('#guest-form input[name="email"]').isDisabled()).toBe(true);
    expect(url).toStartWith(`${w.app.ctx.config.baseUrl}/auth/guest?token=`);
    // Ready for the next guest: the name is cleared, the days kept.
    expect(await page.inputValue('#guest-form input[name="name"]')).toBe('');
    expect(await page.inputValue('#guest-form input[name="days"]')).toBe('3');

    const listed = page.locator('#guest-list tbody tr', { hasText: 'Visitor' });
    await expect(listed.locator('td').nth(2).textContent()).resolves.toBe('active');
    const invites = (await w.expectOk('GET', `/api/canvases/${w.canvas.id}/guest-invites`, 'owner')).invites as Array<any>;
    const made = invites.find((i) => i.name === 'Visitor')!;
    expect(made.expiresAt).toBeGreaterThanOrEqual(before + 3 * DAY);
    expect(made.expiresAt).toBeLessThanOrEqual(Date.now() + 3 * DAY);

    await listed.locator('button', { hasText: 'Revoke' }).click();
    await page.locator('#guest-list tbody tr', { hasText: 'Visitor' }).locator('td', { hasText: 'revoked' }).waitFor();
    const after = (await w.expectOk('GET', `/api/canvases/${w.canvas.id}/guest-invites`, 'owner')).invites as Array<any>;
    expect(after.find((i) => i.inviteId === made.inviteId)).toMatchObject({ active: false, revokedAt: expect.any(Number) });
    // The link no longer opens.
    const u = new URL(url!);
    expect((await w.app.request(u.pathname + u.search)).status).toBe(404);
    await context.close();
  });

  test('viewers get no guest-link button', async () => {
    const context = await browser.newContext();
    const at = w.cookie.viewer.indexOf('=');
    await context.addCookies([{ name: w.cookie.viewer.slice(0, at), value: w.cookie.viewer.slice(at + 1), url: w.app.base }]);
    const page = await context.newPage();
    await page.goto(`${w.app.base}/`);
    const row = page.locator('#canvases tbody tr', { hasText: w.canvas.view.title });
    await row.waitFor();
    expect(await row.locator('button.guest-links').count()).toBe(0);
    await context.close();
  });
});
