// passes: embedded — Chromium journeys; the API suites run their routes in the s3 and cluster passes
// The SDK in real headless Chromium: the README's example canvas, deployed
// through the Deploy API and opened by two signed-in people in two browser
// contexts (the owner and a viewer). Needs Debian's chromium at
// /usr/bin/chromium (.ci/run installs it because test/browser.enabled exists).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../harness.ts';
import { api as call, closeBrowserSuite, launchChromium, openCanvas, publishTeamRoom, waitForText } from './helpers.ts';

let app: TestApp;
let browser: Browser;
const people = { alice: { email: 'alice@example.com', name: 'Alice' }, bob: { email: 'bob@example.com', name: 'Bob' } };
const cookies: Record<keyof typeof people, string> = { alice: '', bob: '' };
let canvas: { id: string; slug: string; url: string };
const contexts: BrowserContext[] = [];

const api = (method: string, path: string, init: Parameters<typeof call>[3] = {}) => call(app, method, path, init);

const pageFor = (who: keyof typeof people): Promise<Page> =>
  openCanvas(browser, app, { cookie: cookies[who], slug: canvas.slug, label: who, contexts });

const text = (page: Page, selector: string) => page.locator(selector).innerText();

beforeAll(async () => {
  app = await startTestApp({ listen: true, env: { EASEL_RATELIMIT_ENABLED: 'false' } });
  cookies.alice = await app.signIn(people.alice.email, people.alice.name);
  cookies.bob = await app.signIn(people.bob.email, people.bob.name);
  canvas = await publishTeamRoom(app, cookies.alice, people.bob.email);
  browser = await launchChromium();
});

afterAll(() => closeBrowserSuite(contexts, browser, app));

