// passes: embedded, cluster
// Issue 23 item 18 (the parts about HTTP answers): the sign-in page cannot be
// framed, every JSON answer says `nosniff`, and the password gate is limited
// per canvas across all callers as well as per caller.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { GATE_ATTEMPTS_PER_CANVAS_PER_MIN, GATE_ATTEMPTS_PER_MIN } from '../src/serve/canvas-server.ts';
import { startTestApp, type TestApp } from './harness.ts';
import { pageCode } from './serve-fixtures.ts';
import { useWorld, World } from './world.ts';

/** The sha256 CSP source of each inline <tag> block of a page. */
const inlineHashes = (page: string, tag: string) =>
  [...page.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map(
    (m) => `'sha256-${new Bun.CryptoHasher('sha256').update(m[1]!).digest('base64')}'`,
  );

describe('the sign-in page refuses to be framed and runs nothing but its own inline code', () => {
  test.each(['dev', 'proxy'])('%s sign-in: a strict policy, X-Frame-Options DENY, nosniff', async (mode) => {
    const app = await startTestApp({ env: { EASEL_AUTH_MODE: mode } });
    try {
      const res = await app.request('/auth/login?returnTo=%2F');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toStartWith('text/html');
      const page = await res.text();
      const scripts = inlineHashes(page, 'script');
      const styles = inlineHashes(page, 'style');
      expect(res.headers.get('content-security-policy')).toBe(
        `default-src 'none'; style-src ${styles.join(' ') || "'none'"}; script-src ${scripts.join(' ') || "'none'"}; img-src 'self' data:; ` +
          "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
      );
      if (mode === 'dev') expect(scripts).toHaveLength(1);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('same-origin');
    } finally {
      await app.close();
    }
  });
});

describe("Easel's own pages on canvas URLs, and EASEL_CANVAS_CSP", () => {
  test('refusal and password pages: the strict policy with the canvas framing rule; an operator policy reaches canvas files only', async () => {
    const app = await startTestApp({ env: { EASEL_CANVAS_CSP: "default-src 'self'; script-src 'self' https://cdn.example" } });
    const w = await new World({ reset: 'none' }).attach(app);
    try {
      const c = await w.newCanvas({ files: { 'index.html': '<h1>hi</h1>' } });
      const file = await w.request('owner', `/c/${c.slug}/`);
      expect(file.headers.get('content-security-policy')).toBe(
        "default-src 'self'; script-src 'self' https://cdn.example; frame-ancestors 'self'",
      );
      const refusal = await w.request('stranger', `/c/${c.slug}/`);
      expect(refusal.status).toBe(404);
      const policy = refusal.headers.get('content-security-policy')!;
      expect(policy).toStartWith("default-src 'none'; style-src 'sha256-");
      expect(policy).toContain("script-src 'none'");
      expect(policy).toContain("frame-ancestors 'self'");
      expect(policy).not.toContain('cdn.example');
      await w.settings({ password: 'correct horse' }, c);
      const gate = await w.request('viewer', `/c/${c.slug}/`);
      expect(gate.status).toBe(403);
      expect(gate.headers.get('content-security-policy')).toContain("form-action 'self'");
    } finally {
      await app.close();
    }
  });

  test('an operator policy that names frame-ancestors is taken as it is; a policy with a line break stops the start', async () => {
    const app = await startTestApp({ env: { EASEL_CANVAS_CSP: "frame-ancestors 'none'; img-src 'self';" } });
    const w = await new World({ reset: 'none' }).attach(app);
    try {
      const c = await w.newCanvas({ files: { 'index.html': '<h1>hi</h1>' } });
      expect((await w.request('owner', `/c/${c.slug}/`)).headers.get('content-security-policy')).toBe(
        "frame-ancestors 'none'; img-src 'self'",
      );
    } finally {
      await app.close();
    }
    await expect(startTestApp({ env: { EASEL_CANVAS_CSP: "default-src 'self'\nX-Evil: 1" } })).rejects.toThrow('EASEL_CANVAS_CSP');
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
