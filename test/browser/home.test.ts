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

  const titles = () => page.locator('#canvases tbody tr a.canvas-link').allInnerTexts();
  await page.getByLabel('Sort by').selectOption('title');
  expect(await titles()).toEqual(['Board', 'Lunch poll', 'Zebra notes']);
  await page.getByLabel('Sort by').selectOption('deployed');
  expect((await titles())[0]).toBe('Lunch poll');
  await page.getByLabel('Find').fill('zeb');
  expect(await titles()).toEqual(['Zebra notes']);
  expect(await page.locator('#canvas-filter-count').innerText()).toBe('1 of 3');
  await page.getByLabel('Find').fill('');
  expect(await titles()).toHaveLength(3);
});
