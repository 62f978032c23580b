// passes: embedded, s3, cluster
import { SECRET_KEY_HEX } from './connections-fixtures.ts';
import { DEFAULT_AI_PRICES } from '../src/settings/service.ts';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { body, startTestApp, type TestApp } from './harness.ts';
import {
  ADMIN_EMAIL,
  ANON,
  expectOutcome,
  makeCanvas,
  people,
  ROLES,
  snapshot,
  type Made,
  type Outcome,
  type People,
  type Who,
} from './management-fixtures.ts';

let app: TestApp;
let p: People;

beforeAll(async () => {
  app = await startTestApp({
    env: {
      EASEL_ADMIN_EMAILS: `other-admin@example.com, ${ADMIN_EMAIL}`,
      EASEL_AI_API_KEY: 'sk-env-provider-key',
      EASEL_SECRET_KEY: SECRET_KEY_HEX,
    },
  });
  p = await people(app);
});
afterAll(() => app.close());

/** Admin routes exist only for admins: everyone else gets the unknown-route 404. */
const ADMIN_MATRIX: Record<Who, Outcome> = {
  anonymous: ANON,
  stranger: { status: 404, code: 'NOT_FOUND' },
  viewer: { status: 404, code: 'NOT_FOUND' },
  editor: { status: 404, code: 'NOT_FOUND' },
  owner: { status: 404, code: 'NOT_FOUND' },
  admin: { status: 200 },
};

interface AdminRoute {
  name: string;
  method: string;
  path: (c: Made) => string;
  json?: unknown;
  /** What a refusal must leave alone. */
  state: (c: Made) => Promise<string>;
}

const usersState = async () =>
  JSON.stringify(await app.ctx.sql.all('SELECT * FROM users ORDER BY id')) +
  JSON.stringify(await app.ctx.sql.all('SELECT * FROM orgs ORDER BY id'));
const settingsState = async () => JSON.stringify(await app.ctx.sql.all('SELECT * FROM settings ORDER BY key'));
const auditCount = async () => (await app.ctx.sql.get<{ n: number }>('SELECT count(*) AS n FROM audit_log'))!.n;

const routes: AdminRoute[] = [
  { name: 'GET users', method: 'GET', path: () => '/api/admin/users', state: usersState },
  { name: 'GET user', method: 'GET', path: () => `/api/admin/users/${p.id.viewer}`, state: usersState },
  {
    name: 'PATCH user',
    method: 'PATCH',
    path: () => `/api/admin/users/${p.id.stranger}`,
    json: { canPublishPublic: false, orgId: 'matrix-org' },
    state: usersState,
  },
  {
    name: 'disable canvas',
    method: 'POST',
    path: (c) => `/api/admin/canvases/${c.id}/disable`,
    json: { reason: 'abuse report 7' },
    state: (c) => snapshot(app, c.id),
  },
  { name: 'enable canvas', method: 'POST', path: (c) => `/api/admin/canvases/${c.id}/enable`, state: (c) => snapshot(app, c.id) },
  { name: 'GET settings', method: 'GET', path: () => '/api/admin/settings', state: settingsState },
  { name: 'PATCH settings', method: 'PATCH', path: () => '/api/admin/settings', json: { aiUserDailyUsd: 7 }, state: settingsState },
];

describe('role matrix: every admin route', () => {
  for (const route of routes) {
    for (const who of ROLES) {
      const outcome = ADMIN_MATRIX[who];
      test(`${route.name} as ${who} → ${outcome.status}`, async () => {
        const c = await makeCanvas(app, p);
        if (route.name === 'enable canvas') await app.ctx.canvases.update(c.id, { disabled_at: 1 }, app.ctx.now());
        const before = await route.state(c);
        const audit = await auditCount();
        const res = await app.request(route.path(c), { method: route.method, cookie: p.cookie[who], json: route.json });
        const parsed = await expectOutcome(res, outcome, `${route.name} as ${who}`);
        if (outcome.status === 404) {
          // Indistinguishable from a route that does not exist.
          expect(parsed).toEqual(await body(await app.request('/api/admin/no-such-thing', { cookie: p.cookie[who] })));
        }
        if (outcome.status !== 200) {
          expect(await route.state(c)).toBe(before);
          expect(await auditCount()).toBe(audit);
        }
        // Reset what a successful write changed, for the next row.
        await app.ctx.users.update(p.id.stranger, { canPublishPublic: true, orgId: null });
        await app.ctx.settings.update({ aiUserDailyUsd: null });
      });
    }
  }
});

