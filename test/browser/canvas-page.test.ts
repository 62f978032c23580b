// passes: embedded — Chromium journeys; the API suites run their routes in the s3 and cluster passes
// The dashboard's canvas page in Chromium (issue 18 items 1-3), driven as a
// person would: deploy a folder and a ZIP from the browser, see the warnings,
// share with someone and take it back, roll back, a conflicting deploy
// explained, a new key, unpublish, rename; every server string shown as text.
// Screenshots go to artifacts/screenshots/ for a reviewer.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { dashboardOrigin } from '../../src/http/cross-site.ts';
import { startTestApp, type TestApp } from '../harness.ts';
import { ROOT } from '../spawn.ts';
import { api, closeBrowserSuite, dashboardPage, launchChromium } from './helpers.ts';

const SHOTS = join(ROOT, 'artifacts', 'screenshots');
let app: TestApp;
let browser: Browser;
const contexts: BrowserContext[] = [];
let work: string;
let origin: string;
let ownerCookie: string;
let page: Page;
let canvas: { id: string; slug: string; apiKey: string; url: string };

const XSS_TITLE = 'Team <img src=x onerror="window.pwned=1"> board';

beforeAll(async () => {
  app = await startTestApp({ listen: true, env: { EASEL_RATELIMIT_ENABLED: 'false' } });
  browser = await launchChromium();
  work = mkdtempSync(join(tmpdir(), 'easel-canvas-page-'));
  mkdirSync(SHOTS, { recursive: true });
  origin = dashboardOrigin(app.ctx.config);
  ownerCookie = await app.signIn('owner@example.com', 'Owner');
  canvas = await api(app, 'POST', '/api/canvases', { cookie: ownerCookie, json: { title: XSS_TITLE } });
  page = await dashboardPage(browser, app, ownerCookie, contexts);
});
afterAll(async () => {
  await closeBrowserSuite(contexts, browser, app);
  rmSync(work, { recursive: true, force: true });
});

async function openCanvasPage() {
  await page.goto(`${origin}/#/canvas/${canvas.id}`);
  await page.locator(`#canvas-page[data-ready="${canvas.id}"]`).waitFor();
}

/** A browser context signed in as `email`, opening the canvas: its page's text, or the refusal's easel-code. */
async function visit(email: string): Promise<string> {
  const cookie = await app.signIn(email);
  const context = await browser.newContext();
  contexts.push(context);
  const at = cookie.indexOf('=');
  await context.addCookies([{ name: cookie.slice(0, at), value: cookie.slice(at + 1), url: origin }]);
  const p = await context.newPage();
  const res = await p.goto(`${origin}/c/${canvas.slug}/`);
  // The page has loaded (goto waits for it): a refusal carries its code in a meta tag, a canvas page does not.
  const meta = p.locator('meta[name="easel-code"]');
  const text = (await meta.count()) > 0 ? await meta.getAttribute('content') : await p.locator('body').innerText();
  await context.close();
  return `${res?.status()} ${text}`;
}

