// passes: embedded — Chromium journeys; the archive, restore, delete and access routes run in the s3 and cluster passes
// Issue 38 item 6 in Chromium: a new canvas opens on its drop zone; the
// danger zone (Archive, Restore, Delete with the slug typed in a <dialog>);
// widening access asked first, with the runtime switches' note while a
// Public link; the guest links panel where the person is, with Copy; the
// empty states' next step; one set of status words everywhere.
import { describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { dashboardOrigin } from '../../src/http/cross-site.ts';
import { api, dashboardPage, deploy, useBrowserSuite } from './helpers.ts';

const suite = useBrowserSuite();
const origin = () => dashboardOrigin(suite.app.ctx.config);

async function signedIn(email: string): Promise<{ page: Page; cookie: string }> {
  const cookie = await suite.app.signIn(email, email.split('@')[0]);
  const page = await dashboardPage(suite.browser, suite.app, cookie, suite.contexts);
  await page.locator('body[data-loaded="true"]').waitFor();
  return { page, cookie };
}

async function openCanvas(page: Page, id: string): Promise<void> {
  await page.goto(`${origin()}/#/canvas/${id}`);
  await page.locator(`#canvas-page[data-ready="${id}"]`).waitFor();
}

const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');
/** Focus comes back on the dialog's close event (a task after close()): wait for it. */
const focusReturnsTo = (page: Page, id: string) => page.waitForFunction((want) => document.activeElement?.id === want, id);

describe('from nothing to a first deploy', () => {
  test('the empty states offer the next step; Create opens the new canvas on its drop zone, with the key for CI once', async () => {
    const { page } = await signedIn('newcomer@example.com');
    await page.locator('#canvases[data-ready="true"]').waitFor({ state: 'attached' });
    expect(await page.locator('#empty').innerText()).toContain('No canvases yet.');
    await page.locator('#empty').getByRole('button', { name: 'Create your first canvas' }).click();
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).name)).toBe('title');
    await page.locator('#gallery-list[data-ready=""]').waitFor({ state: 'attached' });
    expect(await page.locator('#gallery-empty').isVisible()).toBe(true);
    expect(await page.locator('#gallery-empty').getByRole('button', { name: 'Create a canvas' }).isVisible()).toBe(true);

    await page.keyboard.type('First steps');
    await page.keyboard.press('Enter');
    await page.waitForURL(/#\/canvas\/[A-Za-z0-9]+$/);
    const id = new URL(page.url()).hash.split('/')[2]!;
    await page.locator(`#canvas-page[data-ready="${id}"]`).waitFor();
    // The drop zone comes first under the title, right below the preview's empty state that points to it, and has the focus.
    expect(await page.evaluate(() => document.getElementById('cp-title')!.nextElementSibling!.id)).toBe('cp-preview');
    expect(await page.evaluate(() => document.getElementById('cp-preview')!.nextElementSibling!.id)).toBe('cp-deploy-box');
    expect(await page.locator('#cp-preview-empty').innerText()).toBe('Nothing published yet — drop a folder below');
    expect(await page.locator('#cp-deploy-title').innerText()).toBe('Deploy its first version');
    expect(await focusedId(page)).toBe('cp-drop');
    expect(await page.locator('#cp-welcome-key summary').isVisible()).toBe(true);
    expect(await page.locator('#cp-welcome-key-value').textContent()).toMatch(/^easel_sk_/);
    // Not the list with a key and a curl command.
    expect(await page.locator('#created').isVisible()).toBe(false);
    expect(await page.locator('#cp-state').innerText()).toBe('· Not published yet · Restricted');

    // A folder picked there publishes it; then Deploy goes back below the name.
    const site = mkdtempSync(join(tmpdir(), 'easel-first-'));
    writeFileSync(join(site, 'index.html'), '<h1>hi</h1>');
    writeFileSync(join(site, 'app.css'), 'h1{}');
    await page.setInputFiles('#cp-folder', site);
    await page.locator('#cp-deploy-status', { hasText: 'Published version 1: 2 files' }).waitFor();
    rmSync(site, { recursive: true, force: true });
    await page.locator('#cp-state', { hasText: 'Live · Restricted' }).waitFor();
    expect(await page.evaluate(() => document.getElementById('cp-preview')!.nextElementSibling!.id)).not.toBe('cp-deploy-box');
    expect(await page.locator('#cp-deploy-title').innerText()).toBe('Deploy');
    await page.locator('#cp-versions tbody tr', { hasText: '1 (live)' }).waitFor();
    expect(await page.locator('#cp-versions tbody tr').first().locator('td').nth(5).innerText()).toStartWith('2 files, ');
  });
});