describe('users', () => {
  test('list and get: every user with admin flag, never secrets', async () => {
    const res = await app.request('/api/admin/users', { cookie: p.cookie.admin });
    const { users } = await body(res);
    const viewer = users.find((u: any) => u.id === p.id.viewer);
    expect(viewer).toEqual({
      id: p.id.viewer,
      email: (await app.ctx.users.byId(p.id.viewer))!.email,
      name: (await app.ctx.users.byId(p.id.viewer))!.name,
      avatarUrl: null,
      active: true,
      canPublishPublic: true,
      orgId: null,
      isAdmin: false,
      adminGroups: [],
      createdAt: expect.any(Number),
    });
    expect(users.find((u: any) => u.id === p.id.admin).isAdmin).toBe(true);
    expect(await body(await app.request(`/api/admin/users/${p.id.viewer}`, { cookie: p.cookie.admin }))).toEqual(viewer);
    const missing = await app.request('/api/admin/users/nobody', { cookie: p.cookie.admin });
    expect(missing.status).toBe(404);
    expect((await body(missing)).code).toBe('NOT_FOUND');
  });

  test('deactivating signs the user out at once; reactivating lets them back', async () => {
    const q = await people(app);
    const changed: string[] = [];
    const off = app.onEvent('user.changed', (e) => changed.push(e.userId));
    let res = await app.request(`/api/admin/users/${q.id.stranger}`, { method: 'PATCH', cookie: q.cookie.admin, json: { active: false } });
    expect((await body(res)).active).toBe(false);
    expect(changed).toEqual([q.id.stranger]);
    expect(await body(await app.request('/api/me', { cookie: q.cookie.stranger }))).toEqual({ error: 'unauthorized' });
    res = await app.request(`/api/admin/users/${q.id.stranger}`, { method: 'PATCH', cookie: q.cookie.admin, json: { active: true } });
    expect((await body(res)).active).toBe(true);
    expect((await app.request('/api/me', { cookie: await app.signIn((await app.ctx.users.byId(q.id.stranger))!.email) })).status).toBe(200);
    off();
  });

  test('taking canPublishPublic blocks public_link for that owner at once', async () => {
    const q = await people(app);
    const c = await makeCanvas(app, q);
    await app.request(`/api/admin/users/${q.id.owner}`, { method: 'PATCH', cookie: q.cookie.admin, json: { canPublishPublic: false } });
    const res = await app.request(`/api/canvases/${c.id}`, {
      method: 'PATCH',
      cookie: q.cookie.owner,
      json: { accessMode: 'public_link' },
    });
    expect(res.status).toBe(403);
    expect((await body(res)).code).toBe('PUBLIC_NOT_ALLOWED');
    expect((await body(await app.request('/api/me', { cookie: q.cookie.owner }))).canPublishPublic).toBe(false);
  });

  test('orgId creates the org and null clears it; bad bodies and self-deactivation are refused without a change', async () => {
    let res = await app.request(`/api/admin/users/${p.id.viewer}`, {
      method: 'PATCH',
      cookie: p.cookie.admin,
      json: { orgId: 'Acme.Corp' },
    });
    expect((await body(res)).orgId).toBe('Acme.Corp');
    expect(await app.ctx.users.orgName('Acme.Corp')).toBe('Acme.Corp');
    res = await app.request(`/api/admin/users/${p.id.viewer}`, { method: 'PATCH', cookie: p.cookie.admin, json: { orgId: null } });
    expect((await body(res)).orgId).toBeNull();
    const before = await usersState();
    for (const [id, json, status, code] of [
      [p.id.admin, { active: false }, 400, 'INVALID_BODY'],
      [p.id.viewer, { orgId: 'has space' }, 400, 'INVALID_BODY'],
      [p.id.viewer, { orgId: '' }, 400, 'INVALID_BODY'],
      [p.id.viewer, { active: 'no' }, 400, 'INVALID_BODY'],
      [p.id.viewer, { isAdmin: true }, 400, 'INVALID_BODY'],
      [p.id.viewer, { email: 'x@example.com' }, 400, 'INVALID_BODY'],
      ['nobody', { active: false }, 404, 'NOT_FOUND'],
    ] as const) {
      res = await app.request(`/api/admin/users/${id}`, { method: 'PATCH', cookie: p.cookie.admin, json });
      expect({ json, status: res.status, code: (await body(res)).code }).toEqual({ json, status, code });
    }
    expect(await usersState()).toBe(before);
  });
});

