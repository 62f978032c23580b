// passes: embedded — Chromium journeys; the API suites run their routes in the s3 and cluster passes
// easel.ai (chat, stream) and easel.connections.fetch in real headless
// Chromium: a canvas deployed through the Deploy API, opened by signed-in
// people, its page calling the SDK served at /sdk/v1.js. Behind the app: the
// local fake Anthropic Messages API (test/fake-anthropic.ts, driven by the
// real @anthropic-ai/sdk inside the app) and a local HTTPS upstream for
// Connections (test/connections-fixtures.ts). Everything the page learns
// comes over real HTTP; settings change through the admin and owner routes.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { AI_KEY, calls, MODEL, PRICE } from '../ai-fixtures.ts';
import { makeCert, SECRET_KEY_HEX, startUpstream, UPSTREAM_HOST, type Upstream } from '../connections-fixtures.ts';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic.ts';
import { startTestApp, type TestApp } from '../harness.ts';
import { ADMIN_EMAIL } from '../runtime-fixtures.ts';
import { nextEvent } from '../signals.ts';
import { api as call, deploy, launchChromium, openCanvas } from './helpers.ts';

/** A small chat canvas: one question, the answer streamed into #answer as it comes. */
const PAGE = `<!doctype html>
<html>
<head><meta charset="utf-8"><title>Ask</title></head>
<body>
  <input id="q" value="Say hello">
  <button id="ask">Ask</button>
  <p id="answer"></p>
  <p id="status">idle</p>
  <script src="/sdk/v1.js"></script>
  <script>
    const $ = (s) => document.querySelector(s);
    $('#ask').onclick = async () => {
      $('#answer').textContent = '';
      $('#status').textContent = 'streaming';
      try {
        for await (const delta of easel.ai.stream([{ role: 'user', content: $('#q').value }], { model: '${MODEL}' })) {
          $('#answer').textContent += delta;
        }
        $('#status').textContent = 'done';
      } catch (e) {
        $('#status').textContent = e.name + ': ' + e.code;
      }
    };
    document.body.dataset.ready = 'true';
  </script>
</body>
</html>
`;

const SECRET = 'Bearer sk-upstream-SECRET-b7e2';

const people = {
  alice: { email: 'alice@example.com', name: 'Alice' }, // owner
  carol: { email: 'carol@example.com', name: 'Carol' }, // editor
  bob: { email: 'bob@example.com', name: 'Bob' }, // viewer
};
type Who = keyof typeof people;

let app: TestApp;
let fake: FakeAnthropic;
let browser: Browser;
let upstream: Upstream;
const cert = makeCert(UPSTREAM_HOST);
const cookies = {} as Record<Who | 'admin', string>;
let canvas: { id: string; slug: string };
const contexts: BrowserContext[] = [];
const pages = {} as Record<Who, Page>;
/** A frozen clock: the daily and monthly AI windows cannot roll over mid-run. */
const clock = { now: Date.now() };

const api = (method: string, path: string, init: Parameters<typeof call>[3] = {}) => call(app, method, path, init);
const settings = (json: Record<string, unknown>) => api('PATCH', '/api/admin/settings', { cookie: cookies.admin, json });
const capabilities = (json: Record<string, unknown>) =>
  api('PATCH', `/api/canvases/${canvas.id}/capabilities`, { cookie: cookies.alice, json });
const open = (who: Who) => openCanvas(browser, app, { cookie: cookies[who], slug: canvas.slug, label: who, contexts });

/** Default fake answer (20 in, 7 out) on MODEL at the default prices. */
const DEFAULT_COST = (20 * PRICE.input + 7 * PRICE.output) / 1e6;

