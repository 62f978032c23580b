// passes: embedded — Chromium journeys; the API suites run their routes in the s3 and cluster passes
// Issue 43: the browser SDK's JavaScript examples in docs/ (sdk.md, ai.md) run
// as written, each as a module of a canvas page in headless Chromium, signed
// in as the canvas's owner, with the SDK from /sdk/v1.js; and what they say
// they do is then true (the draft saved, the authored canvas revoked, the AI
// asked as the options say). test/docs-sdk.test.ts type-checks the same code.
// The README's SDK page (index.html) is served and run as it is.
// Behind the app: the local fake Anthropic API (test/fake-anthropic.ts).
import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { AI_KEY } from '../ai-fixtures.ts';
import { readmeSdkPage, sdkExamples } from '../docs-sdk-examples.ts';
import { DEFAULT_CHUNKS, startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic.ts';
import { startTestApp, type TestApp } from '../harness.ts';
import { api, closeBrowserSuite, deploy, launchChromium } from './helpers.ts';

const examples = sdkExamples();
/** Each example as its own module, and a page that imports it and says how it ended in body[data-done]. */
const files: Record<string, string> = { 'index.html': readmeSdkPage() };
examples.forEach((e, i) => {
  files[`example-${i}.js`] = e.code;
  files[`example-${i}.html`] = `<!doctype html>
<html><head><meta charset="utf-8"><title>${e.name}</title></head>
<body>
<script src="/sdk/v1.js"></script>
<script type="module">
  import('./example-${i}.js').then(
    () => (document.body.dataset.done = 'ok'),
    (e) => (document.body.dataset.done = e.name + ': ' + (e.code ?? '') + ' ' + e.message),
  );
</script>
</body></html>
`;
});

let app: TestApp;
let fake: FakeAnthropic;
let browser: Browser;
let owner: string;
let slug: string;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  fake = await startFakeAnthropic();
  app = await startTestApp({
    listen: true,
    env: { EASEL_AI_API_KEY: AI_KEY, EASEL_AI_BASE_URL: fake.url, EASEL_AUTHORING: 'on', EASEL_RATELIMIT_ENABLED: 'false' },
  });
  owner = await app.signIn('owner@example.com', 'Owner');
  const created = await api(app, 'POST', '/api/canvases', { cookie: owner, json: { title: 'SDK examples' } });
  slug = created.slug;
  await api(app, 'PATCH', `/api/canvases/${created.id}/capabilities`, { cookie: owner, json: { ai: true, authoring: true } });
  await deploy(app, created.id, created.apiKey, files);
  browser = await launchChromium();
  // Chromium's first start outlasts bun's 5 s hook default on a loaded 2-core machine.
}, 60_000);

afterAll(async () => {
  await closeBrowserSuite(contexts, browser, app);
  await fake?.close();
});

/** A fresh browser context signed in as the owner, and a page in it. */
async function ownersPage(): Promise<Page> {
  const context = await browser.newContext();
  contexts.push(context);
  const at = owner.indexOf('=');
  await context.addCookies([{ name: owner.slice(0, at), value: owner.slice(at + 1), url: app.base }]);
  return context.newPage();
}

/** Opens example `name`'s page as the owner; resolves with the page once the example ended, and how. */
async function run(name: string): Promise<{ page: Page; done: string }> {
  const i = examples.findIndex((e) => e.name === name);
  expect(i).toBeGreaterThanOrEqual(0);
  const page = await ownersPage();
  await page.goto(`${app.base}/c/${slug}/example-${i}.html`);
  // attached: an example that writes nothing leaves the body empty, which is not "visible".
  await page.waitForSelector('body[data-done]', { state: 'attached', timeout: 15_000 });
  return { page, done: (await page.getAttribute('body', 'data-done'))! };
}

test('the examples found are the ones these tests check', () => {
  expect(examples.map((e) => e.name)).toEqual(['docs/sdk.md#1', 'docs/sdk.md#2', 'docs/ai.md#1']);
});

test('sdk.md, failures: the draft is saved (signed in, nothing to catch)', async () => {
  const { page, done } = await run('docs/sdk.md#1');
  expect(done).toBe('ok');
  expect(await page.evaluate(() => (globalThis as any).easel.kv.get('draft'))).toBe('Half-written notes');
}, 30_000);

test('sdk.md, authoring: the report is created, updated, then revoked', async () => {
  const { page, done } = await run('docs/sdk.md#2');
  expect(done).toBe('ok');
  const listed = await page.evaluate(() => (globalThis as any).easel.canvases.list({ sourceApp: 'reports' }));
  expect(listed.map((c: any) => ({ title: c.title, tags: c.tags, status: c.publicationStatus }))).toEqual([
    { title: 'Week 47', tags: ['weekly'], status: 'unpublished' },
  ]);
}, 30_000);

test('ai.md: chat with the options given, then the stream written into a paragraph', async () => {
  fake.reset();
  const { page, done } = await run('docs/ai.md#1');
  expect(done).toBe('ok');
  expect(await page.locator('p').innerText()).toBe(DEFAULT_CHUNKS.join(''));
  const [chat, stream] = fake.requests.map((r) => r.body);
  // The app sends the system prompt as a cacheable text block.
  expect({ model: chat.model, system: chat.system.map((b: any) => b.text), max_tokens: chat.max_tokens }).toEqual({
    model: 'claude-haiku-5-5',
    system: ['Be brief.'],
    max_tokens: 300,
  });
  expect(stream.messages).toEqual([{ role: 'user', content: 'Say hello' }]);
}, 30_000);

test("README's SDK page greets the person and keeps their last visit in their own scope", async () => {
  const page = await ownersPage();
  const before = Date.now();
  await page.goto(`${app.base}/c/${slug}/`);
  await page.waitForFunction(() => document.body.innerText.includes('Hello, Owner'));
  const lastVisit = await page.evaluate(() => (globalThis as any).easel.kv.user.get('lastVisit'));
  expect(lastVisit).toBeGreaterThanOrEqual(before);
}, 30_000);