describe('disable and enable canvases', () => {
  test('any canvas by id: status disabled with the reason kept, then active again; events and audit', async () => {
    const q = await people(app);
    const c = await makeCanvas(app, q);
    const events: string[] = [];
    const off = app.onEvent('canvas.access-changed', (e) => events.push(e.canvasId));
    let res = await app.request(`/api/admin/canvases/${c.id}/disable`, {
      method: 'POST',
      cookie: q.cookie.admin,
      json: { reason: 'phishing' },
    });
    let v = await body(res);
    expect([v.status, v.role]).toEqual(['disabled', 'admin']);
    expect((await app.ctx.canvases.byId(c.id))!.disabledReason).toBe('phishing');
    // The owner still manages it, and sees it disabled.
    expect((await body(await app.request(`/api/canvases/${c.id}`, { cookie: q.cookie.owner }))).status).toBe('disabled');
    res = await app.request(`/api/admin/canvases/${c.id}/enable`, { method: 'POST', cookie: q.cookie.admin });
    v = await body(res);
    expect(v.status).toBe('active');
    expect((await app.ctx.canvases.byId(c.id))!.disabledReason).toBeNull();
    expect(events).toEqual([c.id, c.id]);
    off();
    const actions = (await app.ctx.audit.forCanvas(c.id)).slice(0, 2).map((r) => [r.action, r.actorKind, r.detail]);
    expect(actions).toEqual([
      ['canvas.enable', 'admin', null],
      ['canvas.disable', 'admin', { fields: ['reason'] }],
    ]);
    expect(JSON.stringify(await app.ctx.sql.all('SELECT * FROM audit_log'))).not.toContain('phishing');
  });

  test('an admin who owns the canvas sees role owner; unknown canvases and bad bodies are refused', async () => {
    const own = await body(await app.request('/api/canvases', { method: 'POST', cookie: p.cookie.admin, json: { title: 'Admin own' } }));
    const v = await body(await app.request(`/api/admin/canvases/${own.id}/disable`, { method: 'POST', cookie: p.cookie.admin }));
    expect([v.status, v.role]).toEqual(['disabled', 'owner']);
    const c = await makeCanvas(app, p);
    const before = await snapshot(app, c.id);
    for (const [path, json, status, code] of [
      ['/api/admin/canvases/nope/disable', undefined, 404, 'NOT_FOUND'],
      [`/api/admin/canvases/${c.id}/disable`, { reason: 5 }, 400, 'INVALID_BODY'],
      [`/api/admin/canvases/${c.id}/disable`, { reason: 'x'.repeat(501) }, 400, 'INVALID_BODY'],
      [`/api/admin/canvases/${c.id}/disable`, { why: 'x' }, 400, 'INVALID_BODY'],
    ] as const) {
      const res = await app.request(path, { method: 'POST', cookie: p.cookie.admin, json });
      expect({ path, status: res.status, code: (await body(res)).code }).toEqual({ path, status, code });
    }
    expect(await snapshot(app, c.id)).toBe(before);
  });
});

