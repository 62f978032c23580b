// passes: embedded, cluster
// Issue 23 item 1: in subdomain mode every session is host-only; a canvas
// host gets its own through a one-time handoff from the base host. The code
// is single-use, expires within a minute, is bound to one canvas and to the
// browser that began the handoff on that canvas's host; a canvas session
// counts on its own host only and ends with the base session it came from.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { HANDOFF_CODE_TTL_MS } from '../src/auth/handoff.ts';
import { sha256Hex } from '../src/ids.ts';
import { beginHandoff, canvasHostCookie, setCookieValue } from './canvas-host-session.ts';
import { body, startTestApp, type TestApp } from './harness.ts';
import { pageCode } from './serve-fixtures.ts';
import { World, type WorldCanvas } from './world.ts';

const HOST = 'easel.test:8080';
let clock = Date.now();
let app: TestApp;
let cast: World;
let alpha: WorldCanvas;
let beta: WorldCanvas;

beforeAll(async () => {
  app = await startTestApp({ now: () => clock, env: { EASEL_URL_MODE: 'subdomain', EASEL_BASE_URL: `http://${HOST}` } });
  cast = await new World().attach(app);
  alpha = await cast.newCanvas({ files: { 'index.html': 'alpha' } });
  beta = await cast.newCanvas({ files: { 'index.html': 'beta' } });
});
afterAll(() => app.close());

const on = (slug: string, path: string, cookie = '') => app.request(path, { cookie, headers: { host: `${slug}.${HOST}` } });
const onBase = (path: string, cookie = '', method = 'GET') => app.request(path, { method, cookie, headers: { host: HOST } });
const codeOf = (exchange: string) => new URL(exchange, 'http://x').searchParams.get('code')!;
const invalid = async (res: Response) => res.status === 400 && pageCode(await res.text()) === 'HANDOFF_INVALID';

describe('the handoff code', () => {
  test('trades once for a session on its canvas host; a replay is refused', async () => {
    const { state, exchange } = await beginHandoff(app, HOST, alpha.slug, cast.cookie.viewer);
    const first = await on(alpha.slug, exchange, state);
    expect(first.status).toBe(303);
    const session = setCookieValue(first, 'easel_session')!;
    expect((await on(alpha.slug, '/', session)).status).toBe(200);
    expect(await invalid(await on(alpha.slug, exchange, state))).toBe(true);
  });

  test('is refused on another canvas host, and is used up by the try', async () => {
    const { state, exchange } = await beginHandoff(app, HOST, alpha.slug, cast.cookie.viewer);
    expect(await invalid(await on(beta.slug, exchange, state))).toBe(true);
    expect(await invalid(await on(alpha.slug, exchange, state))).toBe(true);
  });

  test('needs the state cookie of the browser that began it (a handoff started elsewhere is refused)', async () => {
    const { exchange } = await beginHandoff(app, HOST, alpha.slug, cast.cookie.viewer);
    expect(await invalid(await on(alpha.slug, exchange))).toBe(true);
    // A page that forges the start (its own state hash) gets a code nobody can trade.
    const forged = await onBase(`/auth/handoff?canvas=${alpha.slug}&state=${sha256Hex('attacker')}&next=%2F`, cast.cookie.viewer);
    expect(forged.status).toBe(302);
    const stolen = new URL(forged.headers.get('location')!);
    const someoneElse = await beginHandoff(app, HOST, alpha.slug, cast.cookie.editor);
    expect(await invalid(await on(alpha.slug, stolen.pathname + stolen.search, someoneElse.state))).toBe(true);
  });

  test('expires after a minute', async () => {
    const { state, exchange } = await beginHandoff(app, HOST, alpha.slug, cast.cookie.viewer);
    clock += HANDOFF_CODE_TTL_MS;
    expect(await invalid(await on(alpha.slug, exchange, state))).toBe(true);
  });

  test('malformed requests are refused plainly, and the way back never leaves the canvas host', async () => {
    expect(await invalid(await on(alpha.slug, '/__easel/handoff?code=short'))).toBe(true);
    for (const bad of [
      'canvas=Not_A_Label&state=' + 'a'.repeat(64),
      `canvas=${alpha.slug}&state=short`,
      `canvas=${alpha.slug}&state=${'a'.repeat(64)}&next=http://evil.example/`,
    ]) {
      expect((await onBase(`/auth/handoff?${bad}`, cast.cookie.viewer)).status).toBe(400);
    }
    const { state, exchange } = await beginHandoff(app, HOST, alpha.slug, cast.cookie.viewer, '//evil.example/x');
    const back = await on(alpha.slug, exchange, state);
    expect([back.status, back.headers.get('location')]).toEqual([303, '/']);
  });

  test('codes and states are stored as hashes only', async () => {
    const { state, exchange } = await beginHandoff(app, HOST, alpha.slug, cast.cookie.viewer);
    const rows = await app.ctx.sql.all<{ code_hash: string; state_hash: string }>('SELECT code_hash, state_hash FROM sign_in_handoffs');
    const code = codeOf(exchange);
    const plain = state.split('=')[1]!;
    expect(rows.some((r) => r.code_hash === sha256Hex(code) && r.state_hash === sha256Hex(plain))).toBe(true);
    expect(JSON.stringify(rows)).not.toContain(code);
    expect(JSON.stringify(rows)).not.toContain(plain);
  });
});

