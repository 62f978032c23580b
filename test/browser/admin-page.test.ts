// passes: embedded — Chromium journeys; the API suites run their routes in the s3 and cluster passes
// The dashboard's administration page in Chromium (issue 18 item 7, part):
// people, canvases, instance settings and the audit log, as an admin uses
// them; names carrying markup are shown as text. A screenshot goes to
// artifacts/screenshots/.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../harness.ts';
import { ROOT } from '../spawn.ts';
import { startS3Server } from '../support/s3-server.ts';
import { ADMIN_EMAIL } from '../world.ts';
import { api, closeBrowserSuite, dashboardPage, launchChromium } from './helpers.ts';

const SHOTS = join(ROOT, 'artifacts', 'screenshots');
let app: TestApp;
let browser: Browser;
const contexts: BrowserContext[] = [];
let page: Page;
let member: string;
let canvas: { id: string; slug: string; title: string };

beforeAll(async () => {
  // An admin-set AI key is stored sealed with EASEL_SECRET_KEY.
  app = await startTestApp({
    listen: true,
    env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_RATELIMIT_ENABLED: 'false', EASEL_SECRET_KEY: 'a1'.repeat(32) },
  });
  browser = await launchChromium();
  mkdirSync(SHOTS, { recursive: true });
  member = await app.signIn('mallory@example.com', '<img src=x onerror="window.pwned=1">Mallory');
  canvas = await api(app, 'POST', '/api/canvases', { cookie: member, json: { title: 'Quarterly <b>numbers</b>' } });
  const admin = await app.signIn(ADMIN_EMAIL, 'Admin');
  page = await dashboardPage(browser, app, admin, contexts);
  // Confirmations are accepted; the one prompt (a reason to disable) is answered.
  page.removeAllListeners('dialog');
  page.on('dialog', (d) => void d.accept(d.type() === 'prompt' ? 'policy breach' : undefined));
  await page.click('#admin-link');
  await page.locator('#admin-page[data-ready="true"]').waitFor();
});
afterAll(() => closeBrowserSuite(contexts, browser, app));

describe('the header', () => {
  test('who is signed in, the admin link and Sign out stand apart (no word touches the next), on one line at 1280 px', async () => {
    const boxes = await page.evaluate(() => {
      const who = document.getElementById('who')!;
      const range = document.createRange();
      range.selectNodeContents(who.firstChild!);
      const text = range.getBoundingClientRect();
      const link = document.getElementById('admin-link')!.getBoundingClientRect();
      const button = who.querySelector('button')!.getBoundingClientRect();
      return {
        text: { right: text.right, top: text.top },
        link: { left: link.left, right: link.right, top: link.top },
        button: { left: button.left },
      };
    });
    expect(await page.locator('#who').innerText()).toContain('Signed in as Admin (admin@example.com)');
    expect(boxes.link.left - boxes.text.right).toBeGreaterThanOrEqual(8);
    expect(boxes.button.left - boxes.link.right).toBeGreaterThanOrEqual(8);
    expect(Math.abs(boxes.link.top - boxes.text.top)).toBeLessThan(4);
  });
});

