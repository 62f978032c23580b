// passes: embedded — Chromium journeys; the API suites run these routes in the s3 and cluster passes
// Results of actions as toasts (issue 38 item 3): each result is added to the
// page's polite live region (#notice, role=status), so a screen reader says
// it; a success hides itself after a few seconds, an error stays until it is
// dismissed, and a later result on the same subject takes an error's place.
import { describe, expect, test } from 'bun:test';
import { dashboardPage, useBrowserSuite } from './helpers.ts';

const suite = useBrowserSuite();

describe('toasts', () => {
  test('a result is announced in the live region; success hides itself, an error stays until dismissed', async () => {
    const cookie = await suite.app.signIn('toast-reader@example.com', 'Toast Reader');
    const page = await dashboardPage(suite.browser, suite.app, cookie, suite.contexts);
    await page.locator('#notify-form[data-ready]').waitFor();

    // The region is there before any toast (a live region added with its text is not announced) and is polite.
    const region = page.locator('#notice');
    expect(await region.getAttribute('role')).toBe('status');
    expect(await region.getAttribute('aria-live')).toBe('polite');
    expect(await region.locator('.toast').count()).toBe(0);

    // A name of spaces passes the browser's `required` and is refused by the server: an error toast.
    await page.fill('#token-form input[name="name"]', '   ');
    await page.click('#token-form button[type="submit"]');
    const error = page.getByRole('status').locator('.toast-error', { hasText: 'Could not create the token' });
    await error.waitFor();

    // Saving an email choice: a success toast, in the same region, read by its role.
    await page.locator('#notify-form input[name="ai_cap"]').click();
    const saved = page.getByRole('status').locator('.toast-done', { hasText: 'Email choices saved.' });
    await saved.waitFor();
    expect(await saved.getByRole('button', { name: 'Dismiss' }).isVisible()).toBe(true);

    // The success goes by itself; the error, shown before it, is still there after.
    await saved.waitFor({ state: 'detached' });
    expect(await error.isVisible()).toBe(true);
    await error.getByRole('button', { name: 'Dismiss' }).click();
    await error.waitFor({ state: 'detached' });

    // An error replaced by the result of trying again: one toast about tokens, the success.
    await page.click('#token-form button[type="submit"]');
    await error.waitFor();
    await page.fill('#token-form input[name="name"]', 'release bot');
    await page.click('#token-form button[type="submit"]');
    await page.locator('#notice .toast-done', { hasText: 'Token "release bot" created' }).waitFor();
    expect(await page.locator('#notice .toast[data-topic="tokens"]').count()).toBe(1);
    expect(await page.locator('#notice .toast-error').count()).toBe(0);
  }, 30_000);

  test('on a phone the end of the page can still be scrolled clear of the toasts, and the room goes with them', async () => {
    const cookie = await suite.app.signIn('toast-phone@example.com', 'Toast Phone');
    const page = await dashboardPage(suite.browser, suite.app, cookie, suite.contexts);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('#notify-form[data-ready]').waitFor();
    await page.fill('#token-form input[name="name"]', '   ');
    await page.click('#token-form button[type="submit"]');
    const error = page.locator('#notice .toast-error');
    await error.waitFor();
    // The page's last field, scrolled as far down as the page goes: above the toasts, not under them.
    const at = await page.evaluate(() => {
      window.scrollTo(0, document.documentElement.scrollHeight);
      const fields = [...document.querySelectorAll('#notify-form input')];
      const last = fields[fields.length - 1]!.getBoundingClientRect();
      return { lastBottom: last.bottom, toastsTop: document.getElementById('notice')!.getBoundingClientRect().top };
    });
    expect(at.lastBottom).toBeLessThanOrEqual(at.toastsTop);
    await error.getByRole('button', { name: 'Dismiss' }).click();
    await error.waitFor({ state: 'detached' });
    await page.waitForFunction(() => getComputedStyle(document.body).paddingBottom === '0px');
  }, 30_000);
});
