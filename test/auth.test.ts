// passes: embedded, cluster
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sessionTokenHash } from '../src/auth/sessions.ts';
import { sha256Hex } from '../src/ids.ts';
import { createHash } from 'node:crypto';
import { body, startTestApp, type TestApp, TEST_BACKENDS } from './harness.ts';

describe('dev sign-in and sessions', () => {
  let app: TestApp;
  let clock = Date.now();
  beforeAll(async () => {
    app = await startTestApp({ now: () => clock });
  });
  afterAll(() => app.close());

  test('GET /auth/login shows the form and keeps only a relative returnTo', async () => {
    const res = await app.request('/auth/login?returnTo=%2Fc%2Fdemo%2F');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<form');
    expect(html).toContain('"/c/demo/"');
    const evil = await (await app.request('/auth/login?returnTo=%2F%2Fevil.example')).text();
    expect(evil).not.toContain('evil.example');
  });

  test('sign-in creates the user once, sets an HttpOnly session cookie, and stores only its hash', async () => {
    const res = await app.request('/auth/dev/login', { method: 'POST', json: { email: 'Ann@Example.com', name: 'Ann' } });
    expect(res.status).toBe(200);
    const user = await body(res);
    expect(user).toEqual({ id: expect.any(String), email: 'ann@example.com', name: 'Ann' });
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^easel_session=[A-Za-z0-9]{43}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
    const token = cookie.split(';')[0]!.split('=')[1]!;
    const again = await body(await app.request('/auth/dev/login', { method: 'POST', json: { email: 'ann@example.com' } }));
    expect(again.id).toBe(user.id);
    const rows = await app.ctx.sql.all<{ token_hash: string }>('SELECT token_hash FROM sessions');
    expect(rows.length).toBe(2);
    expect(rows.every((r) => r.token_hash !== token && /^[0-9a-f]{64}$/.test(r.token_hash))).toBe(true);
    expect(JSON.stringify(app.nodes.map((node) => node.logs))).not.toContain(token);
  });

  test('bad bodies answer 400 INVALID_BODY, never 422 or 500', async () => {
    for (const payload of [{ email: 1 }, {}, { email: 'not-an-email' }]) {
      const res = await app.request('/auth/dev/login', { method: 'POST', json: payload });
      expect(res.status).toBe(400);
      expect((await body(res)).code).toBe('INVALID_BODY');
    }
    const broken = await app.request('/auth/dev/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{nope' });
    expect(broken.status).toBe(400);
    expect((await body(broken)).code).toBe('INVALID_BODY');
  });

  test('logout ends the session at once', async () => {
    const cookie = await app.signIn('bob@example.com');
    const token = cookie.split('=')[1]!;
    expect((await app.ctx.sessions.resolve(token))?.user.email).toBe('bob@example.com');
    const res = await app.request('/auth/logout', { method: 'POST', cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie')).toContain('Max-Age=0');
    expect(await app.ctx.sessions.resolve(token)).toBeNull();
  });

  test('a deactivated user is signed out at once and cannot sign in again', async () => {
    const cookie = await app.signIn('carol@example.com');
    const token = cookie.split('=')[1]!;
    const carol = (await app.ctx.users.byEmail('carol@example.com'))!;
    await app.ctx.users.update(carol.id, { active: false });
    expect(await app.ctx.sessions.resolve(token)).toBeNull();
    const res = await app.request('/auth/dev/login', { method: 'POST', json: { email: 'carol@example.com' } });
    expect(res.status).toBe(401);
    expect(await body(res)).toEqual({ error: 'unauthorized' });
  });

  test('sessions expire, and renewal slides the expiry at most hourly', async () => {
    const cookie = await app.signIn('dave@example.com');
    const token = cookie.split('=')[1]!;
    const ttl = app.ctx.config.sessionTtlHours * 3600_000;
    clock += 30 * 60_000;
    expect((await app.ctx.sessions.resolve(token))!.renewed).toBe(false);
    clock += 31 * 60_000;
    expect((await app.ctx.sessions.resolve(token))!.renewed).toBe(true);
    clock += ttl - 1000;
    expect(await app.ctx.sessions.resolve(token)).not.toBeNull();
    clock += ttl + 1;
    expect(await app.ctx.sessions.resolve(token)).toBeNull();
  });
});

describe('sessions held in memory (the app caches resolved sessions)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  const tokenOf = (cookie: string) => cookie.split('=')[1]!;

  test('the stored hash is the same SHA-256 as everywhere else', async () => {
    const token = tokenOf(await app.signIn('hash@example.com'));
    expect(sessionTokenHash(token)).toBe(sha256Hex(token));
    // sha256Hex against another implementation (node:crypto): text as UTF-8, bytes as they are, views by their own bytes.
    for (const input of [token, '', 'é€😀\u0000', new Uint8Array([0, 1, 255]), new Uint8Array(64).fill(7).subarray(3, 9)])
      expect(sha256Hex(input)).toBe(createHash('sha256').update(input).digest('hex'));
    expect(await app.ctx.sql.get('SELECT 1 AS one FROM sessions WHERE token_hash = ?1', sha256Hex(token))).toEqual({ one: 1 });
  });

  test("a session deleted or a user deactivated behind the store's back stops resolving at once", async () => {
    const token = tokenOf(await app.signIn('eve@example.com'));
    const eve = (await app.ctx.users.byEmail('eve@example.com'))!;
    for (let i = 0; i < 3; i++) expect((await app.ctx.sessions.resolve(token))?.user.id).toBe(eve.id);
    // On the cluster a raw write is heard like another node's: once its notification arrives (caughtUp).
    await app.ctx.sql.run('UPDATE users SET active = 0 WHERE id = ?1', eve.id);
    await app.caughtUp();
    expect(await app.ctx.sessions.resolve(token)).toBeNull();
    await app.ctx.sql.run('UPDATE users SET active = 1 WHERE id = ?1', eve.id);
    await app.caughtUp();
    expect((await app.ctx.sessions.resolve(token))?.user.id).toBe(eve.id);
    await app.ctx.sql.run('DELETE FROM sessions WHERE token_hash = ?1', sha256Hex(token));
    await app.caughtUp();
    expect(await app.ctx.sessions.resolve(token)).toBeNull();
  });

  test('destroyAllFor ends every session of the user at once, and only theirs', async () => {
    const a1 = tokenOf(await app.signIn('fay@example.com'));
    const a2 = tokenOf(await app.signIn('fay@example.com'));
    const other = tokenOf(await app.signIn('gus@example.com'));
    for (const t of [a1, a2, other]) expect(await app.ctx.sessions.resolve(t)).not.toBeNull();
    await app.ctx.sessions.destroyAllFor((await app.ctx.users.byEmail('fay@example.com'))!.id);
    expect(await app.ctx.sessions.resolve(a1)).toBeNull();
    expect(await app.ctx.sessions.resolve(a2)).toBeNull();
    expect((await app.ctx.sessions.resolve(other))?.user.email).toBe('gus@example.com');
  });

  test('a renamed user shows the new name on the next request', async () => {
    const cookie = await app.signIn('hal@example.com', 'Hal');
    expect((await app.ctx.sessions.resolve(tokenOf(cookie)))?.user.name).toBe('Hal');
    await app.signIn('hal@example.com', 'Hal 9000');
    expect((await app.ctx.sessions.resolve(tokenOf(cookie)))?.user.name).toBe('Hal 9000');
  });
});

