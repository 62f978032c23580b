// passes: embedded, cluster
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { body, ON_CLUSTER, startTestApp, type TestApp } from './harness.ts';
import { diskText } from './disk-text.ts';
import { expectCode } from './expect-code.ts';
import { SECRET_KEY_HEX } from './connections-fixtures.ts';
import { ADMIN_EMAIL, apiCanvas } from './runtime-fixtures.ts';

const SECRET = 'Bearer sk-live-TOP-SECRET-0123456789';
const SECRET2 = 'tenant-SECRET-VALUE-42';

describe('Connection profiles: admin API', () => {
  let app: TestApp;
  let admin: string;
  let user: string;
  beforeAll(async () => {
    app = await startTestApp({ env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_SECRET_KEY: SECRET_KEY_HEX } });
    admin = await app.signIn(ADMIN_EMAIL, 'Admin');
    user = await app.signIn('someone@example.com', 'Someone');
  });
  afterAll(() => app.close());

  const post = (json: unknown, cookie = admin) => app.request('/api/admin/connections', { method: 'POST', cookie, json });
  const patch = (name: string, json: unknown, cookie = admin) =>
    app.request(`/api/admin/connections/${name}`, { method: 'PATCH', cookie, json });

  test('POST creates a profile (201); protected values are never returned, only header names', async () => {
    const res = await post({
      name: 'weather',
      origin: 'https://API.Weather.example/',
      methods: ['POST', 'GET'],
      protectedHeaders: { Authorization: SECRET, 'X-Tenant': SECRET2 },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const text = await res.text();
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(SECRET2);
    const view = JSON.parse(text);
    expect(view).toMatchObject({
      name: 'weather',
      origin: 'https://api.weather.example',
      methods: ['GET', 'POST'],
      protectedHeaders: ['authorization', 'x-tenant'],
      enabled: true,
      usable: true,
      unusableReason: null,
      canvasIds: [],
    });
    expect(typeof view.createdAt).toBe('number');
    const list = await app.request('/api/admin/connections', { cookie: admin });
    const listText = await list.text();
    expect(listText).not.toContain(SECRET);
    expect(JSON.parse(listText).connections.map((c: any) => c.name)).toContain('weather');
    const one = await app.request('/api/admin/connections/weather', { cookie: admin });
    expect((await body(one)).protectedHeaders).toEqual(['authorization', 'x-tenant']);
  });

  test('protected values are encrypted at rest (AES-GCM, a fresh nonce each) and absent from the database file, audit log and logs', async () => {
    const disk = await diskText(app);
    expect(disk).toContain('api.weather.example');
    expect(disk).not.toContain(SECRET);
    expect(disk).not.toContain('sk-live-TOP-SECRET');
    expect(disk).not.toContain(SECRET2);
    const rows = await app.ctx.sql.all<{ header: string; nonce: Uint8Array; ciphertext: Uint8Array }>(
      'SELECT header, nonce, ciphertext FROM connection_protected_headers',
    );
    expect(rows.length).toBe(2);
    for (const r of rows) expect(r.nonce.byteLength).toBe(12);
    expect(Buffer.from(rows[0]!.nonce).equals(Buffer.from(rows[1]!.nonce))).toBe(false);
    // Same value twice: different ciphertexts.
    await post({ name: 'twin', origin: 'https://twin.example', methods: ['GET'], protectedHeaders: { a: 'same-value', b: 'same-value' } });
    const twin = await app.ctx.sql.all<{ ciphertext: Uint8Array }>(
      "SELECT ciphertext FROM connection_protected_headers WHERE profile_name = 'twin'",
    );
    expect(Buffer.from(twin[0]!.ciphertext).equals(Buffer.from(twin[1]!.ciphertext))).toBe(false);
    const audit = JSON.stringify(await app.ctx.sql.all('SELECT * FROM audit_log'));
    expect(audit).toContain('connection.create');
    expect(audit).not.toContain(SECRET);
    expect(JSON.stringify(app.nodes.map((node) => node.logs))).not.toContain(SECRET);
  });

  test('validation: every refusal is 400 INVALID_BODY naming the field', async () => {
    const base = { name: 'ok-name', origin: 'https://api.example.com', methods: ['GET'] };
    const cases: Array<[unknown, string]> = [
      [{ ...base, name: '' }, 'name'],
      [{ ...base, name: '-starts-with-dash' }, 'name'],
      [{ ...base, name: 'has space' }, 'name'],
      [{ ...base, name: 'x'.repeat(81) }, 'name'],
      [{ ...base, name: 'constructor' }, 'name'],
      [{ ...base, origin: 'http://api.example.com' }, 'origin'],
      [{ ...base, origin: 'ftp://api.example.com' }, 'origin'],
      [{ ...base, origin: 'https://api.example.com/v1' }, 'origin'],
      [{ ...base, origin: 'https://api.example.com?x=1' }, 'origin'],
      [{ ...base, origin: 'https://api.example.com#x' }, 'origin'],
      [{ ...base, origin: 'https://user:pw@api.example.com' }, 'origin'],
      [{ ...base, origin: 'https://127.0.0.1' }, 'origin'],
      [{ ...base, origin: 'https://127.1' }, 'origin'],
      [{ ...base, origin: 'https://0x7f.0.0.1' }, 'origin'],
      [{ ...base, origin: 'https://2130706433' }, 'origin'],
      [{ ...base, origin: 'https://017700000001' }, 'origin'],
      [{ ...base, origin: 'https://[::1]' }, 'origin'],
      [{ ...base, origin: 'https://[::ffff:127.0.0.1]:8443' }, 'origin'],
      [{ ...base, origin: 'https://169.254.169.254' }, 'origin'],
      [{ ...base, origin: 'https://under_score.example' }, 'origin'],
      [{ ...base, origin: 'not a url' }, 'origin'],
      [{ ...base, methods: [] }, 'methods'],
      [{ ...base, methods: ['GET', 'GET'] }, 'methods'],
      [{ ...base, methods: ['TRACE'] }, 'methods'],
      [{ ...base, protectedHeaders: { 'bad header': 'x' } }, 'protectedHeaders'],
      [{ ...base, protectedHeaders: { Host: 'evil' } }, 'protectedHeaders.Host'],
      [{ ...base, protectedHeaders: { 'transfer-encoding': 'chunked' } }, 'protectedHeaders'],
      [{ ...base, protectedHeaders: { 'proxy-authorization': 'x' } }, 'protectedHeaders'],
      [{ ...base, protectedHeaders: { 'accept-encoding': 'gzip' } }, 'protectedHeaders'],
      [{ ...base, protectedHeaders: { 'x-a': 'line\r\nbreak: injected' } }, 'protectedHeaders.x-a'],
      [{ ...base, protectedHeaders: { 'x-a': 'x'.repeat(8193) } }, 'protectedHeaders.x-a'],
      [{ ...base, protectedHeaders: { 'X-A': '1', 'x-a': '2' } }, 'protectedHeaders'],
      [{ ...base, protectedHeaders: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`x-h${i}`, 'v'])) }, 'protectedHeaders'],
      [{ ...base, extra: true }, 'extra'],
      [{ ...base, enabled: 'yes' }, 'enabled'],
    ];
    for (const [json, field] of cases) {
      const b = await expectCode(await post(json), 400, 'INVALID_BODY');
      expect(b.message.startsWith(field)).toBe(true);
    }
    expect((await app.request('/api/admin/connections/ok-name', { cookie: admin })).status).toBe(404);
  });

  test('a duplicate name is 409 CONNECTION_EXISTS and changes nothing', async () => {
    expect((await post({ name: 'dupe', origin: 'https://one.example', methods: ['GET'] })).status).toBe(201);
    await expectCode(await post({ name: 'dupe', origin: 'https://two.example', methods: ['POST'] }), 409, 'CONNECTION_EXISTS');
    expect((await body(await app.request('/api/admin/connections/dupe', { cookie: admin }))).origin).toBe('https://one.example');
  });

  test('non-admins get 404 on every route, anonymous callers 401, before the body is read', async () => {
    const canvas = await apiCanvas(app, user);
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/api/admin/connections'],
      ['POST', '/api/admin/connections', { name: 'x', origin: 'https://x.example', methods: ['GET'] }],
      ['GET', '/api/admin/connections/weather'],
      ['PATCH', '/api/admin/connections/weather', { enabled: false }],
      ['DELETE', '/api/admin/connections/weather'],
      ['GET', `/api/admin/canvases/${canvas.id}/connections`],
      ['PUT', `/api/admin/canvases/${canvas.id}/connections/weather`],
      ['DELETE', `/api/admin/canvases/${canvas.id}/connections/weather`],
    ];
    for (const [method, path, json] of routes) {
      const res = await app.request(path, { method, cookie: user, json });
      expect({ path, method, status: res.status }).toEqual({ path, method, status: 404 });
      const anon = await app.request(path, { method, json: 'not even an object' });
      expect({ path, method, status: anon.status }).toEqual({ path, method, status: 401 });
      expect(await body(anon)).toEqual({ error: 'unauthorized' });
    }
    expect((await body(await app.request('/api/admin/connections/weather', { cookie: admin }))).enabled).toBe(true);
  });

  test('PATCH: origin, methods, enabled; protected headers merge (a string sets, null removes); unknown profile 404', async () => {
    await post({ name: 'p1', origin: 'https://p1.example', methods: ['GET'], protectedHeaders: { 'x-key': 'old-secret-value' } });
    const res = await patch('p1', {
      origin: 'https://p1-new.example:8443',
      methods: ['GET', 'DELETE'],
      enabled: false,
      protectedHeaders: { 'x-key': null, 'x-other': 'new-secret-value' },
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain('new-secret-value');
    expect(JSON.parse(text)).toMatchObject({
      origin: 'https://p1-new.example:8443',
      methods: ['GET', 'DELETE'],
      enabled: false,
      protectedHeaders: ['x-other'],
      usable: false,
      unusableReason: 'disabled',
    });
    expect((await body(await patch('p1', { enabled: true }))).usable).toBe(true);
    await expectCode(await patch('p1', { origin: 'https://10.0.0.1' }), 400, 'INVALID_BODY');
    await expectCode(await patch('p1', { name: 'renamed' }), 400, 'INVALID_BODY');
    await expectCode(await patch('nope', { enabled: false }), 404, 'NOT_FOUND');
    const audit = JSON.stringify(await app.ctx.sql.all("SELECT detail FROM audit_log WHERE action = 'connection.update'"));
    expect(audit).toContain('x-other');
    expect(audit).not.toContain('new-secret-value');
  });

  test('grants: PUT is idempotent, GET lists, DELETE revokes; unknown canvas or profile 404', async () => {
    await post({ name: 'g1', origin: 'https://g1.example', methods: ['GET'] });
    const canvas = await apiCanvas(app, user);
    const put = await app.request(`/api/admin/canvases/${canvas.id}/connections/g1`, { method: 'PUT', cookie: admin });
    expect(put.status).toBe(200);
    const granted = await body(put);
    expect(granted).toMatchObject({ canvasId: canvas.id, name: 'g1' });
    const again = await body(await app.request(`/api/admin/canvases/${canvas.id}/connections/g1`, { method: 'PUT', cookie: admin }));
    expect(again.grantedAt).toBe(granted.grantedAt);
    expect(await body(await app.request(`/api/admin/canvases/${canvas.id}/connections`, { cookie: admin }))).toEqual({
      connections: [{ name: 'g1', grantedAt: granted.grantedAt }],
    });
    expect((await body(await app.request('/api/admin/connections/g1', { cookie: admin }))).canvasIds).toEqual([canvas.id]);
    await expectCode(await app.request(`/api/admin/canvases/nope/connections/g1`, { method: 'PUT', cookie: admin }), 404, 'NOT_FOUND');
    await expectCode(
      await app.request(`/api/admin/canvases/${canvas.id}/connections/nope`, { method: 'PUT', cookie: admin }),
      404,
      'NOT_FOUND',
    );
    await expectCode(await app.request(`/api/admin/canvases/nope/connections`, { cookie: admin }), 404, 'NOT_FOUND');
    expect(await body(await app.request(`/api/admin/canvases/${canvas.id}/connections/g1`, { method: 'DELETE', cookie: admin }))).toEqual({
      ok: true,
    });
    expect(await body(await app.request(`/api/admin/canvases/${canvas.id}/connections/g1`, { method: 'DELETE', cookie: admin }))).toEqual({
      ok: true,
    });
    await expectCode(await app.request(`/api/admin/canvases/nope/connections/g1`, { method: 'DELETE', cookie: admin }), 404, 'NOT_FOUND');
    expect(await body(await app.request(`/api/admin/canvases/${canvas.id}/connections`, { cookie: admin }))).toEqual({ connections: [] });
    const actions = (await app.ctx.sql.all<{ action: string }>('SELECT action FROM audit_log WHERE canvas_id = ?1 ORDER BY id', canvas.id))
      .map((r) => r.action)
      .filter((a) => a.startsWith('connection.'));
    expect(actions).toEqual(['connection.grant', 'connection.revoke']);
  });

  test("GET /me lists the canvas's usable granted Connections: granted and enabled", async () => {
    await post({ name: 'me-a', origin: 'https://me-a.example', methods: ['GET'] });
    await post({ name: 'me-b', origin: 'https://me-b.example', methods: ['GET'] });
    const canvas = await apiCanvas(app, user);
    const connectionsOnMe = async () => (await body(await app.request(`/v1/c/${canvas.slug}/me`, { cookie: user }))).resources.connections;
    expect(await connectionsOnMe()).toEqual([]);
    for (const name of ['me-b', 'me-a'])
      await app.request(`/api/admin/canvases/${canvas.id}/connections/${name}`, { method: 'PUT', cookie: admin });
    expect(await connectionsOnMe()).toEqual(['me-a', 'me-b']);
    await patch('me-a', { enabled: false });
    expect(await connectionsOnMe()).toEqual(['me-b']);
    await app.request(`/api/admin/canvases/${canvas.id}/connections/me-b`, { method: 'DELETE', cookie: admin });
    expect(await connectionsOnMe()).toEqual([]);
  });

  test('DELETE removes the profile, its sealed headers and its grants', async () => {
    await post({ name: 'gone', origin: 'https://gone.example', methods: ['GET'], protectedHeaders: { 'x-k': 'v-secret' } });
    const canvas = await apiCanvas(app, user);
    await app.request(`/api/admin/canvases/${canvas.id}/connections/gone`, { method: 'PUT', cookie: admin });
    expect(await body(await app.request('/api/admin/connections/gone', { method: 'DELETE', cookie: admin }))).toEqual({ ok: true });
    await expectCode(await app.request('/api/admin/connections/gone', { cookie: admin }), 404, 'NOT_FOUND');
    await expectCode(await app.request('/api/admin/connections/gone', { method: 'DELETE', cookie: admin }), 404, 'NOT_FOUND');
    expect(app.ctx.connections.headerKeys('gone')).toEqual([]);
    expect(app.ctx.connections.grantsOf(canvas.id)).toEqual([]);
  });
});