describe('status words', () => {
  test('the list says Live / Not published yet / Archived and who can open it in words, never raw values; one file is "1 file"', async () => {
    const { page, cookie } = await signedIn('words@example.com');
    const live = await api(suite.app, 'POST', '/api/canvases', { cookie, json: { title: 'Words live' } });
    await deploy(suite.app, live.id, live.apiKey, { 'index.html': 'one' });
    await api(suite.app, 'PATCH', `/api/canvases/${live.id}`, { cookie, json: { accessMode: 'whole_org' } });
    await api(suite.app, 'POST', '/api/canvases', { cookie, json: { title: 'Words draft' } });
    const shelved = await api(suite.app, 'POST', '/api/canvases', { cookie, json: { title: 'Words shelved' } });
    await api(suite.app, 'POST', `/api/canvases/${shelved.id}/archive`, { cookie });
    await page.reload();
    await page.locator('#canvases[data-ready="true"]').waitFor({ state: 'attached' });
    const column = (title: string, n: number) => page.locator('#canvases tbody tr', { hasText: title }).locator('td').nth(n).innerText();
    expect(await column('Words live', 2)).toBe('Live');
    expect(await column('Words live', 3)).toBe('Whole organisation');
    expect(await column('Words draft', 2)).toBe('Not published yet');
    expect(await column('Words draft', 3)).toBe('Only you');
    expect(await column('Words shelved', 2)).toBe('Archived');
    await openCanvas(page, live.id);
    expect(await page.locator('#cp-versions tbody tr').first().locator('td').nth(5).innerText()).toStartWith('1 file, ');
    expect(await page.locator('main').innerText()).not.toMatch(/public_link|whole_org|\bactive\b/);
    // Nor, anywhere in its words (its hidden states too; code to copy aside), an operator's setting or an error code: an owner cannot act on those.
    const words = await page.locator('#canvas-page').evaluate((el) => {
      const copy = el.cloneNode(true) as HTMLElement;
      for (const code of copy.querySelectorAll('code, pre')) code.remove();
      return copy.textContent ?? '';
    });
    expect(words.match(/\bEASEL_[A-Z_]+|\b[A-Z]{2,}_[A-Z_]{2,}\b/g) ?? []).toEqual([]);
  });
});

describe('a share past its expiry', () => {
  test('says "Expired" in the list and on its page, not Live; the expiry field shows it, and a time already past is refused before anything is sent', async () => {
    const { page, cookie } = await signedIn('expiry@example.com');
    const c = await api(suite.app, 'POST', '/api/canvases', { cookie, json: { title: 'Lapsed board' } });
    await deploy(suite.app, c.id, c.apiKey, { 'index.html': 'lapsed' });
    const past = Date.parse('2020-01-01T10:00:00Z');
    await api(suite.app, 'PATCH', `/api/canvases/${c.id}`, { cookie, json: { accessMode: 'whole_org', expiresAt: past } });
    // What a colleague meets: the share is over.
    const colleague = await suite.app.signIn('colleague-expiry@example.com');
    expect((await suite.app.request(`/c/${c.slug}/`, { cookie: colleague })).status).toBe(404);
    await page.reload();
    await page.locator('#canvases[data-ready="true"]').waitFor({ state: 'attached' });
    expect(await page.locator('#canvases tbody tr', { hasText: 'Lapsed board' }).locator('td').nth(2).innerText()).toBe('Expired');
    await openCanvas(page, c.id);
    expect(await page.locator('#cp-state').innerText()).toBe('· Expired · Whole organisation');
    expect(await page.locator('#cp-expiry-state').innerText()).toStartWith('Sharing ended ');
    expect(await page.locator('#cp-expiry-state').innerText()).toEndWith(': only you and its editors can open it.');
    // The field holds the expiry that is set, in local time.
    const shown = await page.locator('#cp-expiry input[name="until"]').inputValue();
    expect(await page.evaluate((v) => new Date(v).getTime(), shown)).toBe(past);
    // A time already past would end the share silently: refused with what to do instead.
    await page.fill('#cp-expiry input[name="until"]', '2021-06-01T09:00');
    await page.click('#cp-expiry button[type="submit"]');
    const error = page.locator('#cp-expiry-error');
    await error.waitFor();
    expect(await error.innerText()).toBe('That time has passed: pick a later one (to stop sharing now, choose Restricted above).');
    expect((await api(suite.app, 'GET', `/api/canvases/${c.id}`, { cookie })).expiresAt).toBe(past);
    // A later one is taken, and the canvas is Live again.
    await page.fill('#cp-expiry input[name="until"]', '2099-01-02T03:04');
    await page.click('#cp-expiry button[type="submit"]');
    await page.locator('#cp-state', { hasText: 'Live · Whole organisation' }).waitFor();
    expect(await error.isVisible()).toBe(false);
    expect(await page.locator('#cp-expiry input[name="until"]').inputValue()).toBe('2099-01-02T03:04');
  });
});

