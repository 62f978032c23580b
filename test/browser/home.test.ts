// passes: embedded — Chromium journeys; the API suites run their routes in the s3 and cluster passes
// The dashboard's home in Chromium (issue 38 item 2): each canvas says who
// can open it and when it was last deployed (in words, the exact time on
// hover); the list is searched and sorted in place.
import { expect, test } from 'bun:test';
import { api, dashboardPage, deploy, useBrowserSuite } from './helpers.ts';

const suite = useBrowserSuite();

test('who can open each canvas and its last deploy, in words; searched and sorted in place', async () => {
  const cookie = await suite.app.signIn('home-owner@example.com', 'Hana Owner');
  const lunch = await api(suite.app, 'POST', '/api/canvases', { cookie, json: { title: 'Lunch poll' } });
  await api(suite.app, 'PUT', `/api/canvases/${lunch.id}/members`, { cookie, json: { email: 'a@example.com', role: 'viewer' } });
  await api(suite.app, 'PUT', `/api/canvases/${lunch.id}/members`, { cookie, json: { email: 'b@example.com', role: 'editor' } });
  await deploy(suite.app, lunch.id, lunch.apiKey, { 'index.html': '<h1>lunch</h1>' });
  const board = await api(suite.app, 'POST', '/api/canvases', { cookie, json: { title: 'Board' } });
  await api(suite.app, 'PATCH', `/api/canvases/${board.id}`, { cookie, json: { accessMode: 'whole_org' } });
  const zebra = await api(suite.app, 'POST', '/api/canvases', { cookie, json: { title: 'Zebra notes' } });

  const page = await dashboardPage(suite.browser, suite.app, cookie, suite.contexts);
  await page.locator('#canvases[data-ready="true"]').waitFor({ state: 'attached' });
  const rowOf = (id: string) => page.locator(`#canvases tbody tr:has(a[href="#/canvas/${id}"])`);
  expect(await rowOf(lunch.id).innerText()).toContain('You and 2 people');
  expect(await rowOf(board.id).innerText()).toContain('Whole organisation');
  expect(await rowOf(zebra.id).innerText()).toContain('Only you');
  const deployed = rowOf(lunch.id).locator('td[data-column="last-deploy"] time');
  expect(await deployed.innerText()).toBe('just now');
  expect(await deployed.getAttribute('title')).toMatch(/\d/);
  expect(await rowOf(zebra.id).locator('td[data-column="last-deploy"]').innerText()).toBe('');

  // The Find field and the Sort select beside it are one height, their labels on one line.
  const boxes = await page.locator('#canvas-filter label').evaluateAll((labels) =>
    labels.map((l) => ({
      top: Math.round(l.getBoundingClientRect().top),
      field: Math.round(l.lastElementChild!.getBoundingClientRect().height),
    })),
  );
  expect(boxes).toHaveLength(2);
  expect(Math.abs(boxes[0]!.top - boxes[1]!.top)).toBeLessThanOrEqual(1);
  expect(Math.abs(boxes[0]!.field - boxes[1]!.field)).toBeLessThanOrEqual(1);
  const titles = () => page.locator('#canvases tbody tr a.canvas-link').allInnerTexts();
  await page.getByLabel('Sort by').selectOption('title');
  expect(await titles()).toEqual(['Board', 'Lunch poll', 'Zebra notes']);
  await page.getByLabel('Sort by').selectOption('deployed');
  expect((await titles())[0]).toBe('Lunch poll');
  await page.getByLabel('Find').fill('zeb');
  expect(await titles()).toEqual(['Zebra notes']);
  expect(await page.locator('#canvas-filter-count').innerText()).toBe('1 of 3');
  // Nothing found is said in words, not shown as the table's bare headings.
  await page.getByLabel('Find').fill('quokka');
  expect(await page.locator('#canvas-no-match').innerText()).toBe('Nothing here matches "quokka".');
  expect(await page.locator('#canvases').isVisible()).toBe(false);
  await page.getByLabel('Find').fill('');
  expect(await titles()).toHaveLength(3);
  expect(await page.locator('#canvas-no-match').isVisible()).toBe(false);
});