describe('a canvas page in the dashboard', () => {
  test('opens from the list; the title with markup in it is text, nowhere run', async () => {
    await page.locator('#canvases[data-ready="true"]').waitFor({ state: 'attached' });
    await page.locator('a.canvas-link', { hasText: 'Team <img' }).click();
    await page.locator(`#canvas-page[data-ready="${canvas.id}"]`).waitFor();
    expect(await page.locator('#cp-title').innerText()).toBe(XSS_TITLE);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(await page.locator('#cp-id').innerText()).toBe(canvas.id);
    // The page's title stands above its sections' headings.
    const size = (sel: string) =>
      page
        .locator(sel)
        .first()
        .evaluate((el) => parseFloat(getComputedStyle(el).fontSize));
    expect(await size('#cp-title')).toBeGreaterThanOrEqual(1.25 * (await size('#canvas-page h3')));
  });

  test('before a deploy the preview says nothing is published, in words, with no blank frame', async () => {
    expect(await page.locator('#cp-preview-empty').innerText()).toBe('Nothing published yet — drop a folder below');
    expect(await page.locator('#cp-preview-frame').isVisible()).toBe(false);
    expect(await page.locator('#cp-preview-frame').getAttribute('src')).toBeNull();
    // The versions and the live files say there are none, instead of tables of bare headings.
    await page.locator('#cp-versions-none').waitFor();
    expect(await page.locator('#cp-versions-none').innerText()).toBe('No versions yet: drop a folder under Deploy to publish the first.');
    expect(await page.locator('#cp-versions').isVisible()).toBe(false);
    expect(await page.locator('#cp-files-none').innerText()).toBe(
      'Nothing is live: the files of the live version show here once one is published.',
    );
    expect(await page.locator('#cp-files').isVisible()).toBe(false);
  });

  test('the drop zone picks a folder or a .zip with two buttons that open the file pickers, reached by keyboard too', async () => {
    for (const [name, id, multiple] of [
      ['Choose a folder…', 'cp-folder', true],
      ['Choose a .zip…', 'cp-zip', false],
    ] as const) {
      const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByText(name, { exact: true }).click()]);
      expect(await chooser.element().getAttribute('id')).toBe(id);
      expect(chooser.isMultiple()).toBe(multiple);
      // The native input keeps its label (the button's words) and takes focus; its ring shows on the button.
      expect(await page.getByLabel(name).getAttribute('id')).toBe(id);
      await page.focus(`#${id}`);
      await page.keyboard.press('Shift+Tab');
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe(id);
      const ring = await page.locator(`label:has(#${id})`).evaluate((l) => getComputedStyle(l).outlineStyle);
      expect(ring).toBe('solid');
    }
    // No "No file chosen" box: the inputs take no room of their own.
    expect((await page.locator('#cp-zip').boundingBox())!.width).toBeLessThanOrEqual(1);
  });

  test('a dropped-in folder deploys (only its contents), with the warnings shown', async () => {
    const site = join(work, 'site');
    mkdirSync(join(site, 'js'), { recursive: true });
    writeFileSync(
      join(site, 'index.html'),
      '<link rel="stylesheet" href="missing.css"><script src="js/app.js"></script><h1>version one</h1>',
    );
    writeFileSync(join(site, 'js', 'app.js'), 'console.log(1)');
    await page.setInputFiles('#cp-folder', site);
    await page.locator('#cp-deploy-status', { hasText: 'Published version 1' }).waitFor();
    // The result is also said in the live region, as a success (it hides itself).
    await page.locator('#notice .toast-done[data-topic="deploy"]', { hasText: 'Deployed version 1.' }).waitFor();
    expect(await page.locator('#cp-warnings li').allInnerTexts()).toEqual([
      'index.html refers to missing.css, not in this deploy: those requests will answer 404',
    ]);
    await page.locator('#cp-files tbody tr', { hasText: 'js/app.js' }).waitFor();
    expect(await page.locator('#cp-files tbody tr').count()).toBe(2);
    // The warnings stay with the version, for whoever opens the page later (a deploy from CI said them only to CI).
    const warned = page.locator('#cp-versions tbody tr', { hasText: '1 (live)' }).locator('details.version-warnings');
    expect(await warned.locator('summary').innerText()).toBe('1 deploy warning');
    await warned.locator('summary').click();
    expect(await warned.locator('li').allInnerTexts()).toEqual([
      'index.html refers to missing.css, not in this deploy: those requests will answer 404',
    ]);
    // Sent as the person, through the people's upload routes.
    const audit = app.ctx
      .db!.query<{ actor_kind: string }, [string]>("SELECT actor_kind FROM audit_log WHERE canvas_id = ? AND action = 'canvas.deploy'")
      .all(canvas.id);
    expect(audit.map((a) => a.actor_kind)).toEqual(['user']);
    await page.screenshot({ path: join(SHOTS, 'canvas-page.png'), fullPage: true });
  });

  test('a Node project folder (package.json, node_modules/) is not sent: the page says which folder holds the built site, and deploys it on a click', async () => {
    const project = join(work, 'project');
    for (const [path, text] of Object.entries({
      'package.json': '{"name":"app"}',
      'index.html': '<script type="module" src="/src/main.js"></script>',
      'node_modules/vite/package.json': '{}',
      'build/index.html': '<h1>built</h1>',
    })) {
      mkdirSync(join(project, path, '..'), { recursive: true });
      writeFileSync(join(project, path), text);
    }
    // A canvas of its own: the tests after this one follow the first canvas's versions.
    const other = await api(app, 'POST', '/api/canvases', { cookie: ownerCookie, json: { title: 'Built elsewhere' } });
    await page.goto(`${origin}/#/canvas/${other.id}`);
    await page.locator(`#canvas-page[data-ready="${other.id}"]`).waitFor();
    const versions = async () => (await api(app, 'GET', `/api/canvases/${other.id}/versions`, { cookie: ownerCookie })).versions.length;
    const uploads: string[] = [];
    const watch = (r: { url(): string }) => void (r.url().includes('/uploads') && uploads.push(r.url()));
    page.on('request', watch);
    try {
      await page.setInputFiles('#cp-folder', project);
      await page.locator('#cp-deploy-error', { hasText: 'Node project' }).waitFor();
      expect(await page.locator('#cp-deploy-error').innerText()).toBe(
        'Not published: this folder is a Node project (package.json and node_modules/), not a built site; its site is built into build/: drop that folder instead',
      );
    } finally {
      page.off('request', watch);
    }
    expect(uploads).toEqual([]);
    expect(await versions()).toBe(0);
    // The build folder was in the drop: one click deploys its contents, and the offer goes.
    const offer = page.locator('#cp-deploy-output');
    expect(await offer.innerText()).toBe('Deploy build/ instead');
    await page.locator('#cp-deploy-box').screenshot({ path: join(SHOTS, 'canvas-page-project-folder.png') });
    await offer.click();
    await page.locator('#cp-deploy-status', { hasText: 'Published version 1' }).waitFor();
    expect(await offer.isHidden()).toBe(true);
    expect(await page.locator('#cp-deploy-error').isHidden()).toBe(true);
    const files = await api(app, 'GET', `/api/canvases/${other.id}/files`, { cookie: ownerCookie });
    expect(files.files.map((f: { path: string }) => f.path)).toEqual(['index.html']);
    expect(await (await app.request(`/c/${other.slug}/`, { cookie: ownerCookie })).text()).toBe('<h1>built</h1>');
    await openCanvasPage();
  });

  test('after the deploy the preview shows the live page once asked, sandboxed, with its address below it opening it in a new tab', async () => {
    const frame = page.locator('#cp-preview-frame');
    // Nothing of the canvas runs until asked: its scripts would act as the person looking (a page that saves on load wrote on every visit here).
    const ask = page.locator('#cp-preview-ask');
    await ask.waitFor();
    expect(await ask.innerText()).toContain('Shown here, the live page runs as you');
    expect(await frame.isVisible()).toBe(false);
    expect(await frame.getAttribute('src')).toBeNull();
    await page.click('#cp-preview-show');
    // The canvas's own page, served at its live address (the dashboard's CSP lets the frame load it).
    await page.frameLocator('#cp-preview-frame').locator('h1', { hasText: 'version one' }).waitFor();
    expect(await ask.isVisible()).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('cp-preview-frame');
    // Asked once, this browser shows it from then on.
    await page.reload();
    await page.locator(`#canvas-page[data-ready="${canvas.id}"]`).waitFor();
    await page.frameLocator('#cp-preview-frame').locator('h1', { hasText: 'version one' }).waitFor();
    expect(await ask.isVisible()).toBe(false);
    expect(await frame.isVisible()).toBe(true);
    expect(await frame.getAttribute('src')).toBe(canvas.url);
    expect(await frame.getAttribute('loading')).toBe('lazy');
    expect((await frame.getAttribute('sandbox'))?.split(' ')).toContain('allow-scripts');
    expect(await page.locator('#cp-preview-empty').isVisible()).toBe(false);
    // The address follows the preview, and it is the only link to the live page there (the section bar has its own, further down).
    const open = page.locator('#cp-preview + p a');
    expect(await open.getAttribute('href')).toBe(canvas.url);
    expect(await open.getAttribute('target')).toBe('_blank');
    expect(await page.locator('#cp-preview a:visible').count()).toBe(0);
  });

  test('sharing: the whole organization lets a colleague in; back to Restricted keeps them out; the list lets them in again', async () => {
    expect(await visit('colleague@example.com')).toBe('404 NOT_FOUND');
    await page.check('#cp-access input[value="whole_org"]');
    // Widening access is asked first (issue 38 item 6.2).
    await page.locator('#cp-access-dialog').getByRole('button', { name: 'Open it to the organisation' }).click();
    await page.locator('#cp-state', { hasText: 'Whole organisation' }).waitFor();
    expect(await visit('colleague@example.com')).toBe('200 version one');
    await page.check('#cp-access input[value="restricted"]');
    await page.locator('#cp-state', { hasText: 'Restricted' }).waitFor();
    expect(await visit('colleague@example.com')).toBe('404 NOT_FOUND');
    await page.fill('#cp-add-member input[name="email"]', 'colleague@example.com');
    await page.click('#cp-add-member button');
    await page.locator('#cp-members tbody tr', { hasText: 'colleague@example.com' }).waitFor();
    expect(await visit('colleague@example.com')).toBe('200 version one');
  });

  test("the server's refusal is shown next to the control that caused it", async () => {
    await page.fill('#cp-add-member input[name="email"]', 'owner@example.com');
    await page.click('#cp-add-member button');
    await page.locator('#cp-members-error:not([hidden])').waitFor();
    expect(await page.locator('#cp-members-error').innerText()).toContain('the owner is always on the list');
  });

  test('a ZIP deploys as version 2; version 1 is made live again from the versions table', async () => {
    writeFileSync(join(work, 'site.zip'), zipSync({ 'index.html': new TextEncoder().encode('<h1>version two</h1>') }));
    await page.setInputFiles('#cp-zip', join(work, 'site.zip'));
    await page.locator('#cp-deploy-status', { hasText: 'Published version 2' }).waitFor();
    await page.locator('#cp-versions tbody tr', { hasText: '2 (live)' }).waitFor();
    // Who: the person who deployed from the dashboard (version 1 came with the canvas key: the owner, as the spec says).
    expect(await page.locator('#cp-versions tbody tr', { hasText: '2 (live)' }).locator('td').nth(3).innerText()).toBe('Owner');
    // How, in words: the dashboard's ZIP went through the deploy route; the folder before it through a staged upload.
    const how = await page.locator('#cp-versions tbody tr').evaluateAll((rows) => rows.map((r) => r.children[2]!.textContent));
    expect(how).toEqual(['ZIP upload', 'File upload']);
    await page.locator('#cp-versions tbody tr', { hasText: /^1/ }).getByRole('button', { name: 'Make live' }).click();
    await page.locator('#cp-versions tbody tr', { hasText: '1 (live)' }).waitFor();
    await page.locator('#notice .toast-done', { hasText: 'Rolled back to version 1: visitors see it now.' }).waitFor();
    expect(await visit('colleague@example.com')).toBe('200 version one');
  });

  test('a deploy from elsewhere meanwhile: the page explains the conflict and changes nothing', async () => {
    // The page holds the publication token it loaded; CI publishes with the key in the meantime.
    const zip = zipSync({ 'index.html': new TextEncoder().encode('<h1>from CI</h1>') });
    const res = await app.request(`/v1/canvases/${canvas.id}/deploy`, {
      method: 'PUT',
      body: zip,
      headers: { authorization: `Bearer ${canvas.apiKey}` },
    });
    expect(res.status).toBe(200);
    const site = join(work, 'site2');
    mkdirSync(site, { recursive: true });
    writeFileSync(join(site, 'index.html'), '<h1>from the page</h1>');
    await page.setInputFiles('#cp-folder', site);
    await page.locator('#cp-deploy-error:not([hidden])').waitFor();
    // The refusal stays by the drop zone; no earlier deploy's success is left saying otherwise.
    expect(await page.locator('#notice .toast[data-topic="deploy"]').count()).toBe(0);
    expect(await page.locator('#cp-deploy-error').innerText()).toBe(
      'Not published: Someone published this canvas meanwhile (now version 3): nothing was changed. Reload and deploy again.',
    );
    expect(await visit('colleague@example.com')).toBe('200 from CI');
  });

  test('a preview (issue 40): marked in the versions table, opened at its address, made live with the rollback confirmation', async () => {
    const zip = zipSync({ 'index.html': new TextEncoder().encode('<h1>preview</h1>') });
    const res = await app.request(`/v1/canvases/${canvas.id}/deploy?preview=true`, {
      method: 'PUT',
      body: zip,
      headers: { authorization: `Bearer ${canvas.apiKey}` },
    });
    const preview = await res.json();
    expect(preview).toMatchObject({ outcome: 'preview', version: 4 });
    // The page is already open at this address: reload it to read the versions again.
    await page.reload();
    await page.locator(`#canvas-page[data-ready="${canvas.id}"]`).waitFor();
    const row = page.locator('#cp-versions tbody tr', { hasText: '4 · preview' });
    await row.waitFor();
    expect(await row.getByRole('link', { name: 'Open' }).getAttribute('href')).toBe(preview.previewUrl);
    expect(await visit('colleague@example.com')).toBe('200 from CI');
    await row.getByRole('button', { name: 'Make live' }).click();
    await page.locator('#cp-versions tbody tr', { hasText: '4 (live) · preview' }).waitFor();
    expect(await visit('colleague@example.com')).toBe('200 preview');
  });

  test('a new deploy key is shown once and the old one stops working', async () => {
    await openCanvasPage();
    await page.click('#cp-regenerate');
    await page.locator('#cp-key:not([hidden])').waitFor();
    const key = await page.locator('#cp-key-value').innerText();
    await page.locator('#notice .toast-done[data-topic="key"]', { hasText: 'Key regenerated' }).waitFor();
    expect(key).toMatch(/^easel_sk_/);
    expect((await app.request(`/v1/canvases/${canvas.id}`, { headers: { authorization: `Bearer ${canvas.apiKey}` } })).status).toBe(401);
    expect((await app.request(`/v1/canvases/${canvas.id}`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
  });

  test('runtime switches say whether they are in effect and why not', async () => {
    await openCanvasPage();
    const why = (name: string) => page.locator(`#cp-switches li[data-capability="${name}"] .why`).innerText();
    expect(await why('kv')).toBe('in effect');
    expect(await why('ai')).toBe('off');
    // What it uses against the quotas: two deployed versions' files are not runtime files.
    expect(await page.locator('#cp-usage').innerText()).toMatch(
      /^Key-value: 0 of 10,000 shared keys \(and 1,000 per person in their own\) · Files: 0 B of \d+(\.\d)? [MG]B · AI in [A-Z][a-z]+ \d{4}: \$0\.00 of \$\d+\.\d{2}$/,
    );
    await page.check('#cp-switch-ai');
    await page.locator('#cp-switches li[data-capability="ai"] .why', { hasText: 'no AI provider key' }).waitFor();
    expect(await why('ai')).toBe('off: The instance has no AI provider key; an administrator must configure one.');
    await page.uncheck('#cp-switch-backend');
    await page.locator('#cp-switches li[data-capability="kv"] .why', { hasText: 'the backend is off' }).waitFor();
    expect(await why('connections')).toBe('off: the backend is off');
    await page.check('#cp-switch-backend');
    await page.locator('#cp-switches li[data-capability="kv"] .why', { hasText: 'in effect' }).waitFor();
    const saved = page.waitForResponse(
      (r) => r.url().endsWith(`/api/canvases/${canvas.id}/capabilities`) && r.request().method() === 'PATCH',
    );
    await page.selectOption('#cp-audiences select[name="aiAudience"]', 'viewers');
    expect((await saved).status()).toBe(200);
    const view = await api(app, 'GET', `/api/canvases/${canvas.id}`, { cookie: ownerCookie });
    expect(view.aiAudience).toBe('viewers');
  });

  test('the runtime policy as a form: presets in words, overrides, aggregateCount, a channel and a connection, saved as the document', async () => {
    await page.click('#cp-policy-box summary');
    const collections = page.locator('#cp-policy-form fieldset[data-kind="collections"]');
    // "Add" stands on its field's line, not level with the field's label.
    const bottoms = await collections
      .locator('form.policy-add')
      .evaluate((form) => ['input', 'button'].map((tag) => Math.round(form.querySelector(tag)!.getBoundingClientRect().bottom)));
    expect(Math.abs(bottoms[0]! - bottoms[1]!)).toBeLessThanOrEqual(2);
    await collections.getByLabel('Add a collection named').fill('notes');
    await collections.getByRole('button', { name: 'Add' }).click();
    const notes = collections.locator('fieldset[data-name="notes"]');
    // Nothing set yet: a new collection starts as "contributions" (a poll's or a sign-up sheet's), explained in words with what it grants.
    expect(await notes.getByLabel('Preset', { exact: true }).inputValue()).toBe('contributions');
    expect(await notes.locator('.policy-summary').innerText()).toBe(
      'In effect: see records: everyone who can open it; add: everyone who can open it; change: the author, owners and editors; delete: the author, owners and editors; count up numbers: the author, owners and editors.',
    );
    await notes.getByLabel('Preset', { exact: true }).selectOption('contributions');
    expect(await notes.locator('p.muted').innerText()).toContain('everyone reads and adds');
    await notes.getByLabel('Who may delete', { exact: true }).selectOption('editors');
    await notes.getByLabel('Who may count records they cannot see', { exact: true }).selectOption('viewers');
    expect(await notes.locator('.policy-summary').innerText()).toContain('delete: owners and editors;');
    const channels = page.locator('#cp-policy-form fieldset[data-kind="channels"]');
    await channels.getByLabel('Add a channel named').fill('room');
    await channels.getByRole('button', { name: 'Add' }).click();
    await channels.locator('fieldset[data-name="room"]').getByLabel('Who may send messages', { exact: true }).selectOption('editors');
    const connections = page.locator('#cp-policy-form fieldset[data-kind="connections"]');
    await connections.getByLabel('Add a connection named').fill('crm');
    await connections.getByRole('button', { name: 'Add' }).click();
    await connections.locator('fieldset[data-name="crm"]').getByLabel('GET').check();
    await page.click('#cp-policy-save');
    await page.locator('#cp-policy-revision', { hasText: 'Saved: this policy is in effect now.' }).waitFor();
    const saved = await api(app, 'GET', `/api/canvases/${canvas.id}`, { cookie: ownerCookie });
    // The revision is the save's own check, not words for a person.
    expect(await page.locator('#cp-policy-revision').innerText()).toBe('Saved: this policy is in effect now.');
    expect(await page.locator('#cp-policy-box').innerText()).not.toContain(saved.runtimePolicyRevision);
    await page.locator('#cp-policy-box').screenshot({ path: join(SHOTS, 'canvas-policy.png') });
    expect(saved.runtimePolicy).toEqual({
      collections: { notes: { preset: 'contributions', overrides: { delete: 'editors' }, aggregateCount: 'viewers' } },
      channels: { room: { subscribe: 'viewers', publish: 'editors', seePresence: 'viewers', participatePresence: 'viewers' } },
      connections: { crm: { audience: 'editors', methods: ['GET'] } },
    });
    // Removing an entry from the form removes it from the document.
    await connections.getByRole('button', { name: 'Remove crm' }).click();
    await page.click('#cp-policy-save');
    await page.locator('#cp-policy-revision', { hasText: 'Saved: this policy is in effect now.' }).waitFor();
    expect((await api(app, 'GET', `/api/canvases/${canvas.id}`, { cookie: ownerCookie })).runtimePolicy.connections).toBeUndefined();
  });

  test('a collection the live page asks for but the policy does not configure is named, with a button that opens the form at it', async () => {
    const asked = await app.request(`/v1/c/${canvas.slug}/collections/poll`, { cookie: ownerCookie });
    expect(((await asked.json()) as { code: string }).code).toBe('COLLECTION_NOT_CONFIGURED');
    await app.features.policyMisses.settled();
    await page.reload();
    await page.locator(`#canvas-page[data-ready="${canvas.id}"]`).waitFor();
    const notice = page.locator('#cp-unconfigured');
    await notice.waitFor();
    expect(await notice.innerText()).toContain('The collection "poll" (last asked for just now)');
    await notice.getByRole('button', { name: 'Configure "poll"' }).click();
    const add = page.locator('#cp-policy-form fieldset[data-kind="collections"]').getByLabel('Add a collection named');
    expect(await add.inputValue()).toBe('poll');
    expect(await add.evaluate((el) => el === document.activeElement)).toBe(true);
  });

  test('the runtime policy as JSON: saved with its revision; a bad document is refused in words; a conflict shows the other change', async () => {
    await page.click('#cp-policy-json summary');
    await page.fill('#cp-policy', '{"collections": {"notes": {"preset": "sometimes"}}}');
    await page.click('#cp-policy-save');
    await page.locator('#cp-policy-error:not([hidden])').waitFor();
    expect(await page.locator('#cp-policy-error').innerText()).toContain('runtimePolicy.collections.notes.preset');
    await page.fill('#cp-policy', '{"collections": {"notes": {"preset": "managed"}}}');
    await page.click('#cp-policy-save');
    await page.locator('#cp-policy-revision', { hasText: 'Saved: this policy is in effect now.' }).waitFor();
    // Someone else saves meanwhile, from the revision the page also holds.
    const revision = (await api(app, 'GET', `/api/canvases/${canvas.id}`, { cookie: ownerCookie })).runtimePolicyRevision;
    await api(app, 'PATCH', `/api/canvases/${canvas.id}/capabilities`, {
      cookie: ownerCookie,
      json: { expectedRuntimePolicy: revision, runtimePolicy: { collections: { notes: { preset: 'collaborative' } } } },
    });
    await page.fill('#cp-policy', '{"collections": {"notes": {"preset": "personal"}}}');
    await page.click('#cp-policy-save');
    await page.locator('#cp-policy-conflict:not([hidden])').waitFor();
    expect(await page.locator('#cp-policy-theirs').innerText()).toContain('collaborative');
    await page.click('#cp-policy-reload');
    expect(await page.inputValue('#cp-policy')).toContain('collaborative');
    // The form shows theirs too.
    const notes = page.locator('#cp-policy-form fieldset[data-name="notes"]');
    expect(await notes.getByLabel('Preset', { exact: true }).inputValue()).toBe('collaborative');
    expect(await page.locator('#cp-policy-conflict').isHidden()).toBe(true);
  });

  test('the section bar: one button per part this person is shown, each takes them (and focus) to it; it stays on top with the live address', async () => {
    const nav = page.getByRole('navigation', { name: 'Sections of this canvas' });
    expect(await nav.getByRole('button').allInnerTexts()).toEqual([
      'Overview',
      'Deploys & versions',
      'Sharing',
      'Data',
      'Runtime',
      'Settings',
      'Danger zone',
    ]);
    expect(await nav.getByRole('link', { name: 'Open the live page' }).getAttribute('href')).toBe(canvas.url);
    await nav.getByRole('button', { name: 'Danger zone' }).click();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('cp-danger-title');
    // Scrolled down to it, the bar is still at the top of the window.
    expect(await nav.evaluate((el) => Math.round(el.getBoundingClientRect().top))).toBe(0);
    await nav.getByRole('button', { name: 'Runtime' }).click();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Runtime');
    // On a phone the bar wraps to more rows: the heading it jumps to still stops below it, not under it.
    const before = page.viewportSize()!;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      for (const name of ['Sharing', 'Data', 'Deploys & versions']) {
        await nav.getByRole('button', { name }).click();
        const at = await page.evaluate(() => ({
          bar: document.getElementById('cp-nav')!.getBoundingClientRect().bottom,
          heading: document.activeElement!.getBoundingClientRect().top,
        }));
        expect(at.bar).toBeGreaterThan(80);
        expect(at.heading).toBeGreaterThanOrEqual(at.bar);
      }
    } finally {
      await page.setViewportSize(before);
    }
  });

  test('Data: a canvas nobody has viewed says so in words instead of drawing thirty empty bars', async () => {
    const quiet = await api(app, 'POST', '/api/canvases', { cookie: ownerCookie, json: { title: 'Nobody looked yet' } });
    await page.goto(`${origin}/#/canvas/${quiet.id}`);
    await page.locator(`#canvas-page[data-ready="${quiet.id}"]`).waitFor();
    await page.locator('#cp-insights-caption', { hasText: 'No page views' }).waitFor();
    expect(await page.locator('#cp-insights-caption').innerText()).toBe(
      'No page views in the last 30 days. A view is counted each time someone opens a page of the live version.',
    );
    expect(await page.locator('#cp-insights-chart').isVisible()).toBe(false);
  });

  test('Data: the summary in words, export links that download, and the views chart from the insights route', async () => {
    const kv = await app.request(`/v1/c/${canvas.slug}/kv/title`, { method: 'PUT', cookie: ownerCookie, json: 'Board, "one"' });
    expect(kv.status).toBe(200);
    expect((await app.request(`/c/${canvas.slug}/`, { cookie: ownerCookie })).status).toBe(200);
    await app.features.insights.flush();
    const insights = await api(app, 'GET', `/api/canvases/${canvas.id}/insights?days=30`, { cookie: ownerCookie });
    // Away and back: the page loads anew, not the one already on screen.
    await page.goto(`${origin}/`);
    await openCanvasPage();
    const summary = await page.locator('#cp-data-summary').innerText();
    expect(summary).toMatch(
      /^Key-value: 1 shared key \(\d+ B\); nobody keeps keys of their own\. Collections: [^.]+\. Submissions: none\. Files: 0 files \(0 B\)\.$/,
    );
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('a[data-export="Shared keys:csv"]')]);
    expect(download.suggestedFilename()).toMatch(new RegExp(`^${canvas.slug}-kv-\\d{4}-\\d\\d-\\d\\d\\.csv$`));
    expect(await Bun.file(await download.path()).text()).toContain('"Board, ""one"""');
    expect(await page.locator('#cp-data-exports a[data-export="Files:zip"]').getAttribute('href')).toBe(
      `/api/canvases/${canvas.id}/data/files.zip`,
    );
    // One bar pair per day; today's bar says what the route counted.
    expect(await page.locator('#cp-insights-chart').isVisible()).toBe(true);
    expect(await page.locator('#cp-insights-chart rect.views').count()).toBe(30);
    const today = insights.days.at(-1);
    expect(today.views).toBeGreaterThan(0);
    // Days in words, not ISO dates: the bars have no axis, so the caption names the span and the busiest day.
    const day = (date: string) =>
      new Date(`${date}T00:00:00Z`).toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
    expect(await page.locator('#cp-insights-chart rect.views').last().locator('title').textContent()).toBe(
      `${day(today.date)}: ${today.views} view${today.views === 1 ? '' : 's'}, ${today.visitors} visitor${today.visitors === 1 ? '' : 's'}`,
    );
    const caption = await page.locator('#cp-insights-caption').innerText();
    expect(caption).toStartWith(`${day(insights.days[0].date)} – ${day(today.date)}: `);
    expect(caption).toContain(`the busiest day ${day(today.date)} (`);
    expect(caption).toContain(`most viewed ${insights.topPaths[0].path}`);
    expect(caption).not.toContain('visit-day');
    await page.locator('#cp-data').screenshot({ path: join(SHOTS, 'canvas-page-data.png') });
  });

  test('Data: each export is a row (its name, its formats in one column, Browse at the end) whose links say what they download', async () => {
    await openCanvasPage();
    const rows = await page.evaluate(() =>
      [...document.querySelectorAll('#cp-data-exports li')].map((li) => {
        const list = li.parentElement!.getBoundingClientRect();
        const link = li.querySelector('a')!;
        const browse = li.querySelector('button');
        return {
          text: li.querySelector('.export-name')?.textContent,
          linkX: Math.round(link.getBoundingClientRect().left),
          label: link.getAttribute('aria-label'),
          browseGap: browse ? Math.round(list.right - browse.getBoundingClientRect().right) : null,
          bullet: getComputedStyle(li).listStyleType,
        };
      }),
    );
    expect(rows.map((r) => r.text)).toEqual(['Shared keys', ...rows.slice(1, -2).map((r) => r.text), 'File list', 'Files']);
    // The names differ in length; the formats still start at one x.
    expect(new Set(rows.map((r) => r.linkX)).size).toBe(1);
    expect(rows[0]!.label).toBe('Download Shared keys as CSV');
    expect(rows.at(-1)!.label).toBe('Download Files as ZIP');
    expect(rows[0]!.browseGap).toBe(0);
    expect(rows.at(-1)!.browseGap).toBeNull();
    expect(rows.every((r) => r.bullet === 'none')).toBe(true);
  });

  test("Runtime and Gallery line up: the Connections line under the switches' names, the gallery boxes at the page's left edge", async () => {
    await openCanvasPage();
    const x = await page.evaluate(() => {
      const left = (el: Element | null) => Math.round(el!.getBoundingClientRect().left);
      const names = [...document.querySelectorAll('#cp-switches li:not([data-capability="connections"]) label')].map(left);
      const connections = document.querySelector('#cp-switches li[data-capability="connections"]')!;
      const words = document.createRange();
      words.setStart(connections.firstChild!, 0);
      words.setEnd(connections.firstChild!, 1);
      return {
        names: [...new Set(names)],
        connections: Math.round(words.getBoundingClientRect().left),
        heading: left(document.querySelector('#cp-gallery')!.previousElementSibling),
        box: left(document.querySelector('#cp-gallery input[name="listed"]')),
      };
    });
    expect(x.names).toHaveLength(1);
    expect(x.connections).toBe(x.names[0]!);
    expect(x.box).toBe(x.heading);
  });

  test('Sharing: the access box lines up with the fields below it, and "No password." reads on the buttons’ line', async () => {
    await openCanvasPage();
    const at = await page.evaluate(() => {
      const box = (sel: string) => document.querySelector(sel)!.getBoundingClientRect();
      const middle = (r: DOMRect) => r.top + r.height / 2;
      // The state's words, not its box: a Range around its text.
      const words = document.createRange();
      words.selectNodeContents(document.getElementById('cp-password-state')!);
      return {
        access: Math.round(box('#cp-access').left),
        field: Math.round(box('#cp-password input').left),
        state: middle(words.getBoundingClientRect()),
        button: middle(box('#cp-password button[type="submit"]')),
        gap: Math.round(box('#cp-expiry').top - box('#cp-password').bottom),
      };
    });
    expect(at.access).toBe(at.field);
    expect(Math.abs(at.state - at.button)).toBeLessThanOrEqual(2);
    expect(at.gap).toBeGreaterThanOrEqual(12);
  });

  test('on a phone the page fits its width, its tables stand as cards (each value under its column name)', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await openCanvasPage();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      // A deploy warning naming a build's long file name wraps inside the page.
      const longName = `assets/${'vendor-chunk-'.repeat(6)}Bx1CAoPt.js`;
      await page.evaluate((name) => {
        const li = document.createElement('li');
        li.textContent = `index.html refers to ${name}, not in this deploy: those requests will answer 404`;
        document.getElementById('cp-warnings')!.append(li);
      }, longName);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
      const warning = await page.locator('#cp-warnings li').last().boundingBox();
      expect(warning!.x + warning!.width).toBeLessThanOrEqual(390);
      // The runtime policy's fields and selects stay inside the page (a <details> clips what passes its edge, so the page did not scroll: it was cut).
      await page.locator('#cp-policy-box').evaluate((d) => ((d as HTMLDetailsElement).open = true));
      const policyRights = await page
        .locator('#cp-policy-form select, #cp-policy-form input, #cp-policy-form fieldset')
        .evaluateAll((els) => els.filter((e) => e.getClientRects().length > 0).map((e) => Math.round(e.getBoundingClientRect().right)));
      expect(policyRights.length).toBeGreaterThan(3);
      expect(Math.max(...policyRights)).toBeLessThanOrEqual(390);
      // The live preview shrinks to the width instead of pushing past it.
      const preview = await page.locator('#cp-preview-frame').boundingBox();
      expect(preview!.width).toBeGreaterThan(0);
      expect(preview!.x + preview!.width).toBeLessThanOrEqual(390);
      // A version's folded deploy warnings open inside its card.
      await page.locator('#cp-versions details.version-warnings summary').first().click();
      await page.locator('#cp-versions').screenshot({ path: join(SHOTS, 'canvas-page-versions-phone.png') });
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
      // Sizes stay whole in the narrow tables ("14 B" was "14" over "B").
      const sizes = await page.locator('#cp-files td.size, #cp-versions td.size').evaluateAll((cells) =>
        cells.map((c) => {
          const words = document.createRange();
          words.selectNodeContents(c);
          return Math.round(words.getBoundingClientRect().height / parseFloat(getComputedStyle(c).lineHeight));
        }),
      );
      expect(sizes.length).toBeGreaterThan(1);
      expect(sizes.every((lines) => lines <= 1)).toBe(true);
      // Each row a card: the first value heads it, every other one is read beside its column's own name, and
      // nothing is past the table's edge (the files' SHA-256 and the versions' last columns were).
      const cards = await page.evaluate(() =>
        ['cp-files', 'cp-versions'].map((id) => {
          const table = document.getElementById(id) as HTMLTableElement;
          const names = [...table.tHead!.rows[0]!.cells].map((th) => th.textContent!.trim());
          const row = table.tBodies[0]!.rows[0]!;
          return {
            id,
            scrolls: table.scrollWidth > table.clientWidth + 1,
            header: getComputedStyle(table.tHead!).position,
            // An empty value's line is left out (a version without a release id).
            shown: [...row.cells].map((c) =>
              getComputedStyle(c).display === 'none' ? 'left out' : getComputedStyle(c, '::before').content,
            ),
            expected: [...row.cells].map((c, i) =>
              c.innerHTML === '' ? 'left out' : i === 0 || names[i] === '' ? 'none' : `${JSON.stringify(names[i])} / ""`,
            ),
          };
        }),
      );
      for (const card of cards) {
        expect(card.shown.filter((c) => c !== 'none').length).toBeGreaterThanOrEqual(3);
        expect(card).toEqual({ ...card, scrolls: false, header: 'absolute', shown: card.expected });
      }
      await page.screenshot({ path: join(SHOTS, 'canvas-page-phone.png'), fullPage: true });
      await page.goto(`${origin}/`);
      await page.locator('body[data-loaded="true"]').waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
      await openCanvasPage();
    }
  });

  test('a new slug moves the address (and says so); unpublish takes it offline', async () => {
    await page.fill('#cp-rename input[name="slug"]', 'moved-board');
    await page.click('#cp-rename button');
    await page.locator('#notice .toast-done', { hasText: 'The canvas moved to' }).waitFor();
    expect(await page.locator('#cp-url').innerText()).toEndWith('/c/moved-board/');
    canvas.slug = 'moved-board';
    // The preview follows the new address (path mode: the frame is on the dashboard's origin, so its location is readable).
    await page.waitForFunction(() => {
      const frame = document.getElementById('cp-preview-frame') as HTMLIFrameElement;
      return frame.contentDocument?.location.pathname === '/c/moved-board/' && frame.contentDocument.querySelector('h1') !== null;
    });
    await page.click('#cp-unpublish');
    await page.locator('#cp-state', { hasText: 'Not published yet' }).waitFor();
    await page.locator('#notice .toast-done[data-topic="versions"]', { hasText: 'is offline: its versions are kept.' }).waitFor();
    expect(await page.locator('#cp-preview-empty').innerText()).toBe('Nothing published yet — drop a folder below');
    expect(await page.locator('#cp-preview-frame').isVisible()).toBe(false);
    expect(await visit('colleague@example.com')).toStartWith('404');
  });

  test('a password and an expiry say what they did, set and cleared', async () => {
    await page.fill('#cp-password input[name="password"]', 'open sesame');
    await page.click('#cp-password button[type="submit"]');
    await page.locator('#notice .toast-done[data-topic="password"]', { hasText: 'Password set' }).waitFor();
    expect(await page.locator('#cp-password-state').innerText()).toBe('A password is set.');
    await page.click('#cp-password-clear');
    await page.locator('#notice .toast-done[data-topic="password"]', { hasText: 'Password removed.' }).waitFor();
    expect(await page.locator('#cp-password-state').innerText()).toBe('No password.');
    await page.fill('#cp-expiry input[name="until"]', '2099-01-02T03:04');
    await page.click('#cp-expiry button[type="submit"]');
    await page.locator('#notice .toast-done[data-topic="expiry"]', { hasText: 'Shared until' }).waitFor();
    expect(await page.locator('#cp-expiry-state').innerText()).toStartWith('Shared until');
    await page.click('#cp-expiry-clear');
    await page.locator('#notice .toast-done[data-topic="expiry"]', { hasText: 'The share no longer expires.' }).waitFor();
    expect(await page.locator('#cp-expiry-state').innerText()).toBe('No expiry.');
  });

  test('a canvas that cannot be opened says why in an error toast, which stays, and the page goes back home', async () => {
    await page.goto(`${origin}/#/canvas/nosuchcanvas`);
    const error = page.locator('#notice .toast-error[data-topic="canvas-open"]', { hasText: 'Could not open the canvas' });
    await error.waitFor();
    await page.waitForURL(`${origin}/#/`);
    expect(await error.getByRole('button', { name: 'Dismiss' }).isVisible()).toBe(true);
    // Opening one that exists (from the list: the same document, the toast still up) takes the error away.
    await page.locator('a.canvas-link', { hasText: 'Team <img' }).click();
    await page.locator(`#canvas-page[data-ready="${canvas.id}"]`).waitFor();
    expect(await error.count()).toBe(0);
  });
});