describe('proxy sign-in', () => {
  test('over a real socket, the client address is still checked against the trusted ranges', async () => {
    const trusted = await startTestApp({ listen: true, env: { EASEL_AUTH_MODE: 'proxy' } });
    const untrusted = await startTestApp({ listen: true, env: { EASEL_AUTH_MODE: 'proxy', EASEL_PROXY_TRUSTED_CIDRS: '10.0.0.0/8' } });
    try {
      const me = (app: TestApp) => app.request('/api/me', { headers: { 'x-forwarded-email': 'ivy@example.com' } });
      expect((await me(trusted)).status).toBe(200);
      expect((await me(untrusted)).status).toBe(401);
    } finally {
      await trusted.close();
      await untrusted.close();
    }
  });

  test('headers count only from trusted addresses', async () => {
    const trusted = await startTestApp({ listen: true, env: { EASEL_AUTH_MODE: 'proxy' } });
    const untrusted = await startTestApp({ listen: true, env: { EASEL_AUTH_MODE: 'proxy', EASEL_PROXY_TRUSTED_CIDRS: '10.0.0.0/8' } });
    try {
      const ok = await trusted.ctx.auth.authenticate(
        new Request('http://x/', { headers: { 'x-forwarded-email': 'pat@example.com', 'x-forwarded-user': 'Pat' } }),
        '127.0.0.1',
      );
      expect(ok.principal?.kind === 'user' && ok.principal.user.email).toBe('pat@example.com');
      expect(ok.principal?.kind === 'user' && ok.principal.user.name).toBe('Pat');
      const ignored = await untrusted.ctx.auth.authenticate(
        new Request('http://x/', { headers: { 'x-forwarded-email': 'pat@example.com' } }),
        '127.0.0.1',
      );
      expect(ignored.principal).toBeNull();
      expect(await untrusted.ctx.users.byEmail('pat@example.com')).toBeNull();
      // The dev login route does not exist in proxy mode.
      const dev = await trusted.request('/auth/dev/login', { method: 'POST', json: { email: 'x@example.com' } });
      expect(dev.status).toBe(404);
      expect(await dev.json()).toEqual({ code: 'NOT_FOUND', message: 'no such route' });
      // Whatever the body: a malformed one is not a validation error of a route that is not there.
      for (const bad of ['{nope', JSON.stringify({ email: 42 })]) {
        const res = await trusted.request('/auth/dev/login', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: bad,
        });
        expect(res.status).toBe(404);
      }
    } finally {
      await trusted.close();
      await untrusted.close();
    }
  });
});

