// passes: embedded — Chromium journeys; the API suites run their routes in the s3 and cluster passes
// The gallery in Chromium (issue 18 item 6): an owner lists a canvas and
// offers it as a template on its page; a colleague finds it in the gallery
// and makes a canvas of their own from it.
import { describe, expect, test } from 'bun:test';
import { dashboardOrigin } from '../../src/http/cross-site.ts';
import { api, dashboardPage, deploy, useBrowserSuite } from './helpers.ts';

const suite = useBrowserSuite();

describe('the gallery', () => {
  test('listed and offered on the canvas page; used as a template from the gallery by a colleague', async () => {
    const owner = await suite.app.signIn('maker@example.com', 'Maker');
    const made = await api(suite.app, 'POST', '/api/canvases', { cookie: owner, json: { title: 'Retro board' } });
    await api(suite.app, 'PATCH', `/api/canvases/${made.id}`, { cookie: owner, json: { accessMode: 'whole_org' } });
    await deploy(suite.app, made.id, made.apiKey, { 'index.html': '<h1>retro</h1>' });
    const page = await dashboardPage(suite.browser, suite.app, owner, suite.contexts);
    await page.goto(`${dashboardOrigin(suite.app.ctx.config)}/#/canvas/${made.id}`);
    await page.locator(`#canvas-page[data-ready="${made.id}"]`).waitFor();
    await page.check('#cp-gallery input[name="listed"]');
    await page.locator('#cp-gallery[data-saved="true false"]').waitFor();
    await page.check('#cp-gallery input[name="templatable"]');
    await page.locator('#cp-gallery[data-saved="true true"]').waitFor();

    const colleague = await suite.app.signIn('colleague@example.com', 'Colleague');
    const other = await dashboardPage(suite.browser, suite.app, colleague, suite.contexts);
    const row = other.locator(`#gallery-list tbody tr[data-id="${made.id}"]`);
    await row.waitFor();
    expect(await row.locator('td').nth(1).innerText()).toBe('Maker');
    // A search that finds nothing says so, not that nothing is listed.
    await other.fill('#gallery-search input[name="q"]', 'zzz');
    await other.click('#gallery-search button');
    await other.locator('#gallery-list[data-ready="zzz"]').waitFor({ state: 'attached' });
    expect(await other.locator('#gallery-no-match').innerText()).toBe('No listed canvas matches "zzz".');
    expect(await other.locator('#gallery-empty').isVisible()).toBe(false);
    await other.fill('#gallery-search input[name="q"]', '');
    await other.click('#gallery-search button');
    await row.waitFor();
    expect(await other.locator('#gallery-no-match').isVisible()).toBe(false);
    await row.getByRole('button', { name: 'Use as template' }).click();
    await other.locator('#notice', { hasText: 'is yours now' }).waitFor();
    expect(await other.locator('#created-key').innerText()).toMatch(/^easel_sk_/);
    await other.locator('#canvases tbody tr', { hasText: 'Retro board (copy)' }).waitFor();
    const mine = await api(suite.app, 'GET', '/api/canvases', { cookie: colleague });
    const copy = mine.canvases.find((c: { title: string }) => c.title === 'Retro board (copy)');
    expect(copy).toMatchObject({ role: 'owner', publicationState: 'published' });
    expect(await (await suite.app.request(`/c/${copy.slug}/`, { cookie: colleague })).text()).toBe('<h1>retro</h1>');
  });
});