describe('sessions stay on their host', () => {
  test("the base session opens no canvas host; a canvas session opens neither the base host nor another canvas's", async () => {
    expect((await on(alpha.slug, '/', cast.cookie.viewer)).status).toBe(302);
    const alphaSession = await canvasHostCookie(app, HOST, alpha.slug, cast.cookie.viewer);
    expect((await onBase('/api/me', alphaSession)).status).toBe(401);
    expect((await on(beta.slug, '/', alphaSession)).status).toBe(302);
    expect((await on(beta.slug, `/v1/c/${beta.slug}/me`, alphaSession)).status).toBe(401);
    // Its own host: pages, the SDK and its runtime API, same origin.
    expect((await on(alpha.slug, '/', alphaSession)).status).toBe(200);
    expect((await on(alpha.slug, '/sdk/v1.js', alphaSession)).status).toBe(200);
    const me = await on(alpha.slug, `/v1/c/${alpha.slug}/me`, alphaSession);
    expect([me.status, (await body(me)).id]).toEqual([200, cast.ids.viewer]);
    // Another canvas's API is not answered on this host at all: it is a missing page of this canvas.
    expect((await on(alpha.slug, `/v1/c/${beta.slug}/me`, alphaSession)).status).toBe(404);
  });

  test('a slug given up and taken by another canvas does not inherit the sessions of its host', async () => {
    const old = await cast.newCanvas({ files: { 'index.html': 'old' } });
    const session = await canvasHostCookie(app, HOST, old.slug, cast.cookie.owner);
    expect((await on(old.slug, '/', session)).status).toBe(200);
    const slug = old.slug;
    const renamed = await app.request(`/api/canvases/${old.id}`, {
      method: 'PATCH',
      cookie: cast.cookie.owner,
      json: { slug: `${slug}-moved` },
    });
    expect(renamed.status).toBe(200);
    const taker = await cast.newCanvas({ slug, files: { 'index.html': 'new' } });
    expect(taker.slug).toBe(slug);
    expect((await on(slug, '/', session)).status).toBe(302);
  });

  test('signing out on the base host ends the canvas sessions made from it', async () => {
    const base = await app.signIn('leaving@example.com');
    await cast.expectOk('PUT', `/api/canvases/${alpha.id}/members`, 'owner', { email: 'leaving@example.com', role: 'viewer' });
    const hosted = await canvasHostCookie(app, HOST, alpha.slug, base);
    expect((await on(alpha.slug, '/', hosted)).status).toBe(200);
    expect((await onBase('/auth/logout', base, 'POST')).status).toBe(200);
    expect((await on(alpha.slug, '/', hosted)).status).toBe(302);
  });

  test('a guest link opens its canvas on its host through the same handoff, and no other', async () => {
    const { guestCookie } = await cast.openGuestInvite(alpha.id);
    const { state, exchange } = await beginHandoff(app, HOST, alpha.slug, guestCookie);
    const done = await on(alpha.slug, exchange, state);
    expect(done.status).toBe(303);
    const hosted = setCookieValue(done, 'easel_guest')!;
    expect((await on(alpha.slug, '/', hosted)).status).toBe(200);
    // For another canvas the base host vouches for nobody: the guest is sent to sign in.
    const begin = await on(beta.slug, '/');
    const toBase = new URL(begin.headers.get('location')!);
    const vouch = await onBase(toBase.pathname + toBase.search, guestCookie);
    expect(vouch.headers.get('location')).toStartWith('/auth/login?');
  });
});