describe('the danger zone', () => {
  test('Archive asks first, then Restore brings it back; the buttons look dangerous, unlike Save', async () => {
    const { page, cookie } = await signedIn('archiver@example.com');
    const c = await api(suite.app, 'POST', '/api/canvases', { cookie, json: { title: 'Old board' } });
    await deploy(suite.app, c.id, c.apiKey, { 'index.html': 'old' });
    await openCanvas(page, c.id);
    const background = (selector: string) => page.locator(selector).evaluate((el) => getComputedStyle(el).backgroundColor);
    const danger = await page.evaluate(() => {
      const probe = document.createElement('span');
      probe.style.color = 'var(--danger)';
      document.body.append(probe);
      const colour = getComputedStyle(probe).color;
      probe.remove();
      return colour;
    });
    expect(await background('#cp-archive')).toBe(danger);
    expect(await background('#cp-delete')).toBe(danger);
    expect(await background('#cp-rename button[type="submit"]')).not.toBe(danger);

    // Cancel changes nothing.
    await page.click('#cp-archive');
    const dialog = page.locator('#cp-archive-dialog');
    expect(await dialog.evaluate((d) => (d as HTMLDialogElement).open)).toBe(true);
    expect(await dialog.locator('h3').innerText()).toBe('Archive "Old board"?');
    await page.keyboard.press('Escape');
    expect(await dialog.evaluate((d) => (d as HTMLDialogElement).open)).toBe(false);
    await focusReturnsTo(page, 'cp-archive');
    expect((await api(suite.app, 'GET', `/api/canvases/${c.id}`, { cookie })).status).toBe('active');

    await page.click('#cp-archive');
    await dialog.getByRole('button', { name: 'Archive', exact: true }).click();
    await page.locator('#cp-state', { hasText: 'Archived' }).waitFor();
    expect(await page.locator('#cp-archived-note').isVisible()).toBe(true);
    expect(await page.locator('#cp-archive').isVisible()).toBe(false);
    expect((await suite.app.request(`/c/${c.slug}/`, { cookie })).status).not.toBe(200);

    await page.getByRole('button', { name: 'Restore' }).click();
    await page.locator('#cp-state', { hasText: 'Live' }).waitFor();
    await page.locator('#notice .toast-done', { hasText: '"Old board" is restored and answers again.' }).waitFor();
    expect(await page.locator('#cp-archive').isVisible()).toBe(true);
    expect(await (await suite.app.request(`/c/${c.slug}/`, { cookie })).text()).toBe('old');
  });

  test('Delete asks for the slug in a dialog: keyboard only, the title is not enough, Escape cancels, Enter deletes', async () => {
    const { page, cookie } = await signedIn('deleter@example.com');
    const c = await api(suite.app, 'POST', '/api/canvases', { cookie, json: { title: 'Doomed', slug: 'doomed-board' } });
    await openCanvas(page, c.id);
    await page.focus('#cp-delete');
    await page.keyboard.press('Enter');
    const dialog = page.locator('#cp-delete-dialog');
    expect(await dialog.evaluate((d) => (d as HTMLDialogElement).open)).toBe(true);
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).name)).toBe('confirm');
    expect(await page.locator('#cp-delete-slug').innerText()).toBe('doomed-board');
    await page.keyboard.type('Doomed');
    expect(await page.locator('#cp-delete-confirm').isDisabled()).toBe(true);
    await page.keyboard.press('Enter');
    expect(await dialog.evaluate((d) => (d as HTMLDialogElement).open)).toBe(true);
    await page.keyboard.press('Escape');
    expect(await dialog.evaluate((d) => (d as HTMLDialogElement).open)).toBe(false);
    await focusReturnsTo(page, 'cp-delete');
    expect((await suite.app.request(`/api/canvases/${c.id}`, { cookie })).status).toBe(200);

    await page.keyboard.press('Enter');
    expect(await page.locator('#cp-delete-form input[name="confirm"]').inputValue()).toBe('');
    await page.keyboard.type('doomed-board');
    expect(await page.locator('#cp-delete-confirm').isDisabled()).toBe(false);
    await page.keyboard.press('Enter');
    await page.locator('#notice .toast-done', { hasText: '"Doomed" is deleted.' }).waitFor();
    await page.waitForURL(`${origin()}/#/`);
    expect((await suite.app.request(`/api/canvases/${c.id}`, { cookie })).status).toBe(404);
    await page.locator('#canvases[data-ready="true"]').waitFor({ state: 'attached' });
    expect(await page.locator('#canvases tbody tr', { hasText: 'Doomed' }).count()).toBe(0);
  });

  test('editors do not see it (only owners and admins may archive or delete)', async () => {
    const owner = await suite.app.signIn('lender@example.com');
    const c = await api(suite.app, 'POST', '/api/canvases', { cookie: owner, json: { title: 'Shared' } });
    await suite.app.signIn('helper@example.com');
    await api(suite.app, 'PUT', `/api/canvases/${c.id}/members`, { cookie: owner, json: { email: 'helper@example.com', role: 'editor' } });
    const { page } = await signedIn('helper@example.com');
    await openCanvas(page, c.id);
    expect(await page.locator('#cp-danger').isVisible()).toBe(false);
  });
});