describe('the README example canvas in Chromium, two people', () => {
  let alice: Page;
  let bob: Page;

  test('both pages load /sdk/v1.js and know who is looking (me)', async () => {
    alice = await pageFor('alice');
    bob = await pageFor('bob');
    expect(await text(alice, '#hello')).toBe('Hello, Alice (owner)');
    expect(await text(bob, '#hello')).toBe('Hello, Bob (viewer)');
    const me = await bob.evaluate(() => easel.me());
    expect(me).toMatchObject({ name: 'Bob', kind: 'member', canvasRole: 'viewer' });
    expect(await bob.evaluate(() => typeof easel.version)).toBe('string');
  });

  test('KV: the shared counter (owner writes, viewer reads and is refused), get/increment/list', async () => {
    await alice.click('#count');
    await waitForText(alice, '#total', '1');
    await alice.click('#count');
    await waitForText(alice, '#total', '2');
    expect(await text(alice, '#mine')).toBe('2');

    expect(await bob.evaluate(() => easel.kv.get('clicks'))).toBe(2);
    // The page asks me() what the viewer may do: their click counts as theirs, with no refusal shown.
    await bob.click('#count');
    await waitForText(bob, '#mine', '1');
    expect(await text(bob, '#status')).toBe('');
    expect(await bob.evaluate(() => easel.kv.get('clicks'))).toBe(2);
    // The server refuses the viewer's shared write all the same.
    const refused = await bob.evaluate(() => easel.kv.increment('clicks').catch((e) => `${e.name}: ${e.code}`));
    expect(refused).toBe('PermissionDeniedError: PERMISSION_DENIED');

    const listed = await alice.evaluate(async () => {
      await easel.kv.set('note', { by: 'alice' });
      return easel.kv.list({ prefix: '' });
    });
    expect(listed).toEqual({
      entries: [
        { key: 'clicks', value: 2 },
        { key: 'note', value: { by: 'alice' } },
      ],
      nextCursor: null,
    });
    expect(await alice.evaluate(() => easel.kv.increment('clicks', 10))).toBe(12);
    const missing = await bob.evaluate(() =>
      easel.kv.get('nope').catch((e) => ({ name: e.name, code: e.code, status: e.status, isEasel: e instanceof easel.EaselError })),
    );
    expect(missing).toEqual({ name: 'EaselError', code: 'NOT_FOUND', status: 404, isEasel: true });
  });

  test('kv.user: each person sees only their own', async () => {
    expect(await alice.evaluate(() => easel.kv.user.list())).toEqual({ entries: [{ key: 'clicks', value: 2 }], nextCursor: null });
    expect(await bob.evaluate(() => easel.kv.user.list())).toEqual({ entries: [{ key: 'clicks', value: 1 }], nextCursor: null });
    await bob.evaluate(() => easel.kv.user.set('secret', 'bob only'));
    expect(await alice.evaluate(() => easel.kv.user.get('secret').catch((e) => e.code))).toBe('NOT_FOUND');
    expect(await bob.evaluate(() => easel.kv.user.get('secret'))).toBe('bob only');
  });

  test('files: an upload from the page, listed with an absolute URL that serves the bytes', async () => {
    await alice.setInputFiles('#file', { name: 'plan.txt', mimeType: 'text/plain', buffer: Buffer.from('the plan') });
    await alice.waitForFunction(() => document.querySelectorAll('#files a').length === 1);
    const href = await alice.locator('#files a').getAttribute('href');
    expect(href).toMatch(new RegExp(`^${app.base}/v1/c/${canvas.slug}/files/[a-z0-9]+/content$`));
    expect(await text(alice, '#files li')).toBe('plan.txt (8 bytes)');
    // Bob sees the shared file and can read it with his own cookies.
    const content = await bob.evaluate(async (url) => (await fetch(url, { credentials: 'include' })).text(), href!);
    expect(content).toBe('the plan');
    const bobsList = await bob.evaluate(async () => (await easel.files.list()).map((f) => [f.name, f.scope]));
    expect(bobsList).toEqual([['plan.txt', 'shared']]);
    const upload = await alice.evaluate(async () => {
      const r = await easel.files.upload(new Blob(['x']));
      return { url: r.url, sync: easel.files.url(r.id), name: r.name };
    });
    expect(upload.url).toBe(upload.sync);
    expect(upload.name).toBe('upload');
  });

  test('realtime: chat both ways, presence, join and leave', async () => {
    await alice.waitForFunction(() => document.getElementById('who')!.innerText.split(', ').sort().join() === 'Alice,Bob');
    await alice.fill('#text', 'hello Bob');
    await alice.press('#text', 'Enter');
    await waitForText(bob, '#messages', 'Alice: hello Bob', 'contains');
    await bob.fill('#text', 'hi Alice');
    await bob.press('#text', 'Enter');
    for (const page of [alice, bob]) await waitForText(page, '#messages', 'Alice: hello Bob\nBob: hi Alice');

    // The raw API: the sender's own message, server-stamped `from`, presence.
    const got = await bob.evaluate(async () => {
      const ch = easel.realtime.channel('participants:chat');
      const seen: unknown[] = [];
      await ch.subscribe((m) => seen.push(m));
      // Resolved by its own echo, which is dispatched in the same turn.
      await ch.publish('ping', { n: 1 });
      return { seen, presence: await ch.presence() };
    });
    expect(got.seen).toEqual([
      { channel: 'participants:chat', event: 'ping', data: { n: 1 }, from: { id: expect.any(String), name: 'Bob', canvasRole: 'viewer' } },
    ]);
    expect(got.presence.map((u: { name: string }) => u.name).sort()).toEqual(['Alice', 'Bob']);

    // A viewer may not publish on an unconfigured channel without the participants: prefix.
    const refused = await bob.evaluate(() =>
      easel.realtime
        .channel('announcements')
        .publish('x', 1)
        .catch((e) => ({ name: e.name, code: e.code, denied: e instanceof easel.PermissionDeniedError })),
    );
    expect(refused).toEqual({ name: 'PermissionDeniedError', code: 'PERMISSION_DENIED', denied: true });

    await bob.close();
    await waitForText(alice, '#who', 'Alice');
  });

  test('error classes: a switched-off capability is a CapabilityDisabledError (HTTP and realtime)', async () => {
    await api('PATCH', `/api/canvases/${canvas.id}/capabilities`, { cookie: cookies.alice, json: { kv: false } });
    const kvOff = await alice.evaluate(() =>
      easel.kv.get('clicks').catch((e) => ({
        name: e.name,
        code: e.code,
        status: e.status,
        capability: e.capability,
        reason: e.reason,
        hasHint: typeof e.hint === 'string' && e.hint.length > 0,
        classes: [e instanceof easel.CapabilityDisabledError, e instanceof easel.EaselError, e instanceof Error],
      })),
    );
    expect(kvOff).toEqual({
      name: 'CapabilityDisabledError',
      code: 'CAPABILITY_DISABLED',
      status: 403,
      capability: 'kv',
      reason: 'feature_off',
      hasHint: true,
      classes: [true, true, true],
    });

    // Realtime switched off while the page is open: the socket hears 4403 and does not come back.
    await alice.evaluate(() => {
      const w = window as unknown as { closes: unknown[] };
      w.closes = [];
      easel.realtime.onClose((e) => w.closes.push(e));
    });
    await api('PATCH', `/api/canvases/${canvas.id}/capabilities`, { cookie: cookies.alice, json: { kv: true, realtime: false } });
    const closes = () => alice.evaluate(() => (window as unknown as { closes: unknown[] }).closes);
    await alice.waitForFunction(() => (window as unknown as { closes: unknown[] }).closes.length > 0);
    expect(await closes()).toEqual([{ code: 4403, reason: expect.any(String), willReconnect: false }]);
    const rtOff = await alice.evaluate(() =>
      easel.realtime
        .channel('participants:chat')
        .presence()
        .catch((e) => ({ name: e.name, code: e.code, capability: e.capability, reason: e.reason, hint: e.hint })),
    );
    expect(rtOff).toEqual({
      name: 'CapabilityDisabledError',
      code: 'CAPABILITY_DISABLED',
      capability: 'realtime',
      reason: 'feature_off',
      hint: expect.stringMatching(/realtime/),
    });

    // A fresh page shows the hint instead of the chat.
    const again = await pageFor('alice');
    expect(await text(again, '#status')).toMatch(/^realtime is off: The canvas owner can turn on realtime/);
  });
});