describe('over https', () => {
  test('the credential cookies carry the __Host- prefix, host-only and Secure', async () => {
    const secure = await startTestApp({ env: { EASEL_URL_MODE: 'subdomain', EASEL_BASE_URL: 'https://easel.test' } });
    try {
      const people = await new World().attach(secure);
      const c = await people.newCanvas({ files: { 'index.html': 'hi' } });
      const begin = await secure.request('/', { headers: { host: `${c.slug}.easel.test` } });
      const state = begin.headers.getSetCookie().find((l) => l.startsWith('__Host-easel_handoff='))!;
      expect(state).toContain('; Path=/;');
      expect(state).toEndWith('; Secure');
      expect(state).not.toContain('Domain=');
      const signedIn = await secure.request('/auth/dev/login', {
        method: 'POST',
        json: { email: 'someone@example.com' },
        headers: { host: 'easel.test' },
      });
      const session = signedIn.headers.getSetCookie().find((l) => l.startsWith('__Host-easel_session='))!;
      expect(session).toEndWith('; Secure');
      expect(session).not.toContain('Domain=');
    } finally {
      await secure.close();
    }
  });
});

describe('sign in as someone else on a canvas host', () => {
  test("a refusal names who is signed in; the switch link ends this host's session and goes to the instance's sign-in, back to the page", async () => {
    const hostCookie = await canvasHostCookie(app, HOST, alpha.slug, cast.cookie.stranger);
    const refused = await on(alpha.slug, '/deep/page.html', hostCookie);
    expect(refused.status).toBe(404);
    const text = await refused.text();
    expect(text).toContain(`Signed in as <strong>${cast.emails.stranger}</strong>`);
    expect(text).toContain(`href="/__easel/switch?next=${encodeURIComponent('/deep/page.html')}"`);
    const switched = await on(alpha.slug, `/__easel/switch?next=${encodeURIComponent('/deep/page.html')}`, hostCookie);
    expect(switched.status).toBe(302);
    expect(switched.headers.get('location')).toBe(
      `http://${HOST}/auth/login?switch=1&returnTo=${encodeURIComponent(`http://${alpha.slug}.${HOST}/deep/page.html`)}`,
    );
    expect(setCookieValue(switched, 'easel_session')).toBe('easel_session=');
    // The host session is gone: the next visit there begins a sign-in.
    const after = await on(alpha.slug, '/', hostCookie);
    expect(after.status).toBe(302);
    expect(after.headers.get('location')).toStartWith(`http://${HOST}/auth/handoff?`);
    // The way back never leaves the canvas host.
    const evil = await on(alpha.slug, '/__easel/switch?next=https://evil.example/', hostCookie);
    expect(evil.headers.get('location')).toBe(
      `http://${HOST}/auth/login?switch=1&returnTo=${encodeURIComponent(`http://${alpha.slug}.${HOST}/`)}`,
    );
  });
});