describe('widening access asks first', () => {
  test('Public link: the dialog says what anonymous visitors get; cancelled, nothing changes; confirmed, the runtime says so', async () => {
    const { page, cookie } = await signedIn('sharer@example.com');
    const c = await api(suite.app, 'POST', '/api/canvases', { cookie, json: { title: 'Open house' } });
    await openCanvas(page, c.id);
    const dialog = page.locator('#cp-access-dialog');
    const isOpen = () => dialog.evaluate((d) => (d as HTMLDialogElement).open);

    await page.check('#cp-access input[value="public_link"]');
    expect(await isOpen()).toBe(true);
    expect(await dialog.locator('h3').innerText()).toBe('Make "Open house" a Public link?');
    expect(await page.locator('#cp-access-will').innerText()).toContain('Anyone with the link sees its pages');
    expect(await page.locator('#cp-access-wont').innerText()).toContain(
      'key-value storage, files, AI, realtime and collections refuse them.',
    );
    await dialog.getByRole('button', { name: 'Keep it as it is' }).click();
    expect(await isOpen()).toBe(false);
    // The dialog's close event puts the radio back: wait for it.
    await page.locator('#cp-access input[value="restricted"]:checked').waitFor();
    expect((await api(suite.app, 'GET', `/api/canvases/${c.id}`, { cookie })).accessMode).toBe('restricted');
    expect(await page.locator('#cp-switches .anon').count()).toBe(0);

    await page.check('#cp-access input[value="public_link"]');
    await dialog.getByRole('button', { name: 'Make it a Public link' }).click();
    await page.locator('#cp-state', { hasText: 'Public link' }).waitFor();
    expect((await api(suite.app, 'GET', `/api/canvases/${c.id}`, { cookie })).accessMode).toBe('public_link');
    const switches = await page.locator('#cp-switches li').count();
    expect(switches).toBeGreaterThan(5);
    expect(await page.locator('#cp-switches li .anon', { hasText: 'not in effect for anonymous visitors' }).count()).toBe(switches);
    // A switch reloads the list: the note stays.
    await page.click('#cp-switch-kv');
    await page.locator('#cp-switches li[data-capability="kv"] .anon').waitFor();

    // Narrowing is not asked; the notes go.
    await page.check('#cp-access input[value="restricted"]');
    await page.locator('#cp-state', { hasText: 'Restricted' }).waitFor();
    expect(await isOpen()).toBe(false);
    expect(await page.locator('#cp-switches .anon').count()).toBe(0);

    // Whole organisation from Restricted is asked too.
    await page.check('#cp-access input[value="whole_org"]');
    expect(await isOpen()).toBe(true);
    expect(await dialog.locator('h3').innerText()).toBe('Open "Open house" to the whole organisation?');
    await page.keyboard.press('Escape');
    // The dialog's close event puts the radio back: wait for it.
    await page.locator('#cp-access input[value="restricted"]:checked').waitFor();
    expect((await api(suite.app, 'GET', `/api/canvases/${c.id}`, { cookie })).accessMode).toBe('restricted');
  });
});

describe('guest links', () => {
  test('the panel opens below Sharing on the canvas page, focused, and a new link has a Copy button', async () => {
    const { page, cookie } = await signedIn('host@example.com');
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: origin() });
    const c = await api(suite.app, 'POST', '/api/canvases', { cookie, json: { title: 'Guest house' } });
    await openCanvas(page, c.id);
    await page.click('#cp-guests');
    await page.locator('#guests[data-loaded]').waitFor();
    expect(await page.evaluate(() => document.getElementById('cp-guests')!.parentElement!.nextElementSibling!.id)).toBe('guests');
    expect(await focusedId(page)).toBe('guests-heading');
    await page.fill('#guest-form input[name="name"]', 'Visitor');
    await page.click('#guest-form button[type="submit"]');
    await page.locator('#guest-created').waitFor({ state: 'visible' });
    await page.getByRole('button', { name: 'Copy' }).and(page.locator('#copy-guest-url')).click();
    await page.locator('#guest-copied', { hasText: 'Copied.' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await page.locator('#guest-url').innerText());
    // Another view closes it.
    await page.goto(`${origin()}/#/`);
    await page.locator('#canvases[data-ready="true"]').waitFor({ state: 'attached' });
    expect(await page.locator('#guests').isVisible()).toBe(false);
  });
});