test('each canvas is one cell, its address under its title; the other columns and their names keep to one line at 1280 px', async () => {
  const cookie = await suite.app.signIn('home-layout@example.com', 'Lay Out');
  const made = await api(suite.app, 'POST', '/api/canvases', { cookie, json: { title: 'Quarterly planning board' } });
  await api(suite.app, 'PATCH', `/api/canvases/${made.id}`, { cookie, json: { accessMode: 'whole_org' } });
  await deploy(suite.app, made.id, made.apiKey, { 'index.html': '<h1>plan</h1>' });
  const page = await dashboardPage(suite.browser, suite.app, cookie, suite.contexts);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.locator('#canvases[data-ready="true"]').waitFor({ state: 'attached' });
  expect(await page.locator('#canvases thead th').allInnerTexts()).toEqual([
    'Canvas',
    'Role',
    'Status',
    'Shared with',
    'Last deploy',
    'AI this month',
    '',
  ]);
  const first = page.locator('#canvases tbody tr td').first();
  expect(await first.locator('a.canvas-link').innerText()).toBe('Quarterly planning board');
  // The address reads without its scheme; the link is the whole address.
  const address = first.locator('.canvas-address a');
  expect(await address.getAttribute('href')).toBe(made.url);
  expect(await address.innerText()).toBe(made.url.replace(/^https?:\/\//, ''));
  const lines = await page.evaluate(() => {
    const lineCount = (el: Element) => {
      const style = getComputedStyle(el);
      const words = document.createRange();
      words.selectNodeContents(el);
      return Math.round(words.getBoundingClientRect().height / parseFloat(style.lineHeight));
    };
    const row = document.querySelector('#canvases tbody tr')!;
    return {
      heads: [...document.querySelectorAll('#canvases thead th')].filter((th) => th.textContent).map(lineCount),
      // Role to AI spend (the last cell holds the buttons, measured on their own).
      cells: [...row.querySelectorAll('td')]
        .slice(1, -1)
        .filter((td) => td.textContent)
        .map(lineCount),
      button: lineCount(row.querySelector('button.guest-links')!),
    };
  });
  expect(lines.heads.every((n) => n === 1)).toBe(true);
  expect(lines.cells.every((n) => n === 1)).toBe(true);
  expect(lines.button).toBe(1);
});

test("a one-word title as long as a title may be breaks in its column: the list's other columns stay in view at 1280 px", async () => {
  const cookie = await suite.app.signIn('home-long-title@example.com', 'Long Title');
  const long = 'X'.repeat(150) + 'Y'.repeat(50);
  await api(suite.app, 'POST', '/api/canvases', { cookie, json: { title: long } });
  const page = await dashboardPage(suite.browser, suite.app, cookie, suite.contexts);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.locator('#canvases[data-ready="true"]').waitFor({ state: 'attached' });
  const fit = await page.locator('#canvases').evaluate((t) => ({
    scrolls: t.scrollWidth > t.clientWidth + 1,
    lastRight: Math.round(t.querySelector('tbody tr td:last-child')!.getBoundingClientRect().right),
    right: Math.round(t.getBoundingClientRect().right),
  }));
  expect(fit.scrolls).toBe(false);
  expect(fit.lastRight).toBeLessThanOrEqual(fit.right);
  expect(await page.locator('#canvases tbody a.canvas-link').innerText()).toBe(long);
});

test('back on the list after changing a canvas on its page, the list says what changed (it showed what it read on first load)', async () => {
  const cookie = await suite.app.signIn('home-fresh@example.com', 'Fresh List');
  const made = await api(suite.app, 'POST', '/api/canvases', { cookie, json: { title: 'Shared later' } });
  const page = await dashboardPage(suite.browser, suite.app, cookie, suite.contexts);
  await page.locator('#canvases[data-ready="true"]').waitFor({ state: 'attached' });
  const row = page.locator('#canvases tbody tr', { hasText: 'Shared later' });
  expect(await row.locator('td').nth(3).innerText()).toBe('Only you');
  await row.locator('a.canvas-link').click();
  await page.locator(`#canvas-page[data-ready="${made.id}"]`).waitFor();
  await page.locator('#cp-access input[value="whole_org"]').check();
  await page.locator('#cp-access-dialog').getByRole('button', { name: 'Open it to the organisation' }).click();
  await page.locator('#cp-state', { hasText: 'Whole organisation' }).waitFor();
  // The list's marker is taken away: only a new load of the list puts it back.
  await page.locator('#canvases').evaluate((t) => delete (t as HTMLElement).dataset.ready);
  await page.click('#cp-back');
  await page.locator('#canvases[data-ready="true"]').waitFor({ state: 'attached' });
  expect(await row.locator('td').nth(3).innerText()).toBe('Whole organisation');
});

test('a title of spaces alone is refused in words before anything is sent', async () => {
  const cookie = await suite.app.signIn('home-blank@example.com', 'Blank Title');
  const page = await dashboardPage(suite.browser, suite.app, cookie, suite.contexts);
  await page.locator('#canvases[data-ready="true"]').waitFor({ state: 'attached' });
  const sent: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().endsWith('/api/canvases')) sent.push(r.url());
  });
  await page.fill('#create-form input[name="title"]', '   ');
  await page.click('#create-form button');
  await page.locator('#notice .toast-error[data-topic="create"]', { hasText: 'give it a title (spaces alone are not one)' }).waitFor();
  expect(sent).toEqual([]);
});
