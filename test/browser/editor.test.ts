// passes: embedded — Chromium journeys; the API suites run their routes in the s3 and cluster passes
// The editor in Chromium (issue 18 item 4): a person edits a file of the live
// version in CodeMirror, saves it to their draft, sees the preview on the
// canvas's origin, a deploy from curl meanwhile makes the draft stale (the
// change shown side by side, the edits kept), rebase, publish. Screenshots
// go to artifacts/screenshots/.
import { beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { dashboardOrigin } from '../../src/http/cross-site.ts';
import { ROOT } from '../spawn.ts';
import { api, dashboardPage, deploy, useBrowserSuite } from './helpers.ts';

const SHOTS = join(ROOT, 'artifacts', 'screenshots');

const suite = useBrowserSuite();
beforeAll(() => {
  mkdirSync(SHOTS, { recursive: true });
});

/** Replaces the editor's whole text the way a person would: select all, type. */
async function typeInEditor(page: Page, text: string): Promise<void> {
  await page.locator('#ed-code .cm-content').click();
  await page.keyboard.press('Control+A');
  // insertText: as a paste, so the HTML mode does not close tags behind the typist.
  await page.keyboard.insertText(text);
}

const livePage = async (slug: string, cookie: string) => (await suite.app.request(`/c/${slug}/`, { cookie })).text();

describe('the editor', () => {
  test('edit and save to the draft, preview it, go stale on a deploy from curl, compare, rebase, publish', async () => {
    const owner = await suite.app.signIn('writer@example.com', 'Writer');
    const made = await api(suite.app, 'POST', '/api/canvases', { cookie: owner, json: { title: 'Handbook' } });
    await deploy(suite.app, made.id, made.apiKey, {
      'index.html': '<h1>one</h1><link rel="stylesheet" href="site.css">',
      'site.css': 'h1 { color: rgb(0, 128, 0); }',
    });

    const page = await dashboardPage(suite.browser, suite.app, owner, suite.contexts);
    const cspViolations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await page.goto(`${dashboardOrigin(suite.app.ctx.config)}/#/canvas/${made.id}`);
    await page.locator(`#canvas-page[data-ready="${made.id}"]`).waitFor();
    await page.getByRole('link', { name: 'Edit in the browser' }).click();
    await page.locator(`#editor-page[data-ready="${made.id}"]`).waitFor();
    expect(await page.locator('#ed-files button').allInnerTexts()).toEqual(['index.html', 'site.css']);
    await page.locator('#ed-code .cm-content', { hasText: '<h1>one</h1>' }).waitFor();
    // The preview is the draft, on the canvas's pages: its stylesheet applies.
    const preview = page.frameLocator('#ed-preview');
    expect(await preview.locator('h1').innerText()).toBe('one');
    const previewFrame = page.frames().find((f) => f.url().includes('/__easel/draft/'))!;
    await previewFrame.waitForFunction(() => getComputedStyle(document.querySelector('h1')!).color === 'rgb(0, 128, 0)');

    await typeInEditor(page, '<h1>two</h1><link rel="stylesheet" href="site.css">');
    await page.locator('#editor-page[data-dirty="true"]').waitFor();
    expect(await page.locator('#ed-dirty').innerText()).toBe('unsaved changes');
    await page.keyboard.press('Control+S');
    await page.locator('#editor-page[data-dirty="false"]').waitFor();
    await page.locator('#ed-files button.edited', { hasText: 'index.html' }).waitFor();
    await preview.locator('h1', { hasText: 'two' }).waitFor();
    expect(await page.locator('#ed-status').innerText()).toBe('Your draft, started from version 1: 1 edited file.');
    expect(await livePage(made.slug, owner)).toContain('<h1>one</h1>');
    await page.screenshot({ path: join(SHOTS, 'editor.png'), fullPage: true });

    // Someone deploys from CI meanwhile: the draft is flagged stale, the edit kept.
    await deploy(suite.app, made.id, made.apiKey, {
      'index.html': '<h1>from ci</h1>',
      'site.css': 'h1 { color: rgb(0, 128, 0); }',
      'new.js': '1',
    });
    await page.getByRole('link', { name: '← Back to the canvas' }).click();
    await page.locator(`#canvas-page[data-ready="${made.id}"]`).waitFor();
    await page.getByRole('link', { name: 'Edit in the browser' }).click();
    await page.locator(`#editor-page[data-ready="${made.id}"]`).waitFor();
    await page.locator('#ed-stale:not([hidden])').waitFor();
    expect(await page.locator('#ed-stale-text').innerText()).toContain('Version 2 went live after your draft started (from version 1)');
    expect(await page.locator('#ed-changes li').allInnerTexts()).toEqual([
      'index.html: changed (you edited it too) Show the change',
      'new.js: added Show the change',
    ]);
    expect(await page.locator('#ed-publish').isDisabled()).toBe(true);
    await page.locator('#ed-code .cm-content', { hasText: '<h1>two</h1>' }).waitFor();
    await page.locator('#ed-changes li', { hasText: 'index.html' }).getByRole('button', { name: 'Show the change' }).click();
    await page.locator('#ed-compare:not([hidden])').waitFor();
    const sides = page.locator('#ed-merge .cm-mergeViewEditor .cm-content');
    expect(await sides.nth(0).innerText()).toContain('<h1>one</h1>');
    expect(await sides.nth(1).innerText()).toContain('<h1>from ci</h1>');
    expect(await page.locator('#ed-merge .cm-changedLine').count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(SHOTS, 'editor-stale.png'), fullPage: true });

    await page.getByRole('button', { name: 'Keep my edits on the new version' }).click();
    await page.locator('#ed-stale[hidden]').waitFor({ state: 'attached' });
    expect(await page.locator('#ed-files button').allInnerTexts()).toEqual(['index.html', 'new.js', 'site.css']);
    // Publishing is the editor's one main action: it looks like one (the accent, like the other forms' submit buttons).
    const look = (sel: string) => page.locator(sel).evaluate((b) => getComputedStyle(b).backgroundColor);
    expect(await look('#ed-publish')).toBe(await look('#ed-new button[type="submit"]'));
    await page.getByRole('button', { name: 'Publish the draft' }).click();
    await page.locator('#ed-publish-status', { hasText: 'Published as version 3.' }).waitFor();
    expect(await livePage(made.slug, owner)).toBe('<h1>two</h1><link rel="stylesheet" href="site.css">');
    expect(await page.locator('#ed-status').innerText()).toBe('Your draft, started from version 3: no unpublished edits.');
    const versions = await api(suite.app, 'GET', `/api/canvases/${made.id}/versions`, { cookie: owner });
    expect(versions.versions[0]).toMatchObject({ number: 3, source: 'editor', current: true });

    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  test('a new file is added in the editor and leaving the editor saves what was typed', async () => {
    const owner = await suite.app.signIn('adder@example.com', 'Adder');
    const made = await api(suite.app, 'POST', '/api/canvases', { cookie: owner, json: { title: 'Fresh' } });
    const page = await dashboardPage(suite.browser, suite.app, owner, suite.contexts);
    await page.goto(`${dashboardOrigin(suite.app.ctx.config)}/#/canvas/${made.id}/edit`);
    await page.locator(`#editor-page[data-ready="${made.id}"]`).waitFor();
    expect(await page.locator('#ed-status').innerText()).toBe(
      'Your draft, started from a new canvas (nothing published yet): no unpublished edits.',
    );
    await page.getByLabel('New file').fill('index.html');
    await page.getByRole('button', { name: 'Add' }).click();
    await page.locator('#ed-path', { hasText: 'index.html' }).waitFor();
    await typeInEditor(page, '<p>hello from the suite.browser</p>');
    await page.getByRole('link', { name: '← Back to the canvas' }).click();
    await page.locator(`#canvas-page[data-ready="${made.id}"]`).waitFor();
    const saved = await suite.app.request(`/api/canvases/${made.id}/draft/file?path=index.html`, { cookie: owner });
    expect(await saved.text()).toBe('<p>hello from the suite.browser</p>');

    // A file name carrying markup is shown as text.
    await page.getByRole('link', { name: 'Edit in the browser' }).click();
    await page.locator(`#editor-page[data-ready="${made.id}"]`).waitFor();
    await page.getByLabel('New file').fill('<img src=x onerror=alert(1)>.html');
    await page.getByRole('button', { name: 'Add' }).click();
    await page.locator('#ed-files button', { hasText: '<img src=x onerror=alert(1)>.html' }).waitFor();
    expect(await page.locator('#editor-page img').count()).toBe(0);
  });
});