beforeAll(async () => {
  fake = await startFakeAnthropic();
  upstream = startUpstream(cert);
  app = await startTestApp({
    listen: true,
    // Tests do not wait for the real retry back-off.
    app: { ai: { tuning: { retryDelaysMs: [5, 5] } } },
    now: () => clock.now,
    env: {
      EASEL_AI_API_KEY: AI_KEY,
      EASEL_AI_BASE_URL: fake.url,
      EASEL_ADMIN_EMAILS: ADMIN_EMAIL,
      EASEL_RATELIMIT_ENABLED: 'false',
      EASEL_SECRET_KEY: SECRET_KEY_HEX,
      EASEL_CONNECTIONS_CA_FILE: cert.certFile,
      EASEL_CONNECTIONS_RESOLVE: `${UPSTREAM_HOST}:${upstream.port}:127.0.0.1`,
    },
  });
  // The tests do not wait for the real retry back-off.
  for (const who of Object.keys(people) as Who[]) cookies[who] = await app.signIn(people[who].email, people[who].name);
  cookies.admin = await app.signIn(ADMIN_EMAIL, 'Admin');

  const created = await api('POST', '/api/canvases', { cookie: cookies.alice, json: { title: 'Ask' } });
  canvas = { id: created.id, slug: created.slug };
  await api('PUT', `/api/canvases/${canvas.id}/members`, { cookie: cookies.alice, json: { email: people.carol.email, role: 'editor' } });
  await api('PUT', `/api/canvases/${canvas.id}/members`, { cookie: cookies.alice, json: { email: people.bob.email, role: 'viewer' } });
  await capabilities({ ai: true });
  await deploy(app, canvas.id, created.apiKey, { 'index.html': PAGE });

  // Connections: one granted profile with a protected header, one that is not granted.
  const origin = `https://${UPSTREAM_HOST}:${upstream.port}`;
  await api('POST', '/api/admin/connections', {
    cookie: cookies.admin,
    json: { name: 'crm', origin, methods: ['GET', 'POST'], protectedHeaders: { Authorization: SECRET } },
  });
  await api('PUT', `/api/admin/canvases/${canvas.id}/connections/crm`, { cookie: cookies.admin });
  await api('POST', '/api/admin/connections', { cookie: cookies.admin, json: { name: 'billing', origin, methods: ['GET'] } });

  browser = await launchChromium();
  for (const who of Object.keys(people) as Who[]) pages[who] = await open(who);
  // Chromium's first start plus four signed-in pages outlasts bun's 5 s hook default on a cold 2-core machine.
}, 60_000);

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {});
  await browser?.close();
  await app?.close();
  await fake?.close();
  await upstream?.stop();
  cert.cleanup();
});

interface PageError {
  name: string;
  code: string;
  status: number;
  capability?: string | null;
  reason?: string | null;
  classes: { easel: boolean; quota: boolean; capability: boolean; permission: boolean };
}

/** Runs easel.ai.chat in the page; resolves to the result or to the error's shape. */
function chatIn(
  page: Page,
  messages: Array<{ role: 'user' | 'assistant'; content: string }>,
  options: { model: string; system?: string; maxTokens?: number },
) {
  return page.evaluate(
    async ({ messages, options }) => {
      const shape = (e: any) => ({
        name: e.name,
        code: e.code,
        status: e.status,
        capability: e.capability,
        reason: e.reason,
        classes: {
          easel: e instanceof easel.EaselError,
          quota: e instanceof easel.QuotaExceededError,
          capability: e instanceof easel.CapabilityDisabledError,
          permission: e instanceof easel.PermissionDeniedError,
        },
      });
      try {
        return { ok: await easel.ai.chat(messages, options), error: null };
      } catch (e) {
        return { ok: null, error: shape(e) };
      }
    },
    { messages, options },
  ) as Promise<{ ok: { text: string; usage: Record<string, number>; cost: number } | null; error: PageError | null }>;
}

/** Runs easel.ai.stream in the page with for-await; the deltas in arrival order and the error, if any. */
function streamIn(page: Page, content: string, options: { model: string; system?: string; maxTokens?: number } = { model: MODEL }) {
  return page.evaluate(
    async ({ content, options }) => {
      const deltas: string[] = [];
      try {
        for await (const d of easel.ai.stream([{ role: 'user', content }], options)) deltas.push(d);
        return { deltas, error: null };
      } catch (e: any) {
        return {
          deltas,
          error: {
            name: e.name,
            code: e.code,
            status: e.status,
            capability: e.capability,
            reason: e.reason,
            classes: {
              easel: e instanceof easel.EaselError,
              quota: e instanceof easel.QuotaExceededError,
              capability: e instanceof easel.CapabilityDisabledError,
              permission: e instanceof easel.PermissionDeniedError,
            },
          },
        };
      }
    },
    { content, options },
  ) as Promise<{ deltas: string[]; error: PageError | null }>;
}

const onlyEasel = { easel: true, quota: false, capability: false, permission: false };
const lastCall = async () => (await calls(app, canvas.id)).at(-1);