describe('duplicate credential cookies (cookie tossing)', () => {
  test('two sessions of different people: nobody is signed in; a stale duplicate of the same person is harmless', async () => {
    const app = await startTestApp();
    try {
      const victim = await app.signIn('victim@example.com');
      const attacker = await app.signIn('attacker@example.com');
      const me = (cookie: string) => app.request('/api/me', { cookie });
      // The attacker's cookie, planted with a longer Path, comes first.
      expect((await me(`${attacker}; ${victim}`)).status).toBe(401);
      expect((await me(`${victim}; ${attacker}`)).status).toBe(401);
      expect((await body(await me(`easel_session=stale-or-unknown; ${victim}`))).email).toBe('victim@example.com');
      const again = await app.signIn('victim@example.com');
      expect((await body(await me(`${again}; ${victim}`))).email).toBe('victim@example.com');
      // Signing out ends every session the browser sent.
      await app.request('/auth/logout', { method: 'POST', cookie: `${attacker}; ${victim}` });
      expect((await me(victim)).status).toBe(401);
      expect((await me(attacker)).status).toBe(401);
    } finally {
      await app.close();
    }
  });
});

describe('errors and request ids', () => {
  test('unknown routes answer JSON 404 and every response carries X-Request-Id', async () => {
    const app = await startTestApp();
    try {
      const res = await app.request('/no/such/route', { headers: { 'x-request-id': 'abc-123' } });
      expect(res.status).toBe(404);
      expect(await body(res)).toEqual({ code: 'NOT_FOUND', message: 'no such route' });
      expect(res.headers.get('x-request-id')).toBe('abc-123');
      const line = app.nodes.flatMap((node) => node.logs).find((l) => l.msg === 'request' && l.requestId === 'abc-123')!;
      expect(line).toMatchObject({ level: 'info', method: 'GET', path: '/no/such/route', status: 404 });
      expect(typeof line.durationMs).toBe('number');
      const health = await app.request('/healthz');
      expect(await body(health)).toEqual({
        ok: true,
        version: app.ctx.version,
        backends: TEST_BACKENDS,
      });
      expect(health.headers.get('x-request-id')).toMatch(/^[a-z0-9]{20}$/);
    } finally {
      await app.close();
    }
  });

  test('an unexpected exception: 500 {code: INTERNAL, message, requestId}; the details only in the log', async () => {
    const app = await startTestApp();
    try {
      const cookie = await app.signIn('ann@example.com');
      // Every node's (on the cluster the request may be either's), and every node's log below.
      for (const node of app.nodes)
        node.ctx.canvases.listFor = () => {
          throw new Error('disk on fire at /secret/path');
        };
      const res = await app.request('/api/canvases', { cookie, headers: { 'x-request-id': 'req-500' } });
      expect(res.status).toBe(500);
      const text = await res.text();
      expect(JSON.parse(text)).toEqual({ code: 'INTERNAL', message: 'internal error', requestId: 'req-500' });
      expect(text).not.toContain('/secret/path');
      expect(res.headers.get('x-request-id')).toBe('req-500');
      const logs = app.nodes.flatMap((node) => node.logs);
      const logged = logs.find((l) => l.msg === 'unhandled error')!;
      expect(logged).toMatchObject({ level: 'error', requestId: 'req-500', path: '/api/canvases', error: 'disk on fire at /secret/path' });
      expect(logs.find((l) => l.msg === 'request' && l.requestId === 'req-500')).toMatchObject({ status: 500 });
    } finally {
      await app.close();
    }
  });
});