describe('Connection profiles without EASEL_SECRET_KEY', () => {
  test('protected headers need the key: 409 SECRET_KEY_MISSING; a profile sealed under a key is unusable without it or with another', async () => {
    // Restarts under other keys: on the same data directory, or on the cluster on the same Postgres database (one node).
    const dataDir = ON_CLUSTER ? undefined : mkdtempSync(join(tmpdir(), 'easel-test-'));
    const keyed = await startTestApp({ dataDir, env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_SECRET_KEY: SECRET_KEY_HEX } });
    const database = keyed.ctx.config.database;
    const restart = (env: Record<string, string>) =>
      startTestApp(database ? { env: { ...env, EASEL_DATABASE_URL: database.url } } : { dataDir, env });
    const admin = await keyed.signIn(ADMIN_EMAIL);
    expect(
      (
        await keyed.request('/api/admin/connections', {
          method: 'POST',
          cookie: admin,
          json: { name: 'sealed', origin: 'https://s.example', methods: ['GET'], protectedHeaders: { 'x-k': 'value' } },
        })
      ).status,
    ).toBe(201);
    await keyed.close();

    const bare = await restart({ EASEL_ADMIN_EMAILS: ADMIN_EMAIL });
    const cookie = await bare.signIn(ADMIN_EMAIL);
    await expectCode(
      await bare.request('/api/admin/connections', {
        method: 'POST',
        cookie,
        json: { name: 'x', origin: 'https://x.example', methods: ['GET'], protectedHeaders: { 'x-k': 'v' } },
      }),
      409,
      'SECRET_KEY_MISSING',
    );
    expect((await bare.request('/api/admin/connections/x', { cookie })).status).toBe(404);
    await expectCode(
      await bare.request('/api/admin/connections/sealed', { method: 'PATCH', cookie, json: { protectedHeaders: { 'x-new': 'v' } } }),
      409,
      'SECRET_KEY_MISSING',
    );
    // Without protected headers no key is needed.
    expect(
      (
        await bare.request('/api/admin/connections', {
          method: 'POST',
          cookie,
          json: { name: 'plain', origin: 'https://p.example', methods: ['GET'] },
        })
      ).status,
    ).toBe(201);
    expect(await body(await bare.request('/api/admin/connections/sealed', { cookie }))).toMatchObject({
      usable: false,
      unusableReason: 'secret_key_missing',
    });
    // Removing the protected header needs no key, and makes it usable again.
    expect(
      await body(
        await bare.request('/api/admin/connections/sealed', { method: 'PATCH', cookie, json: { protectedHeaders: { 'x-k': null } } }),
      ),
    ).toMatchObject({ usable: true, protectedHeaders: [] });
    await bare.close();

    const other = await restart({ EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_SECRET_KEY: 'b2'.repeat(32) });
    const c2 = await other.signIn(ADMIN_EMAIL);
    await other.request('/api/admin/connections/sealed', { method: 'PATCH', cookie: c2, json: { protectedHeaders: { 'x-k': 'again' } } });
    expect(await body(await other.request('/api/admin/connections/sealed', { cookie: c2 }))).toMatchObject({ usable: true });
    await other.close();
    const back = await restart({ EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_SECRET_KEY: SECRET_KEY_HEX });
    try {
      expect(await body(await back.request('/api/admin/connections/sealed', { cookie: await back.signIn(ADMIN_EMAIL) }))).toMatchObject({
        usable: false,
        unusableReason: 'secret_key_changed',
      });
    } finally {
      await back.close();
      // Apps given a dataDir leave it in place.
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