describe('easel.ai in Chromium against the fake Anthropic API', () => {
  beforeEach(() => fake.reset());

  test('chat resolves to {text, usage, cost}: the scripted text and token counts, priced from the table', async () => {
    fake.script({
      kind: 'stream',
      chunks: ['Good', ' morning', ', Carol.'],
      usage: { input: 1000, output: 250, cacheCreation: 400, cacheRead: 2000 },
    });
    const messages = [
      { role: 'user' as const, content: 'Hi' },
      { role: 'assistant' as const, content: 'Hello! What can I do?' },
      { role: 'user' as const, content: 'Greet me' },
    ];
    const got = await chatIn(pages.carol, messages, { model: MODEL, system: 'Answer in one line.', maxTokens: 300 });
    expect(got.error).toBeNull();
    // Input is the provider's uncached remainder plus both cache counts; cache writes cost 1.25x input, reads 0.1x.
    const cost = (1000 * PRICE.input + 400 * 1.25 * PRICE.input + 2000 * 0.1 * PRICE.input + 250 * PRICE.output) / 1e6;
    expect(got.ok).toEqual({
      text: 'Good morning, Carol.',
      usage: { inputTokens: 3400, outputTokens: 250, cacheCreationInputTokens: 400, cacheReadInputTokens: 2000 },
      cost: expect.closeTo(cost, 12),
    });
    expect(got.ok!.cost).toBe(0.0059);

    // What the provider received: the model, the system prompt, max_tokens, the conversation (with the spec's cache breakpoints), the key.
    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0]!;
    expect(sent.body).toEqual({
      model: MODEL,
      max_tokens: 300,
      system: [{ type: 'text', text: 'Answer in one line.', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: [{ type: 'text', text: 'Hello! What can I do?', cache_control: { type: 'ephemeral' } }] },
        { role: 'user', content: 'Greet me' },
      ],
      stream: true,
    });
    expect(sent.apiKey ?? sent.bearer).toBe(AI_KEY);
    // The page never sees the provider key, and the bill is recorded against Carol.
    expect(JSON.stringify(got)).not.toContain(AI_KEY);
    expect(await lastCall()).toMatchObject({
      state: 'settled',
      outcome: 'ok',
      model: MODEL,
      cost_usd: got.ok!.cost,
      input_tokens: 3400,
      output_tokens: 250,
    });
  });

  test('the cost follows the price table an admin sets', async () => {
    await settings({ aiPrices: { [MODEL]: { input: 10, output: 100 } } });
    try {
      const got = await chatIn(pages.carol, [{ role: 'user', content: 'Hi' }], { model: MODEL });
      expect(got.ok).toMatchObject({ text: 'Hello, world!', cost: (20 * 10 + 7 * 100) / 1e6 });
    } finally {
      await settings({ aiPrices: null });
    }
    const back = await chatIn(pages.carol, [{ role: 'user', content: 'Hi' }], { model: MODEL });
    expect(back.ok!.cost).toBeCloseTo(DEFAULT_COST, 12);
    // Without system or maxTokens: no system block, the server's default max_tokens.
    expect('system' in fake.requests[1]!.body).toBe(false);
    expect(fake.requests[1]!.body.max_tokens).toBeGreaterThan(0);
  });

  test('stream yields the text deltas in order, and only them', async () => {
    fake.script({ kind: 'stream', chunks: ['one ', 'two ', 'three ', 'four'], delayMs: 20 });
    const got = await streamIn(pages.carol, 'Count to four', { model: MODEL, system: 'Be terse.', maxTokens: 64 });
    expect(got).toEqual({ deltas: ['one ', 'two ', 'three ', 'four'], error: null });
    expect(fake.requests[0]!.body).toMatchObject({
      model: MODEL,
      max_tokens: 64,
      system: [{ type: 'text', text: 'Be terse.' }],
      messages: [{ role: 'user', content: 'Count to four' }],
    });
    expect(await lastCall()).toMatchObject({ outcome: 'ok', output_tokens: 7 });
  });

  test('deltas reach the page while the provider is still writing; closing the tab stops the provider call', async () => {
    // Two chunks, then the fake sends nothing more until the caller goes away: a buffered stream would show nothing.
    fake.script({ kind: 'stream', chunks: ['Hello', ', ', 'never sent'], hangAfter: 2 });
    const page = await open('carol');
    await page.click('#ask');
    await page.waitForFunction(() => document.getElementById('answer')!.innerText === 'Hello,');
    expect(await page.locator('#status').innerText()).toBe('streaming');
    expect(fake.requests[0]!.aborted).toBe(false);
    const settled = nextEvent(app, 'ai.call-finished');
    await page.context().close();
    await fake.requests[0]!.finished;
    expect(fake.requests[0]!.aborted).toBe(true);
    await settled;
    expect(await lastCall()).toMatchObject({ state: 'settled', outcome: 'aborted' });
  });

  test('the page UI renders a whole streamed answer', async () => {
    fake.script({ kind: 'stream', chunks: ['Hi', ' there', '!'], delayMs: 10 });
    await pages.carol.fill('#q', 'Say hi');
    await pages.carol.click('#ask');
    await pages.carol.waitForFunction(() => document.getElementById('status')!.innerText === 'done');
    expect(await pages.carol.locator('#answer').innerText()).toBe('Hi there!');
    expect(fake.requests[0]!.body.messages).toEqual([{ role: 'user', content: 'Say hi' }]);
  });

  test('leaving the for-await loop early cancels the provider call', async () => {
    fake.script({ kind: 'stream', chunks: ['a', 'b', 'never sent'], hangAfter: 2 });
    const settled = nextEvent(app, 'ai.call-finished');
    const got = await pages.carol.evaluate(async (model) => {
      const seen: string[] = [];
      for await (const d of easel.ai.stream([{ role: 'user', content: 'letters' }], { model })) {
        seen.push(d);
        if (seen.length === 2) break;
      }
      return seen;
    }, MODEL);
    expect(got).toEqual(['a', 'b']);
    await fake.requests[0]!.finished;
    expect(fake.requests[0]!.aborted).toBe(true);
    await settled;
    expect(await lastCall()).toMatchObject({ state: 'settled', outcome: 'aborted' });
  });

  test('a provider failure mid-stream rejects with EaselError AI_UPSTREAM_ERROR (502), after the deltas before it', async () => {
    // An `event: error` from the provider after two chunks.
    fake.script({ kind: 'stream', errorAfter: 2 });
    const errored = await streamIn(pages.carol, 'Hi');
    expect(errored).toEqual({
      deltas: ['Hello', ', '],
      error: { name: 'EaselError', code: 'AI_UPSTREAM_ERROR', status: 502, capability: undefined, reason: undefined, classes: onlyEasel },
    });

    // The provider's connection cut after one chunk. Whether the chunk is read before the reset is
    // up to the sockets: when it is not, no delta was sent yet and the call is retried (cut again), so
    // the page sees "Hello" at most, and the same error either way.
    fake.script(...Array.from({ length: 4 }, () => ({ kind: 'stream' as const, cutAfter: 1 })));
    const cut = await streamIn(pages.carol, 'Hi');
    expect(['Hello', ''].includes(cut.deltas.join(''))).toBe(true);
    expect(cut.error).toMatchObject({ name: 'EaselError', code: 'AI_UPSTREAM_ERROR', status: 502, classes: onlyEasel });
    fake.reset();

    // chat rejects the same way (the partial text is not returned as an answer).
    fake.script({ kind: 'stream', errorAfter: 3 });
    const chat = await chatIn(pages.carol, [{ role: 'user', content: 'Hi' }], { model: MODEL });
    expect(chat).toEqual({
      ok: null,
      error: { name: 'EaselError', code: 'AI_UPSTREAM_ERROR', status: 502, capability: undefined, reason: undefined, classes: onlyEasel },
    });

    // Overloaded before any text, through both retries: the HTTP answer is a 502 AI_UPSTREAM_ERROR.
    fake.script({ kind: 'status', status: 529 }, { kind: 'status', status: 529 }, { kind: 'status', status: 529 });
    const overloaded = await chatIn(pages.carol, [{ role: 'user', content: 'Hi' }], { model: MODEL });
    expect(overloaded.error).toMatchObject({ name: 'EaselError', code: 'AI_UPSTREAM_ERROR', status: 502, classes: onlyEasel });
    expect(fake.requests.length).toBe(1 + 3);
  });

  test('refusals arrive as their SDK classes, and never reach the provider', async () => {
    const ask = [{ role: 'user' as const, content: 'Hi' }];

    // A viewer while aiAudience is editors (the default): PermissionDeniedError.
    expect((await chatIn(pages.bob, ask, { model: MODEL })).error).toEqual({
      name: 'PermissionDeniedError',
      code: 'PERMISSION_DENIED',
      status: 403,
      capability: undefined,
      reason: undefined,
      classes: { easel: true, quota: false, capability: false, permission: true },
    });
    expect((await streamIn(pages.bob, 'Hi')).error).toMatchObject({
      name: 'PermissionDeniedError',
      code: 'PERMISSION_DENIED',
      status: 403,
    });

    // ai switched off by the owner: CapabilityDisabledError with the capability and the reason.
    await capabilities({ ai: false });
    const off = await chatIn(pages.carol, ask, { model: MODEL });
    expect(off.error).toEqual({
      name: 'CapabilityDisabledError',
      code: 'CAPABILITY_DISABLED',
      status: 403,
      capability: 'ai',
      reason: 'feature_off',
      classes: { easel: true, quota: false, capability: true, permission: false },
    });
    await capabilities({ ai: true });

    // A daily cap of 0: QuotaExceededError for everyone, the owner included.
    await settings({ aiUserDailyUsd: 0 });
    const quota = {
      name: 'QuotaExceededError',
      code: 'QUOTA_EXCEEDED',
      status: 429,
      capability: undefined,
      reason: undefined,
      classes: { easel: true, quota: true, capability: false, permission: false },
    };
    expect((await chatIn(pages.alice, ask, { model: MODEL })).error).toEqual(quota);
    expect((await streamIn(pages.carol, 'Hi')).error).toEqual(quota);
    expect(fake.requests).toHaveLength(0);

    // A cap Bob has spent: viewers admitted now, a call under the cap runs (and goes past it), the next is refused.
    await capabilities({ aiAudience: 'viewers' });
    await settings({ aiUserDailyUsd: DEFAULT_COST / 2 });
    try {
      const first = await chatIn(pages.bob, ask, { model: MODEL });
      expect(first.ok).toEqual({
        text: 'Hello, world!',
        usage: { inputTokens: 20, outputTokens: 7, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 },
        cost: expect.closeTo(DEFAULT_COST, 12),
      });
      expect((await chatIn(pages.bob, ask, { model: MODEL })).error).toEqual(quota);
      // The cap is per person and day: Carol spent more than that in the tests above, Alice nothing yet.
      expect((await chatIn(pages.carol, ask, { model: MODEL })).error).toEqual(quota);
      expect((await chatIn(pages.alice, ask, { model: MODEL })).ok?.text).toBe('Hello, world!');
      expect(fake.requests).toHaveLength(2);
    } finally {
      await settings({ aiUserDailyUsd: null });
      await capabilities({ aiAudience: 'editors' });
    }
  });
});

