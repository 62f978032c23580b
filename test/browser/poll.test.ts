// passes: embedded — Chromium journeys; the API suites run their routes in the s3 and cluster passes
// Issue 15 item 7: the README's live poll in Chromium, two people. Votes are
// records of a `contributions` collection (one per person, changeable by its
// author); a realtime channel makes the other page refresh its tally.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../harness.ts';
import { api, deploy, launchChromium, openCanvas, docsHtml, waitForText } from './helpers.ts';

let app: TestApp;
let browser: Browser;
const contexts: BrowserContext[] = [];
const cookies = { alice: '', bob: '' };
let canvas: { id: string; slug: string };

beforeAll(async () => {
  app = await startTestApp({ listen: true, env: { EASEL_RATELIMIT_ENABLED: 'false' } });
  cookies.alice = await app.signIn('alice@example.com', 'Alice');
  cookies.bob = await app.signIn('bob@example.com', 'Bob');
  const created = await api(app, 'POST', '/api/canvases', { cookie: cookies.alice, json: { title: 'Lunch poll' } });
  canvas = { id: created.id, slug: created.slug };
  await api(app, 'PUT', `/api/canvases/${canvas.id}/members`, {
    cookie: cookies.alice,
    json: { email: 'bob@example.com', role: 'viewer' },
  });
  // The policy the README gives, set as it says.
  await api(app, 'PATCH', `/api/canvases/${canvas.id}/capabilities`, {
    cookie: cookies.alice,
    json: { expectedRuntimePolicy: created.runtimePolicyRevision, runtimePolicy: { collections: { votes: { preset: 'contributions' } } } },
  });
  await deploy(app, canvas.id, created.apiKey, { 'index.html': docsHtml('## Example: a live poll') });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {});
  await browser?.close();
  await app?.close();
});

describe('the README live poll in Chromium, two people', () => {
  test("each votes once, can change their vote, and the other page's tally follows live", async () => {
    const open = (who: 'alice' | 'bob'): Promise<Page> =>
      openCanvas(browser, app, { cookie: cookies[who], slug: canvas.slug, label: who, contexts });
    const alice = await open('alice');
    const bob = await open('bob');
    await waitForText(alice, '#tally', 'Pizza: 0\nSushi: 0\nTacos: 0');

    await alice.click('[data-choice="pizza"]');
    await waitForText(bob, '#tally', 'Pizza: 1\nSushi: 0\nTacos: 0');
    await waitForText(alice, '#mine', 'pizza');

    await bob.click('[data-choice="sushi"]');
    await waitForText(alice, '#tally', 'Pizza: 1\nSushi: 1\nTacos: 0');

    // Bob changes his mind: his record is updated, not a second vote.
    await bob.click('[data-choice="pizza"]');
    await waitForText(alice, '#tally', 'Pizza: 2\nSushi: 0\nTacos: 0');
    await waitForText(bob, '#mine', 'pizza');
    expect(await alice.locator('#status').innerText()).toBe('');
    expect(await bob.locator('#status').innerText()).toBe('');

    const records = await api(app, 'GET', `/v1/c/${canvas.slug}/collections/votes`, { cookie: cookies.alice });
    expect(records.entries.map((r: { value: string }) => r.value)).toEqual(['pizza', 'pizza']);
  });
});