describe('the administration page', () => {
  test('people: searched, names shown as text; deactivating someone ends their access at once', async () => {
    await page.fill('#ad-user-search', 'mallory');
    const row = page.locator('#ad-users tbody tr[data-email="mallory@example.com"]');
    expect(await row.locator('td').first().innerText()).toBe('<img src=x onerror="window.pwned=1">Mallory <mallory@example.com>');
    expect(await page.locator('#ad-users tbody tr').count()).toBe(1);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    await row.getByRole('button', { name: 'Deactivate' }).click();
    await row.getByRole('button', { name: 'Reactivate' }).waitFor();
    expect((await app.request('/api/me', { cookie: member })).status).toBe(401);
    await row.getByRole('button', { name: 'Reactivate' }).click();
    await row.getByRole('button', { name: 'Deactivate' }).waitFor();
  });

  test('home orgs are offered only under tenancy', async () => {
    expect(await page.locator('#ad-users-org-head').isHidden()).toBe(true);
    expect(await page.getByLabel('Home org of mallory@example.com').count()).toBe(0);
    const tenant = await startTestApp({ listen: true, env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_TENANCY: 'on' } });
    try {
      await tenant.signIn('ada@example.com', 'Ada');
      const other = await dashboardPage(browser, tenant, await tenant.signIn(ADMIN_EMAIL, 'Admin'), contexts);
      await other.click('#admin-link');
      await other.locator('#admin-page[data-ready="true"]').waitFor();
      expect(await other.locator('#ad-users-org-head').isVisible()).toBe(true);
      const field = other.getByLabel('Home org of ada@example.com');
      await field.fill('research');
      const drawn = Number(await other.locator('#ad-users').getAttribute('data-rendered'));
      const saved = other.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().includes('/api/admin/users/'));
      await field.press('Enter');
      expect((await saved).status()).toBe(200);
      // The save redraws the table from the server: typing before that would go into a row about to be replaced.
      await other.locator(`#ad-users[data-rendered="${drawn + 1}"]`).waitFor();
      const ada = (await tenant.ctx.users.list()).find((u) => u.email === 'ada@example.com')!;
      expect(ada.orgId).toBe('research');
      await other.getByLabel('Home org of ada@example.com').fill('has space');
      await other.getByLabel('Home org of ada@example.com').press('Enter');
      await other.locator('#ad-users-error:not([hidden])').waitFor();
      expect((await tenant.ctx.users.byId(ada.id))!.orgId).toBe('research');
    } finally {
      await tenant.close();
    }
  });

  test('canvases: found by owner email, disabled with a reason (its pages stop), enabled again', async () => {
    await page.fill('#ad-canvas-search input[name="q"]', 'mallory@');
    await page.click('#ad-canvas-search button');
    const row = page.locator(`#ad-canvases tbody tr[data-id="${canvas.id}"]`);
    await row.waitFor();
    expect(await row.locator('td').first().innerText()).toBe('Quarterly <b>numbers</b>');
    await row.getByRole('button', { name: 'Disable' }).click();
    await row.locator('td', { hasText: 'disabled: policy breach' }).waitFor();
    const view = await api(app, 'GET', `/api/canvases/${canvas.id}`, { cookie: await app.signIn(ADMIN_EMAIL) });
    expect(view.status).toBe('disabled');
    await row.getByRole('button', { name: 'Enable' }).click();
    await row.getByRole('button', { name: 'Disable' }).waitFor();
  });

  test('instance settings: a cap changed and saved; the AI key is write-only', async () => {
    await page.fill('#ad-settings input[name="aiUserDailyUsd"]', '7.5');
    await page.fill('#ad-settings input[name="aiApiKey"]', 'sk-ant-admin-typed-0123456789');
    await page.click('#ad-settings button');
    await page.locator('#notice .toast', { hasText: 'Settings saved.' }).waitFor();
    const settings = await api(app, 'GET', '/api/admin/settings', { cookie: await app.signIn(ADMIN_EMAIL) });
    expect(settings).toMatchObject({ aiUserDailyUsd: 7.5, aiApiKeySet: true });
    expect(JSON.stringify(settings)).not.toContain('sk-ant-admin-typed');
    expect(await page.inputValue('#ad-settings input[name="aiApiKey"]')).toBe('');
    expect(await page.getAttribute('#ad-settings input[name="aiApiKey"]', 'placeholder')).toBe('a key is set (type to replace)');
  });

  test('instance settings: the fields stand in even columns at 1280 px, the model list shown whole, the prices under a heading of their own', async () => {
    const at = await page.evaluate(() => {
      const inputs = [...document.querySelectorAll('#ad-settings > label > input:not([type="checkbox"])')] as HTMLInputElement[];
      const models = document.querySelector('#ad-settings input[name="aiModels"]') as HTMLInputElement;
      const caption = document.querySelector('#ad-prices caption')!;
      return {
        lefts: new Set(inputs.map((i) => Math.round(i.getBoundingClientRect().left))).size,
        widths: new Set(inputs.filter((i) => i !== models).map((i) => Math.round(i.getBoundingClientRect().width))).size,
        modelsFit: models.scrollWidth <= models.clientWidth,
        captionAlign: getComputedStyle(caption).textAlign,
      };
    });
    expect(at.lefts).toBe(3);
    expect(at.widths).toBe(1);
    expect(at.modelsFit).toBe(true);
    expect(at.captionAlign).toBe('left');
  });

  test('people on a phone: each value under its own column name, the hidden "Home org" column taking no cell', async () => {
    const before = page.viewportSize()!;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      const labels = await page.evaluate(() => {
        const table = document.querySelector('#ad-users') as HTMLTableElement;
        return {
          orgHidden: (document.getElementById('ad-users-org-head') as HTMLElement).hidden,
          first: [...table.tBodies[0]!.rows[0]!.cells].map((c) => c.getAttribute('data-label')),
          shown: getComputedStyle(table.tBodies[0]!.rows[0]!.cells[2]!, '::before').content,
        };
      });
      // Without tenancy: Person, State, Public links, then the buttons (no name), never "Home org" over Deactivate.
      expect(labels).toEqual({ orgHidden: true, first: ['Person', 'State', 'Public links', null], shown: '"Public links" / ""' });
      // The cards are still a table to a screen reader (Safari drops native table semantics under display: block).
      const roles = await page.evaluate(() => {
        const table = document.querySelector('#ad-users') as HTMLTableElement;
        const row = table.tBodies[0]!.rows[0]!;
        return [table, table.tHead, table.tHead!.rows[0]!.cells[0], table.tBodies[0], row, row.cells[0]].map((e) =>
          e!.getAttribute('role'),
        );
      });
      expect(roles).toEqual(['table', 'rowgroup', 'columnheader', 'rowgroup', 'row', 'cell']);
      const tree = await page.locator('#ad-users').ariaSnapshot();
      expect(tree).toContain('- columnheader "Person"');
      expect(tree).toMatch(/- row ".*mallory@example\.com/);
      // The label drawn before a value is not read again after its header: the cell is its value.
      expect(tree).toContain('- cell "active"');
    } finally {
      await page.setViewportSize(before);
    }
  });

  test('instance settings on a phone: the price table fits (no sideways scroll), its caption is read whole', async () => {
    const before = page.viewportSize()!;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      const at = await page.evaluate(() => {
        const table = document.querySelector('#ad-prices') as HTMLElement;
        const caption = table.querySelector('caption')!.getBoundingClientRect();
        const fields = [...table.querySelectorAll('input:not([type="checkbox"])')].map((i) => i.getBoundingClientRect());
        const box = table.getBoundingClientRect();
        return {
          rows: table.querySelectorAll('tbody tr').length,
          scrolls: table.scrollWidth > table.clientWidth,
          captionInside: caption.right <= box.right + 0.5,
          fieldsInside: fields.every((f) => f.right <= box.right + 0.5 && f.width >= 64),
        };
      });
      expect(at.rows).toBeGreaterThanOrEqual(2);
      expect(at).toEqual({ rows: at.rows, scrolls: false, captionInside: true, fieldsInside: true });
    } finally {
      await page.setViewportSize(before);
    }
  });

  test('instance settings: models, prices (changed, added, removed), storage and creation limits', async () => {
    const admin = await app.signIn(ADMIN_EMAIL);
    const before = await api(app, 'GET', '/api/admin/settings', { cookie: admin });
    const [first, second] = Object.keys(before.aiPrices) as [string, string];
    await page.fill('#ad-settings input[name="aiModels"]', `${first}, my-model-1`);
    await page.getByLabel(`Input price of ${first}`).fill('3.25');
    await page.getByLabel(`Remove the price of ${second}`).check();
    await page.getByLabel('Model to price').fill('my-model-1');
    await page.getByLabel('Input price of the new model').fill('1');
    await page.getByLabel('Output price of the new model').fill('2');
    // Sizes are typed in the unit people think in (GB here), never in bytes.
    expect(await page.getByLabel('Storage per person (GB)').inputValue()).toBe(String(before.userStorageBytes / 1024 ** 3));
    await page.getByLabel('Storage per person (GB)').fill('2.5');
    await page.fill('#ad-settings input[name="userCanvasCreatesPerHour"]', '7');
    await page.locator('#notice').evaluate((el) => el.replaceChildren());
    await page.click('#ad-settings button');
    await page.locator('#notice .toast', { hasText: 'Settings saved.' }).waitFor();
    const after = await api(app, 'GET', '/api/admin/settings', { cookie: admin });
    expect(after.aiModels).toEqual([first, 'my-model-1']);
    expect(after.aiPrices[first]).toEqual({ input: 3.25, output: before.aiPrices[first].output });
    expect(after.aiPrices['my-model-1']).toEqual({ input: 1, output: 2 });
    expect(Object.hasOwn(after.aiPrices, second)).toBe(false);
    expect(after).toMatchObject({ userStorageBytes: 2.5 * 1024 ** 3, userCanvasCreatesPerHour: 7 });
    // The page shows what is stored now.
    expect(await page.locator('#ad-prices tbody tr').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.model))).toEqual([
      ...Object.keys(after.aiPrices),
      '',
    ]);
  });

  test('Connections: created, edited, a protected header set (never shown again), granted to a canvas and taken back, disabled, deleted', async () => {
    const SECRET = 'Bearer upstream-secret-7f3a9c';
    // None yet: said in words, no bare table, no pickers with nothing to pick.
    await page.locator('#ad-connections[data-ready=""]').waitFor({ state: 'attached' });
    expect(await page.locator('#ad-connections-none').innerText()).toStartWith('No Connections yet.');
    expect(await page.locator('#ad-connections').isHidden()).toBe(true);
    expect(await page.locator('#ad-connection-header').isHidden()).toBe(true);
    expect(await page.locator('#ad-connection-grant').isHidden()).toBe(true);
    // The methods read like a field: one line of boxes level with the name field, the legend level with its label.
    const level = await page.evaluate(() => {
      const box = (el: Element) => el.getBoundingClientRect();
      const middle = (r: DOMRect) => r.top + r.height / 2;
      const form = document.getElementById('ad-connection-create')!;
      const boxes = [...form.querySelectorAll('input[name="m"]')].map((b) => middle(box(b)));
      return {
        rows: new Set(boxes.map(Math.round)).size,
        offField: Math.abs(boxes[0]! - middle(box(form.querySelector('input[name="name"]')!))),
        offLabel: Math.abs(box(form.querySelector('legend')!).top - box(form.querySelector('label')!).top),
      };
    });
    expect(level.rows).toBe(1);
    expect(level.offField).toBeLessThanOrEqual(3);
    expect(level.offLabel).toBeLessThanOrEqual(3);
    await page.fill('#ad-connection-create input[name="name"]', 'crm');
    await page.fill('#ad-connection-create input[name="origin"]', 'https://api.crm.example');
    await page.check('#ad-connection-create input[value="POST"]');
    await page.click('#ad-connection-create button');
    const row = page.locator('#ad-connections tbody tr[data-name="crm"]');
    await row.waitFor();
    expect(await row.locator('td').nth(2).innerText()).toBe('GET POST');
    // No protected header yet: said, not an empty cell.
    expect(await row.locator('td').nth(3).innerText()).toBe('none');
    expect(await page.locator('#ad-connections-none').isHidden()).toBe(true);
    expect(await page.locator('#ad-connection-header').isVisible()).toBe(true);
    // Edited: a new origin and methods; the name stays.
    await row.getByRole('button', { name: 'Edit' }).click();
    expect(await page.locator('#ad-connection-create input[name="name"]').getAttribute('readonly')).not.toBeNull();
    expect(await page.getByRole('form', { name: 'Change the Connection crm' }).count()).toBe(1);
    await page.fill('#ad-connection-create input[name="origin"]', 'https://api2.crm.example');
    await page.uncheck('#ad-connection-create input[value="POST"]');
    await page.check('#ad-connection-create input[value="DELETE"]');
    await page.getByRole('button', { name: 'Save changes to crm' }).click();
    await row.locator('td', { hasText: 'https://api2.crm.example' }).waitFor();
    expect(await row.locator('td').nth(2).innerText()).toBe('GET DELETE');
    expect(await page.locator('#ad-connection-create button[type="submit"]').innerText()).toBe('Create Connection');
    expect(await page.locator('#ad-connection-create-title').innerText()).toBe('New Connection');
    await page.selectOption('#ad-connection-header select[name="profile"]', 'crm');
    await page.fill('#ad-connection-header input[name="header"]', 'Authorization');
    await page.fill('#ad-connection-header input[name="value"]', SECRET);
    await page.click('#ad-connection-header button');
    await row.locator('td', { hasText: 'Authorization' }).waitFor();
    expect(await page.inputValue('#ad-connection-header input[name="value"]')).toBe('');
    await page.selectOption('#ad-connection-grant select[name="profile"]', 'crm');
    // The canvas is picked by its title (a suggestion), not typed as an id; the grant names it.
    const suggestions = await page.locator('#ad-canvas-options option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(suggestions).toContain(`${canvas.title} (${canvas.slug})`);
    await page.fill('#ad-connection-grant input[name="canvas"]', `${canvas.title} (${canvas.slug})`);
    await page.click('#ad-connection-grant button');
    await row.locator('span.grant', { hasText: canvas.title }).waitFor();
    // The grant is one chip: the canvas's name and its × on one line. The row's buttons stand apart:
    // side by side with a gap, or wrapped to a line of their own that starts where the first did.
    const layout = await row.evaluate((tr) => {
      const chip = tr.querySelector('span.grant')!.getBoundingClientRect();
      const x = tr.querySelector('span.grant button')!.getBoundingClientRect();
      const buttons = [...tr.querySelectorAll('td:last-child > button')].map((b) => b.getBoundingClientRect());
      const apart = buttons.slice(1).map((b, i) => {
        const before = buttons[i]!;
        return b.top === before.top
          ? b.left - before.right >= 4
          : b.top >= before.bottom && Math.round(b.left) === Math.round(buttons[0]!.left);
      });
      return { sameLine: x.top >= chip.top && x.bottom <= chip.bottom, apart };
    });
    expect(layout.sameLine).toBe(true);
    expect(layout.apart).toEqual([true, true]);
    expect(await api(app, 'GET', `/api/admin/canvases/${canvas.id}/connections`, { cookie: await app.signIn(ADMIN_EMAIL) })).toMatchObject({
      connections: [expect.objectContaining({ name: 'crm' })],
    });
    await row
      .locator('span.grant')
      .getByRole('button', { name: `Take crm back from ${canvas.title}` })
      .click();
    await row.locator('span.grant').waitFor({ state: 'detached' });
    await row.getByRole('button', { name: 'Disable' }).click();
    await row.locator('td', { hasText: 'disabled' }).waitFor();
    expect(await page.content()).not.toContain('upstream-secret');
    await row.getByRole('button', { name: 'Delete' }).click();
    await row.waitFor({ state: 'detached' });
  });

  test("storage: the database, where blobs live (the data directory, or a bucket with this server's cache) and the disk", async () => {
    const storage = async (p: Page) =>
      Object.fromEntries(
        await p
          .locator('#ad-storage tbody tr')
          .evaluateAll((rows) => rows.map((r) => [(r as HTMLElement).dataset.what, (r.lastElementChild as HTMLElement).innerText])),
      );
    const here = await storage(page);
    expect(here.database).toMatch(/^\d+\.\d KB \(write-ahead log [\d.]+ [KM]?B\)$/);
    expect(here.blobs).toMatch(/^[\d,]+ files?, [\d.]+ [KM]?B, in the data directory$/);
    expect(here.disk).toMatch(/free of .*; writes are refused below 256\.0 MB free$/);

    const s3 = await startS3Server('easel-admin');
    const onS3 = await startTestApp({
      listen: true,
      env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_BLOB_CACHE_MB: '64', ...s3.env('admin/') },
    });
    try {
      const other = await dashboardPage(browser, onS3, await onS3.signIn(ADMIN_EMAIL, 'Admin'), contexts);
      await other.click('#admin-link');
      await other.locator('#admin-page[data-ready="true"]').waitFor();
      expect((await storage(other)).blobs).toMatch(
        /^in s3:\/\/easel-admin\/admin\/; this server's cache holds \d+ copies, [\d.]+ [KM]?B of 64\.0 MB$/,
      );
    } finally {
      await onS3.close();
      await s3.stop();
    }
  });

  test('notification emails: none yet is said in words (with why: email is off), not a table of bare headings', async () => {
    await page.locator('#ad-notifications[data-ready]').waitFor({ state: 'attached' });
    expect(await page.locator('#ad-notify-none').innerText()).toBe('No notification email yet. Sent ones and failures are listed here.');
    expect(await page.locator('#ad-notify-off').isVisible()).toBe(true);
    expect(await page.locator('#ad-notifications').isHidden()).toBe(true);
  });

  test('the audit log, filtered by action and canvas', async () => {
    await page.fill('#ad-audit-filter input[name="action"]', 'canvas.disable');
    await page.fill('#ad-audit-filter input[name="canvas"]', canvas.slug);
    await page.click('#ad-audit-filter button');
    await page.locator('#ad-audit tbody tr[data-action="canvas.disable"]').waitFor();
    const rows = await page.locator('#ad-audit tbody tr').allInnerTexts();
    expect(rows).toHaveLength(1);
    // A sentence with the people and the canvas by name, markup shown as text.
    expect(rows[0]).toContain(`Admin (${ADMIN_EMAIL}) disabled "Quarterly <b>numbers</b>" as an administrator.`);
    // The stored record is on hover: which fields changed, never their values.
    const stored = await page.locator('#ad-audit tbody tr td:nth-child(2)').getAttribute('title');
    expect(stored).toBe('canvas.disable {"fields":["reason"]}');
    expect(`${rows[0]}${stored}`).not.toContain('policy breach');
    // Fields are named as their forms name them, exports by what they held: no API names in the sentences.
    const admin = await app.signIn(ADMIN_EMAIL);
    await api(app, 'PATCH', `/api/canvases/${canvas.id}`, {
      cookie: admin,
      json: { accessMode: 'whole_org', expiresAt: Date.now() + 86_400_000 },
    });
    await api(app, 'PATCH', '/api/admin/settings', { cookie: admin, json: { userCanvasCreatesPerHour: 7 } });
    // An admin exports only where they hold a role (data follows the runtime API's rules): a canvas of their own.
    const own = await api(app, 'POST', '/api/canvases', { cookie: admin, json: { title: 'Admin notes' } });
    expect((await app.request(`/api/canvases/${own.id}/data/files.zip`, { cookie: admin })).status).toBe(200);
    await page.fill('#ad-audit-filter input[name="action"]', '');
    await page.fill('#ad-audit-filter input[name="canvas"]', '');
    await page.click('#ad-audit-filter button');
    await page.locator('#ad-audit tbody tr[data-action="data.export"]').waitFor();
    const said = (action: string) => page.locator(`#ad-audit tbody tr[data-action="${action}"]`).first().locator('td').nth(1).innerText();
    expect(await said('canvas.update')).toBe(
      `Admin (${ADMIN_EMAIL}) changed the sharing, share expiry of "Quarterly <b>numbers</b>" as an administrator.`,
    );
    expect(await said('settings.update')).toBe(
      `Admin (${ADMIN_EMAIL}) changed the instance settings (new canvases per person per hour) as an administrator.`,
    );
    expect(await said('data.export')).toBe(`Admin (${ADMIN_EMAIL}) exported the files of "Admin notes" as a ZIP.`);
    await page.screenshot({ path: join(SHOTS, 'admin-page.png'), fullPage: true });
  });
});

