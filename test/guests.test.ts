// passes: embedded, cluster
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { body, startTestApp, type TestApp } from './harness.ts';
import { ADMIN_EMAIL, guestCookie, apiCanvas, makeWorld, pathOf, type World } from './runtime-fixtures.ts';

describe('legacy guests', () => {
  let app: TestApp;
  let w: World;
  let clock = Date.UTC(2030, 5, 1);
  beforeAll(async () => {
    app = await startTestApp({ now: () => clock, env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_RATELIMIT_ENABLED: 'false' } });
    w = await makeWorld(app);
  });
  afterAll(() => app.close());

  const invite = (cookie: string, json: unknown = {}, canvasId = w.canvas.id) =>
    app.request(`/api/canvases/${canvasId}/guest-invites`, { method: 'POST', cookie, json });
  const me = (cookie: string, slug = w.slug) => app.request(`/v1/c/${slug}/me`, { cookie });

  test('owner, editor and admin create invites: 201 {inviteId, url}; everyone else 404, anonymous 401', async () => {
    for (const who of ['owner', 'editor', 'admin'] as const) {
      const res = await invite(w.cookie[who]);
      expect(res.status).toBe(201);
      // The answer holds the link's token: no cache keeps it.
      expect(res.headers.get('cache-control')).toBe('no-store');
      const b = await body(res);
      expect(b).toEqual({
        inviteId: expect.stringMatching(/^[0-9a-z]{20}$/),
        url: expect.stringMatching(new RegExp(`^${app.ctx.config.baseUrl}/auth/guest\\?token=[A-Za-z0-9]{32}$`)),
        expiresAt: expect.any(Number),
      });
    }
    for (const who of ['viewer', 'stranger', 'guest'] as const) {
      const res = await invite(w.cookie[who]);
      expect(res.status).toBe(who === 'guest' ? 401 : 404);
    }
    expect(await body(await invite(''))).toEqual({ error: 'unauthorized' });
    const unknown = await invite(w.cookie.owner, {}, 'nosuchcanvas00000000');
    expect(unknown.status).toBe(404);
    expect((await body(unknown)).code).toBe('NOT_FOUND');
  });

  test('POST /auth/logout ends a guest session too and clears the guest cookie', async () => {
    const guest = await guestCookie(app, w.canvas.id, w.cookie.owner);
    expect((await me(guest.cookie)).status).toBe(200);
    const res = await app.request('/auth/logout', { method: 'POST', cookie: guest.cookie });
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie().some((c) => c.startsWith('easel_guest=;') && c.includes('Max-Age=0'))).toBe(true);
    expect((await me(guest.cookie)).status).toBe(401);
  });

  test('a bad body is 400 INVALID_BODY', async () => {
    for (const json of [{ name: '' }, { name: 'x'.repeat(101) }, { name: 5 }, { other: 1 }, [1]]) {
      const res = await invite(w.cookie.owner, json);
      expect(res.status).toBe(400);
      expect((await body(res)).code).toBe('INVALID_BODY');
    }
    const broken = await app.request(`/api/canvases/${w.canvas.id}/guest-invites`, {
      method: 'POST',
      cookie: w.cookie.owner,
      body: '{oops',
      headers: { 'content-type': 'application/json' },
    });
    expect(broken.status).toBe(400);
  });

  test('opening the link sets a guest session cookie and redirects to the canvas', async () => {
    const { url, inviteId } = await body(await invite(w.cookie.owner, { name: 'Visitor' }));
    const token = new URL(url).searchParams.get('token')!;
    const res = await app.request(pathOf(url));
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${app.ctx.config.baseUrl}/c/${w.slug}/`);
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^easel_guest=[A-Za-z0-9]{32}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
    const identity = await body(await me(cookie.split(';')[0]!));
    expect(identity).toMatchObject({ id: `guest:${inviteId}`, name: 'Visitor', kind: 'guest', canvasRole: 'viewer', email: null });
    const stored =
      JSON.stringify(await app.ctx.sql.all('SELECT * FROM guest_invites')) +
      JSON.stringify(await app.ctx.sql.all('SELECT * FROM guest_sessions'));
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(cookie.split(';')[0]!.split('=')[1]!);
    expect(JSON.stringify(app.nodes.map((node) => node.logs))).not.toContain(token);
  });

  test('a guest is NOT_INVITED on any other canvas, even one open to the whole org', async () => {
    const other = await apiCanvas(app, w.cookie.owner, { settings: { accessMode: 'whole_org' } });
    const res = await me(w.cookie.guest, other.slug);
    expect(res.status).toBe(404);
    expect((await body(res)).code).toBe('NOT_INVITED');
  });

  test('guests skip the password gate', async () => {
    const gated = await apiCanvas(app, w.cookie.owner, { settings: { password: 'hash' }, members: [[w.ids.viewer, 'viewer']] });
    const guest = await guestCookie(app, gated.id, w.cookie.owner);
    expect((await me(guest.cookie, gated.slug)).status).toBe(200);
    expect((await body(await me(w.cookie.viewer, gated.slug))).code).toBe('PASSWORD_REQUIRED');
  });

  test('a signed-in user with a guest cookie acts as themselves', async () => {
    const both = `${w.cookie.stranger}; ${w.cookie.guest}`;
    expect((await body(await me(both))).code).toBe('OWNER_ONLY');
  });

  test('list invites (no tokens); revoking ends its sessions at once; revoking twice is fine; unknown invite 404', async () => {
    const g = await guestCookie(app, w.canvas.id, w.cookie.owner, 'Temp');
    expect((await me(g.cookie)).status).toBe(200);
    const listed = await body(await app.request(`/api/canvases/${w.canvas.id}/guest-invites`, { cookie: w.cookie.editor }));
    const entry = listed.invites.find((i: any) => i.inviteId === g.inviteId);
    expect(entry).toEqual({
      inviteId: g.inviteId,
      name: 'Temp',
      createdBy: w.ids.owner,
      createdAt: clock,
      expiresAt: clock + 14 * 24 * 3600 * 1000,
      revokedAt: null,
      active: true,
    });
    expect(JSON.stringify(listed)).not.toContain(new URL(g.url).searchParams.get('token')!);
    expect(
      (await app.request(`/api/canvases/${w.canvas.id}/guest-invites/${g.inviteId}`, { method: 'DELETE', cookie: w.cookie.viewer })).status,
    ).toBe(404);
    const res = await app.request(`/api/canvases/${w.canvas.id}/guest-invites/${g.inviteId}`, { method: 'DELETE', cookie: w.cookie.owner });
    expect(res.status).toBe(200);
    expect(await body(res)).toEqual({ ok: true });
    expect(await body(await me(g.cookie))).toEqual({ error: 'unauthorized' });
    const reopen = await app.request(pathOf(g.url));
    expect(reopen.status).toBe(404);
    expect(reopen.headers.get('set-cookie')).toBeNull();
    expect(
      (await app.request(`/api/canvases/${w.canvas.id}/guest-invites/${g.inviteId}`, { method: 'DELETE', cookie: w.cookie.owner })).status,
    ).toBe(200);
    const unknown = await app.request(`/api/canvases/${w.canvas.id}/guest-invites/nosuchinvite0000000`, {
      method: 'DELETE',
      cookie: w.cookie.owner,
    });
    expect(unknown.status).toBe(404);
    const elsewhere = await apiCanvas(app, w.cookie.owner);
    expect(
      (
        await app.request(`/api/canvases/${elsewhere.id}/guest-invites/${w.ids.guest.slice(6)}`, {
          method: 'DELETE',
          cookie: w.cookie.owner,
        })
      ).status,
    ).toBe(404);
    expect((await me(w.cookie.guest)).status).toBe(200);
  });

  test('an invalid link answers a 404 page and no cookie', async () => {
    for (const path of ['/auth/guest', '/auth/guest?token=short', `/auth/guest?token=${'A'.repeat(32)}`]) {
      const res = await app.request(path);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.headers.get('set-cookie')).toBeNull();
    }
  });

  test('a deleted canvas takes its guests with it', async () => {
    const c = await apiCanvas(app, w.cookie.owner);
    const g = await guestCookie(app, c.id, w.cookie.owner);
    expect((await app.request(`/api/canvases/${c.id}`, { method: 'DELETE', cookie: w.cookie.owner })).status).toBe(200);
    expect((await body(await me(g.cookie, c.slug))).code).toBe('NOT_FOUND');
    expect((await app.request(pathOf(g.url))).status).toBe(404);
  });

  test('guest sessions expire with the session lifetime', async () => {
    const g = await guestCookie(app, w.canvas.id, w.cookie.owner);
    clock += app.ctx.config.sessionTtlHours * 3600_000 + 1;
    expect((await me(g.cookie)).status).toBe(401);
  });
});

describe('guest invite management rate limit', () => {
  test('the management class applies: 429 {error: rate_limited} with Retry-After', async () => {
    const fixed = Date.UTC(2030, 0, 1, 0, 0, 10);
    const app = await startTestApp({ now: () => fixed, env: { EASEL_RATELIMIT_MANAGEMENT_PER_MIN: '2' } });
    const owner = await app.signIn('owner@example.com');
    // Creating the canvas is the first hit of the minute; this list is the second.
    const created = await app.request('/api/canvases', { method: 'POST', cookie: owner, json: { title: 'Limited' } });
    const w = { canvas: { id: (await body(created)).id as string }, cookie: { owner } };
    expect((await app.request(`/api/canvases/${w.canvas.id}/guest-invites`, { cookie: w.cookie.owner })).status).toBe(200);
    const res = await app.request(`/api/canvases/${w.canvas.id}/guest-invites`, { cookie: w.cookie.owner });
    expect(res.status).toBe(429);
    expect(await body(res)).toEqual({ error: 'rate_limited' });
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    await app.close();
  });
});