describe('easel.connections.fetch in Chromium through a local HTTPS upstream', () => {
  beforeEach(() => upstream.handle(null));

  test("returns the upstream's Response: status, body and the upstream mark; the protected header is added on the server", async () => {
    const before = upstream.received.length;
    const got = await pages.carol.evaluate(async () => {
      const res = await easel.connections.fetch('crm', '/v1/contacts?limit=2', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-custom': 'kept' },
        body: JSON.stringify({ name: 'Dana' }),
      });
      return {
        status: res.status,
        mark: res.headers.get('x-easel-connection-response'),
        isResponse: res instanceof Response,
        body: await res.json(),
      };
    });
    expect(got).toMatchObject({
      status: 200,
      mark: 'upstream',
      isResponse: true,
      body: { method: 'POST', path: '/v1/contacts?limit=2', body: '{"name":"Dana"}' },
    });
    expect(upstream.received.length).toBe(before + 1);
    const received = upstream.received.at(-1)!;
    expect(received.headers.authorization).toBe(SECRET);
    expect(received.headers['x-custom']).toBe('kept');
    expect(received.headers['content-type']).toBe('application/json');
    expect(received.headers.host).toBe(`${UPSTREAM_HOST}:${upstream.port}`);
    // The browser's session cookie stays with the platform.
    expect(received.headers.cookie).toBeUndefined();
  });

  test('an upstream 404 is data: a Response, not an error', async () => {
    upstream.handle(() => new Response('no such contact', { status: 404, headers: { 'content-type': 'text/plain' } }));
    const got = await pages.carol.evaluate(async () => {
      const res = await easel.connections.fetch('crm', 'v1/contacts/42');
      return { status: res.status, mark: res.headers.get('x-easel-connection-response'), text: await res.text() };
    });
    expect(got).toEqual({ status: 404, mark: 'upstream', text: 'no such contact' });
    expect(upstream.received.at(-1)!.path).toBe('/v1/contacts/42');
  });

  test("the platform's refusals reject with their SDK classes and reach no upstream", async () => {
    const before = upstream.received.length;
    const refusal = (page: Page, profile: string) =>
      page.evaluate(
        (profile) =>
          easel.connections.fetch(profile, 'v1/x').then(
            (res) => ({ resolved: res.status }),
            (e) => ({
              name: e.name,
              code: e.code,
              status: e.status,
              capability: e.capability ?? null,
              permission: e instanceof easel.PermissionDeniedError,
              capabilityClass: e instanceof easel.CapabilityDisabledError,
            }),
          ),
        profile,
      );
    // connectionsAudience is editors: Bob (viewer) is refused.
    expect(await refusal(pages.bob, 'crm')).toEqual({
      name: 'PermissionDeniedError',
      code: 'PERMISSION_DENIED',
      status: 403,
      capability: null,
      permission: true,
      capabilityClass: false,
    });
    // A profile that exists but is not granted to this canvas.
    expect(await refusal(pages.carol, 'billing')).toEqual({
      name: 'CapabilityDisabledError',
      code: 'CAPABILITY_DISABLED',
      status: 403,
      capability: 'connections',
      permission: false,
      capabilityClass: true,
    });
    expect(upstream.received.length).toBe(before);
  });
});

