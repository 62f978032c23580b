// passes: embedded, cluster
// Cross-site request forgery on the dashboard's routes (issue 23, items 2 and
// 12; CONTRACT §9 "Decided 2026-11-23"). Over plain http a browser sends no
// Sec-Fetch-* headers, and a page on a sibling host (another canvas host in
// subdomain mode, another port of localhost) is same-site, so the session
// cookie (SameSite=Lax) rides along: these requests are exactly what such a
// page makes the visitor's browser send. Only the Origin tells them apart.
import { describe, expect, test } from 'bun:test';
import { dashboardOrigin } from '../src/http/cross-site.ts';
import { expectCode } from './expect-code.ts';
import { body } from './harness.ts';
import { useWorld } from './world.ts';

const w = useWorld();
const dashboard = () => dashboardOrigin(w.app.ctx.config);

/** What a browser sends for a page elsewhere: its Origin (no Sec-Fetch-* over plain http). */
const ATTACKERS: Array<[string, string | null]> = [
  ['a sibling canvas host', 'http://beta.localhost:0'],
  ['another port of the same host', 'http://localhost:1'],
  ['another site', 'https://evil.example'],
  ['an opaque origin (sandboxed frame, data: URL)', 'null'],
  ['no Origin and no Sec-Fetch-Site (an old browser, a bare form post)', null],
];

describe('unsafe management requests from anywhere but the dashboard are refused', () => {
  const attacks: Array<[string, (id: string) => string, string]> = [
    ['regenerate the deploy key', (id) => `/api/canvases/${id}/regenerate-key`, 'POST'],
    ['archive the canvas', (id) => `/api/canvases/${id}/archive`, 'POST'],
    ['mint a guest invite', (id) => `/api/canvases/${id}/guest-invites`, 'POST'],
    ['delete the canvas', (id) => `/api/canvases/${id}`, 'DELETE'],
  ];
  for (const [what, path, method] of attacks) {
    test(`${what}: 403 CROSS_SITE_FORBIDDEN from every other origin, and nothing changes`, async () => {
      const before = JSON.stringify(await w.stored());
      for (const [, origin] of ATTACKERS) {
        const res = await w.request('owner', path(w.canvas.id), { method, origin } as RequestInit);
        await expectCode(res, 403, 'CROSS_SITE_FORBIDDEN');
      }
      expect(JSON.stringify(await w.stored())).toBe(before);
    });
  }

  test('the admin API too (disable a canvas as a visiting admin)', async () => {
    const before = JSON.stringify(await w.stored());
    for (const [, origin] of ATTACKERS) {
      const res = await w.request('admin', `/api/admin/canvases/${w.canvas.id}/disable`, { method: 'POST', origin } as RequestInit);
      await expectCode(res, 403, 'CROSS_SITE_FORBIDDEN');
    }
    expect(JSON.stringify(await w.stored())).toBe(before);
  });

  test('a request claiming Sec-Fetch-Site: same-origin from another Origin is still refused', async () => {
    const res = await w.request('owner', `/api/canvases/${w.canvas.id}/archive`, {
      method: 'POST',
      headers: { origin: 'http://beta.localhost:0', 'sec-fetch-site': 'same-origin' },
    });
    await expectCode(res, 403, 'CROSS_SITE_FORBIDDEN');
  });

  test('from the dashboard (its Origin, or Sec-Fetch-Site: same-origin alone) the same requests work', async () => {
    const viaOrigin = await w.request('owner', `/api/canvases/${w.canvas.id}/archive`, {
      method: 'POST',
      origin: dashboard(),
    } as RequestInit);
    expect(viaOrigin.status).toBe(200);
    const viaFetchMetadata = await w.request('owner', `/api/canvases/${w.canvas.id}/restore`, {
      method: 'POST',
      origin: null,
      headers: { 'sec-fetch-site': 'same-origin' },
    } as RequestInit);
    expect(viaFetchMetadata.status).toBe(200);
  });

  test('safe methods are not affected: a GET without Origin still reads', async () => {
    const res = await w.request('owner', `/api/canvases/${w.canvas.id}`, { origin: null } as RequestInit);
    expect(res.status).toBe(200);
  });

  test('a script with a bearer token and no Origin is not taken for a forged browser request (it reaches authentication)', async () => {
    const res = await w.app.request('/api/canvases', {
      method: 'POST',
      origin: null,
      headers: { authorization: 'Bearer easel_pat_not-a-real-token' },
      json: { title: 'From a script' },
    });
    expect({ status: res.status, body: await body(res) }).toEqual({ status: 401, body: { error: 'unauthorized' } });
  });
});

describe('sign-out and dev sign-in follow the same rule', () => {
  const signedIn = async (cookie: string) => (await w.app.request('/api/me', { cookie })).status === 200;

  test('POST /auth/logout from another origin: 403, and the session still works', async () => {
    const cookie = await w.app.signIn(`logout-${crypto.randomUUID()}@example.com`);
    for (const [, origin] of ATTACKERS) {
      await expectCode(await w.app.request('/auth/logout', { method: 'POST', cookie, origin }), 403, 'CROSS_SITE_FORBIDDEN');
    }
    expect(await signedIn(cookie)).toBe(true);
    expect((await w.app.request('/auth/logout', { method: 'POST', cookie, origin: dashboard() })).status).toBe(200);
    expect(await signedIn(cookie)).toBe(false);
  });

  test('POST /auth/dev/login from another origin: 403, no session and no account made', async () => {
    const users = async () => (await w.app.ctx.users.list()).length;
    const before = await users();
    for (const [, origin] of ATTACKERS) {
      const res = await w.app.request('/auth/dev/login', { method: 'POST', origin, json: { email: 'attacker@evil.example' } });
      await expectCode(res, 403, 'CROSS_SITE_FORBIDDEN');
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    expect(await users()).toBe(before);
  });

  test('POST /auth/dev/login takes JSON only: a form post (the kind any page can send) signs nobody in', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const cross = await w.app.request('/auth/dev/login', {
      method: 'POST',
      origin: 'https://evil.example',
      headers: form,
      body: 'email=attacker%40evil.example',
    });
    await expectCode(cross, 403, 'CROSS_SITE_FORBIDDEN');
    const same = await w.app.request('/auth/dev/login', { method: 'POST', headers: form, body: 'email=attacker%40evil.example' });
    await expectCode(same, 400, 'INVALID_BODY');
    expect(same.headers.get('set-cookie')).toBeNull();
    expect((await w.app.ctx.users.list()).some((u) => u.email === 'attacker@evil.example')).toBe(false);
  });
});