describe('instance settings', () => {
  test('GET shows env defaults and aiApiKeySet, never the key', async () => {
    const res = await app.request('/api/admin/settings', { cookie: p.cookie.admin });
    const text = await res.text();
    expect(text).not.toContain('sk-env-provider-key');
    const s = JSON.parse(text);
    expect(Object.keys(s).sort()).toEqual(
      [
        'aiApiKeySet',
        'aiCanvasMonthlyUsd',
        'aiModels',
        'aiPrices',
        'aiUserDailyUsd',
        'filesBytesCanvas',
        'filesBytesFile',
        'publicLinks',
        'userCanvases',
        'userStorageBytes',
        'userCanvasCreatesPerHour',
      ].sort(),
    );
    expect(s).toMatchObject({
      aiApiKeySet: true,
      aiUserDailyUsd: 5,
      aiCanvasMonthlyUsd: 50,
      publicLinks: true,
      filesBytesFile: 25 * 1024 * 1024,
      filesBytesCanvas: 1024 ** 3,
      userCanvases: 200,
      userStorageBytes: 20 * 1024 ** 3,
      userCanvasCreatesPerHour: 60,
    });
  });

  test('PATCH applies at once, persists in the database, null returns to the env default', async () => {
    const fired: number[] = [];
    const off = app.onEvent('settings.changed', () => fired.push(1));
    const patch = {
      aiModels: ['claude-haiku-5-5'],
      aiPrices: { 'claude-haiku-5-5': { input: 1.5, output: 6 } },
      aiApiKey: 'sk-admin-set-secret-123',
      aiUserDailyUsd: 1.25,
      aiCanvasMonthlyUsd: 10,
      publicLinks: false,
      filesBytesFile: 1024,
      filesBytesCanvas: 4096,
      userCanvases: 90_000,
      userStorageBytes: 2 ** 40,
      userCanvasCreatesPerHour: 90_000,
    };
    const res = await app.request('/api/admin/settings', { method: 'PATCH', cookie: p.cookie.admin, json: patch });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).not.toContain('sk-admin-set-secret-123');
    const { aiApiKey, ...visible } = patch;
    // Prices merge per model into the built-in table.
    expect(JSON.parse(text)).toEqual({ ...visible, aiPrices: { ...DEFAULT_AI_PRICES, ...visible.aiPrices }, aiApiKeySet: true });
    await app.caughtUp();
    expect(app.ctx.settings.get().aiApiKey).toBe(aiApiKey);
    expect(fired).toEqual([1]);
    // Takes effect without a restart: the public link switch is live for canvas management.
    const c = await makeCanvas(app, p);
    const refused = await app.request(`/api/canvases/${c.id}`, {
      method: 'PATCH',
      cookie: p.cookie.owner,
      json: { accessMode: 'public_link' },
    });
    expect((await body(refused)).code).toBe('PUBLIC_LINKS_DISABLED');
    // Persisted in the settings table, not only in memory.
    const row = await app.ctx.sql.get<{ value: string }>('SELECT value FROM settings WHERE key = ?1', 'aiUserDailyUsd');
    expect(JSON.parse(row!.value)).toBe(1.25);

    const reset = await body(
      await app.request('/api/admin/settings', {
        method: 'PATCH',
        cookie: p.cookie.admin,
        json: { aiApiKey: null, publicLinks: null, aiUserDailyUsd: null },
      }),
    );
    expect(reset).toMatchObject({ aiApiKeySet: true, publicLinks: true, aiUserDailyUsd: 5 });
    await app.caughtUp();
    expect(app.ctx.settings.get().aiApiKey).toBe('sk-env-provider-key');
    await app.request('/api/admin/settings', {
      method: 'PATCH',
      cookie: p.cookie.admin,
      json: Object.fromEntries(Object.keys(patch).map((k) => [k, null])),
    });
    off();

    const rows = await app.ctx.sql.all<{ detail: string }>("SELECT detail FROM audit_log WHERE action = 'settings.update' ORDER BY id");
    expect(JSON.parse(rows.at(-3)!.detail)).toEqual({ fields: Object.keys(patch) });
    const audit = JSON.stringify(rows);
    expect(audit + JSON.stringify(app.nodes.map((node) => node.logs))).not.toContain('sk-admin-set-secret-123');
    expect(JSON.stringify(app.nodes.map((node) => node.logs))).not.toContain('sk-env-provider-key');
  });

  test('bad settings are 400 INVALID_BODY naming the field, and nothing is saved', async () => {
    const before = await settingsState();
    for (const [json, path] of [
      [{ aiModels: [] }, 'aiModels'],
      [{ aiModels: ['bad model'] }, 'aiModels.0'],
      [{ aiModels: ['a', 'a'] }, 'aiModels'],
      [{ aiPrices: { 'claude-x': { input: 1 } } }, 'aiPrices.claude-x.output'],
      [{ aiPrices: { 'claude-x': { input: 1, output: 2, cache: 3 } } }, 'aiPrices.claude-x.cache'],
      [{ aiPrices: { 'bad model': { input: 1, output: 2 } } }, 'aiPrices.bad model'],
      [{ aiApiKey: '' }, 'aiApiKey'],
      [{ aiUserDailyUsd: -1 }, 'aiUserDailyUsd'],
      [{ publicLinks: 'off' }, 'publicLinks'],
      [{ filesBytesFile: 0 }, 'filesBytesFile'],
      [{ filesBytesCanvas: 1.5 }, 'filesBytesCanvas'],
      [{ realtime: false }, 'realtime'],
    ] as const) {
      const res = await app.request('/api/admin/settings', { method: 'PATCH', cookie: p.cookie.admin, json });
      const parsed = await body(res);
      expect({ json, status: res.status, code: parsed.code }).toEqual({ json, status: 400, code: 'INVALID_BODY' });
      expect(parsed.message).toStartWith(`${path}:`);
    }
    expect(await settingsState()).toBe(before);
  });
});