describe('the dashboard shows AI spend', () => {
  /** The paths each dashboard page asked the server for. */
  const asked = new Map<Page, string[]>();
  const dashboard = async (cookie: string): Promise<Page> => {
    const context = await browser.newContext();
    contexts.push(context);
    const at = cookie.indexOf('=');
    await context.addCookies([{ name: cookie.slice(0, at), value: cookie.slice(at + 1), url: app.base }]);
    const page = await context.newPage();
    const paths: string[] = [];
    asked.set(page, paths);
    page.on('request', (r) => paths.push(new URL(r.url()).pathname));
    await page.goto(`${app.base}/`);
    return page;
  };
  const spendCell = (page: Page) => page.evaluate(() => document.querySelector('#canvases tbody tr td.ai-spend')?.textContent ?? null);

  test("owners see the canvas's month against its cap; viewers see no figure; admins get the instance breakdown", async () => {
    const usage = await api('GET', `/api/canvases/${canvas.id}/ai-usage`, { cookie: cookies.alice });
    expect(usage.budget.spentUsd).toBeGreaterThan(0);
    const expected = `$${usage.budget.spentUsd.toFixed(usage.budget.spentUsd < 0.01 ? 4 : 2)} of $${usage.budget.capUsd.toFixed(2)}`;

    const owner = await dashboard(cookies.alice);
    await owner.waitForFunction((want) => document.querySelector('#canvases tbody tr td.ai-spend')?.textContent === want, expected);
    expect(await owner.evaluate(() => document.querySelector<HTMLElement>('#canvases tbody tr td.ai-spend')!.title)).toBe(
      `${usage.totals.calls} AI calls in ${usage.budget.month}`,
    );
    // The figures came with the list: no request per canvas (a list of hundreds made hundreds, again on every keystroke of its search).
    expect(asked.get(owner)!.filter((p) => p.endsWith('/ai-usage'))).toEqual([]);
    expect(asked.get(owner)).toContain('/api/canvases');
    expect(await owner.evaluate(() => (document.getElementById('ai') as HTMLElement).hidden)).toBe(true);

    const viewer = await dashboard(cookies.bob);
    // The dashboard marks its list ready once every spend figure it asked for is in.
    await viewer.waitForSelector('#canvases[data-ready="true"]', { state: 'attached' });
    expect(await spendCell(viewer)).toBe('');

    const admin = await dashboard(cookies.admin);
    await admin.waitForFunction(() => !(document.getElementById('ai') as HTMLElement).hidden);
    const instance = await api('GET', '/api/admin/ai-usage', { cookie: cookies.admin });
    const rows = await admin.evaluate(() =>
      [...document.querySelectorAll('#ai-breakdown tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent)),
    );
    expect(rows).toContainEqual(['canvas', 'Ask', String(instance.byCanvas[0].calls), expect.stringMatching(/^\$\d/)]);
    expect(rows).toContainEqual([
      'model',
      MODEL,
      String(instance.byModel.find((m: { model: string }) => m.model === MODEL).calls),
      expect.stringMatching(/^\$\d/),
    ]);
    expect(rows.some((r) => r[0] === 'person' && r[1] === 'Carol')).toBe(true);
    expect(await admin.evaluate(() => document.getElementById('ai-total')!.textContent)).toContain(`in ${instance.totals.calls} calls`);
  });
});
