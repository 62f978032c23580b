// Issue 23 item 18 (the parts about HTTP answers): the sign-in page cannot be
// framed, every JSON answer says `nosniff`, and the password gate is limited
// per canvas across all callers as well as per caller.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { GATE_ATTEMPTS_PER_CANVAS_PER_MIN, GATE_ATTEMPTS_PER_MIN } from '../src/serve/canvas-server.ts';
import { startTestApp, type TestApp } from './harness.ts';
import { pageCode } from './serve-fixtures.ts';
import { useWorld, World } from './world.ts';

describe('the sign-in page refuses to be framed', () => {
  test.each(['dev', 'proxy'])('%s sign-in: frame-ancestors none, X-Frame-Options DENY, nosniff', async (mode) => {
    const app = await startTestApp({ env: { EASEL_AUTH_MODE: mode } });
    try {
      const res = await app.request('/auth/login?returnTo=%2F');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toStartWith('text/html');
      expect(res.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    } finally {
      await app.close();
    }
  });
});

describe('every JSON answer sends X-Content-Type-Options: nosniff', () => {
  const w = useWorld({ canvas: { capabilities: { backend: true, kv: true }, files: { 'index.html': 'hi' } } });

  test('answers and refusals of every API family (Elysia-serialized ones included)', async () => {
    const slug = () => w.canvas.slug;
    const id = () => w.canvas.id;
    const key = { authorization: `Bearer ${w.canvas.apiKey}` };
    const sample: Array<[string, () => Promise<Response>]> = [
      ['health', () => w.app.request('/healthz')],
      ['/api/me', () => w.request('viewer', '/api/me')],
      ['/api/me anonymous (401)', () => w.request('anonymous', '/api/me')],
      ['no such route (404)', () => w.request('viewer', '/api/nope')],
      ['management body refused (400)', () => w.request('owner', '/api/canvases', { method: 'POST', json: { nope: 1 } })],
      ['cross-site write refused (403)', () => w.app.request('/auth/logout', { method: 'POST', origin: 'https://evil.example' })],
      ['admin route for a non-admin (404)', () => w.request('viewer', '/api/admin/users')],
      ['runtime read', () => w.request('viewer', `/v1/c/${slug()}/kv/missing`)],
      ['runtime write', () => w.request('owner', `/v1/c/${slug()}/kv/k`, { method: 'PUT', json: { v: 1 } })],
      ['runtime refusal (404)', () => w.request('stranger', `/v1/c/${slug()}/kv/k`)],
      ['deploy API read', () => w.app.request(`/v1/canvases/${id()}`, { headers: key })],
      ['deploy API refusal (401)', () => w.app.request(`/v1/canvases/${id()}`, { headers: { authorization: 'Bearer nope' } })],
    ];
    const seen: string[] = [];
    for (const [what, send] of sample) {
      const res = await send();
      const type = res.headers.get('content-type') ?? '';
      expect({ what, type }).toEqual({ what, type: expect.stringMatching(/^application\/json/) });
      expect({ what, status: res.status, nosniff: res.headers.get('x-content-type-options') }).toEqual({
        what,
        status: res.status,
        nosniff: 'nosniff',
      });
      seen.push(`${res.status}`);
    }
    expect(new Set(seen).size).toBeGreaterThan(4);
  });
});

describe('the password gate is limited per canvas across all callers', () => {
  let now = Date.UTC(2030, 0, 1, 0, 0, 5);
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ now: () => now, env: { EASEL_RATELIMIT_ENABLED: 'false' } });
  });
  afterAll(() => app.close());

  const attempt = (slug: string, cookie: string, password: string) =>
    app.request(`/c/${slug}/__easel/gate`, {
      method: 'POST',
      cookie,
      body: new URLSearchParams({ password }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });

  test(`${GATE_ATTEMPTS_PER_CANVAS_PER_MIN} callers with one guess each use up the canvas's minute; the next caller gets 429`, async () => {
    expect(GATE_ATTEMPTS_PER_CANVAS_PER_MIN).toBeGreaterThan(GATE_ATTEMPTS_PER_MIN);
    const cast = await new World().attach(app);
    // A Public link canvas with a password: anyone signed in reaches the gate.
    const gated = {
      members: false,
      guest: false,
      settings: { accessMode: 'public_link', password: 'the right one' },
      files: { 'index.html': 'hi' },
    };
    const canvas = await cast.newCanvas(gated);
    const other = await cast.newCanvas(gated);
    // Each guesser is another account (or address): each stays far below the per-visitor limit.
    const guessers: string[] = [];
    for (let i = 0; i <= GATE_ATTEMPTS_PER_CANVAS_PER_MIN; i++) guessers.push(await app.signIn(`guesser-${i}@example.com`));
    for (const cookie of guessers.slice(0, GATE_ATTEMPTS_PER_CANVAS_PER_MIN)) {
      // An empty password is a wrong one that costs no argon2 time; it counts all the same.
      expect((await attempt(canvas.slug, cookie, '')).status).toBe(403);
    }
    const late = await attempt(canvas.slug, guessers.at(-1)!, 'the right one');
    expect(late.status).toBe(429);
    expect(Number(late.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(pageCode(await late.text())).toBe('RATE_LIMITED');
    expect(late.headers.get('set-cookie')).toBeNull();
    // Another canvas is not affected; the next minute the canvas opens again.
    expect((await attempt(other.slug, guessers.at(-1)!, 'the right one')).status).toBe(303);
    now += 60_000;
    expect((await attempt(canvas.slug, guessers.at(-1)!, 'the right one')).status).toBe(303);
  });
});
