// passes: embedded, cluster
// Personal access tokens (issue 17 item 1): shown once, stored as SHA-256,
// acting as their user on /api/* and /mcp only.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { adminUser } from './admin-actions.ts';
import { diskText } from './disk-text.ts';
import { expectCode } from './expect-code.ts';
import { body, startTestApp, type TestApp } from './harness.ts';
import { ADMIN_EMAIL, World } from './world.ts';

let app: TestApp;
let w: World;
let clock = Date.now();

beforeAll(async () => {
  app = await startTestApp({ now: () => clock, env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_RATELIMIT_ENABLED: 'false' } });
  w = await new World().attach(app);
});
afterAll(() => app.close());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
async function newToken(who: 'owner' | 'viewer' = 'owner', json: Record<string, unknown> = { name: 'ci' }) {
  const res = await w.request(who, '/api/tokens', { method: 'POST', json });
  expect(res.status).toBe(201);
  return body(res);
}

describe('personal access tokens', () => {
  test('POST answers 201 {id, name, token, createdAt, expiresAt} once; GET lists them without secrets, with lastUsedAt', async () => {
    const created = await newToken('owner', { name: 'deploy bot', expiresAt: clock + 3600_000 });
    expect(Object.keys(created).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'name', 'token']);
    expect(created.token).toMatch(/^easel_pat_[0-9A-Za-z]{40}$/);
    expect(created).toMatchObject({ name: 'deploy bot', createdAt: clock, expiresAt: clock + 3600_000 });
    const listed = (await w.expectOk('GET', '/api/tokens', 'owner')).tokens.find((t: any) => t.id === created.id);
    expect(listed).toEqual({ id: created.id, name: 'deploy bot', createdAt: clock, expiresAt: clock + 3600_000, lastUsedAt: null });
    expect((await app.request('/api/me', { headers: bearer(created.token) })).status).toBe(200);
    expect((await w.expectOk('GET', '/api/tokens', 'owner')).tokens.find((t: any) => t.id === created.id).lastUsedAt).toBe(clock);
  });

  test('a token acts as its user on /api/*, writes included (a script sends no Origin)', async () => {
    const { token } = await newToken();
    const me = await body(await app.request('/api/me', { headers: bearer(token) }));
    expect(me.email).toBe(w.emails.owner);
    const made = await app.request('/api/canvases', {
      method: 'POST',
      origin: null,
      headers: bearer(token),
      json: { title: 'From a script' },
    });
    expect(made.status).toBe(201);
    expect((await body(made)).ownerId).toBe(w.ids.owner);
  });

  test('never on canvas pages or the runtime API', async () => {
    const { token } = await newToken('viewer');
    expect((await app.request(`/c/${w.canvas.slug}/`, { headers: bearer(token) })).status).toBe(302);
    expect((await app.request(`/v1/c/${w.canvas.slug}/me`, { headers: bearer(token) })).status).toBe(401);
  });

  test('a bad token is nobody, even beside a valid session cookie; malformed, unknown, revoked, expired or of a deactivated user → 401', async () => {
    const withCookie = await app.request('/api/me', { cookie: w.cookie.owner, headers: bearer('easel_pat_' + 'x'.repeat(40)) });
    expect(withCookie.status).toBe(401);
    expect((await app.request('/api/me', { headers: bearer('not-a-token') })).status).toBe(401);

    const revoked = await newToken();
    await w.expectOk('DELETE', `/api/tokens/${revoked.id}`, 'owner');
    expect((await app.request('/api/me', { headers: bearer(revoked.token) })).status).toBe(401);

    const expiring = await newToken('owner', { name: 'short', expiresAt: clock + 1000 });
    expect((await app.request('/api/me', { headers: bearer(expiring.token) })).status).toBe(200);
    clock += 1000;
    expect((await app.request('/api/me', { headers: bearer(expiring.token) })).status).toBe(401);

    const viewers = await newToken('viewer');
    await adminUser(app, w.cookie.admin, w.ids.viewer, { active: false });
    expect((await app.request('/api/me', { headers: bearer(viewers.token) })).status).toBe(401);
    await adminUser(app, w.cookie.admin, w.ids.viewer, { active: true });
    expect((await app.request('/api/me', { headers: bearer(viewers.token) })).status).toBe(200);
  });

  test("each person sees and deletes only their own: another's id is 404", async () => {
    const mine = await newToken('owner');
    expect((await w.expectOk('GET', '/api/tokens', 'viewer')).tokens.some((t: any) => t.id === mine.id)).toBe(false);
    await expectCode(await w.request('viewer', `/api/tokens/${mine.id}`, { method: 'DELETE' }), 404, 'NOT_FOUND');
    expect((await app.request('/api/me', { headers: bearer(mine.token) })).status).toBe(200);
  });

  test('a token cannot mint tokens: managing them needs the session; a token sees and revokes only itself', async () => {
    const short = await newToken('owner', { name: 'ci, one hour', expiresAt: clock + 3600_000 });
    const other = await newToken('owner', { name: 'laptop' });
    const before = (await w.expectOk('GET', '/api/tokens', 'owner')).tokens.length;
    // Refused before the body is read: a malformed body gets the same answer.
    for (const raw of [JSON.stringify({ name: 'forever', expiresAt: null }), '{not json']) {
      const res = await app.request('/api/tokens', {
        method: 'POST',
        origin: null,
        headers: { ...bearer(short.token), 'content-type': 'application/json' },
        body: raw,
      });
      await expectCode(res, 403, 'SESSION_REQUIRED');
    }
    await expectCode(
      await app.request(`/api/tokens/${other.id}`, { method: 'DELETE', origin: null, headers: bearer(short.token) }),
      403,
      'SESSION_REQUIRED',
    );
    const seen = await body(await app.request('/api/tokens', { headers: bearer(short.token) }));
    expect(seen.tokens.map((t: any) => t.id)).toEqual([short.id]);
    expect((await w.expectOk('GET', '/api/tokens', 'owner')).tokens.length).toBe(before);
    expect((await app.request('/api/me', { headers: bearer(other.token) })).status).toBe(200);
    // Revoking itself is what `easel logout` does.
    expect((await app.request(`/api/tokens/${short.id}`, { method: 'DELETE', origin: null, headers: bearer(short.token) })).status).toBe(
      200,
    );
    expect((await app.request('/api/me', { headers: bearer(short.token) })).status).toBe(401);
  });

  test('bodies: a name of 1-100 characters, an expiry in the future and within a Date, nothing else', async () => {
    const beyondDates = [8.64e15 + 1, 9223372036854776000]; // the last overflowed Postgres's BIGINT: a 500
    const bad = [{}, { name: '' }, { name: 'x'.repeat(101) }, { name: 'a', expiresAt: clock - 1 }, { name: 'a', scope: 'all' }];
    for (const json of [...bad, ...beyondDates.map((expiresAt) => ({ name: 'a', expiresAt }))]) {
      await expectCode(await w.request('owner', '/api/tokens', { method: 'POST', json }), 400, 'INVALID_BODY');
    }
    const last = await w.request('owner', '/api/tokens', { method: 'POST', json: { name: 'lasting', expiresAt: 8.64e15 } });
    expect(last.status).toBe(201);
    expect((await last.json()).expiresAt).toBe(8.64e15);
    expect((await app.request('/api/tokens', { method: 'POST', json: { name: 'x' } })).status).toBe(401);
  });

  test('the secret is in neither the database file nor the logs; its use is audited by id', async () => {
    const { id, token } = await newToken();
    clock += 60_000;
    expect((await app.request('/api/me', { headers: bearer(token) })).status).toBe(200);
    const disk = await diskText(app);
    expect(disk).toContain(id);
    expect(disk).not.toContain(token);
    expect(disk).not.toContain(token.slice('easel_pat_'.length));
    expect(JSON.stringify(app.nodes.map((node) => node.logs))).not.toContain(token.slice('easel_pat_'.length));
    const audit = await app.ctx.sql.all<{ action: string; detail: string }>(
      "SELECT action, detail FROM audit_log WHERE action LIKE 'token.%'",
    );
    expect(audit.some((a) => a.action === 'token.used' && JSON.parse(a.detail).tokenId === id)).toBe(true);
    expect(JSON.stringify(audit)).not.toContain(token);
  });
});