test('a size shown rounded is not written back as its rounding when something else is saved', async () => {
  const admin = await app.signIn(ADMIN_EMAIL);
  await api(app, 'PATCH', '/api/admin/settings', { cookie: admin, json: { filesBytesFile: 123456789 } });
  await page.reload();
  await page.click('#admin-link').catch(() => {});
  await page.locator('#admin-page[data-ready="true"]').waitFor();
  expect(await page.getByLabel('File size limit (MB)').inputValue()).toBe('117.74');
  await page.fill('#ad-settings input[name="userCanvasCreatesPerHour"]', '9');
  await page.locator('#notice').evaluate((el) => el.replaceChildren());
  await page.click('#ad-settings button');
  await page.locator('#notice .toast', { hasText: 'Settings saved.' }).waitFor();
  expect(await api(app, 'GET', '/api/admin/settings', { cookie: admin })).toMatchObject({
    filesBytesFile: 123456789,
    userCanvasCreatesPerHour: 9,
  });
});

test('administration has a section bar: People, Canvases, Connections, Settings, Email, Audit, Storage; each takes focus to its part', async () => {
  await page.goto(`${new URL(app.ctx.config.baseUrl).origin}/#/admin`);
  await page.locator('#admin-page[data-ready="true"]').waitFor();
  const nav = page.getByRole('navigation', { name: 'Sections of administration' });
  expect(await nav.getByRole('button').allInnerTexts()).toEqual([
    'People',
    'Canvases',
    'Connections',
    'Settings',
    'Email',
    'Audit',
    'Storage',
  ]);
  await nav.getByRole('button', { name: 'Audit' }).click();
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Audit log');
  // The bar's order is the page's: reading down the page meets the parts as the bar lists them.
  const onPage = await page.locator('#admin-page h3[data-nav]').evaluateAll((hs) => hs.map((h) => h.getAttribute('data-nav')));
  expect(onPage).toEqual(['People', 'Canvases', 'Connections', 'Settings', 'Email', 'Audit', 'Storage']);
});
