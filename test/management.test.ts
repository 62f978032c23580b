// passes: embedded, cluster
import { adminSettings, adminUser } from './admin-actions.ts';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { guestCookieName } from '../src/auth/cookie-names.ts';
import { hashCanvasKey } from '../src/canvases/keys.ts';
import { body, startTestApp, type TestApp } from './harness.ts';
import {
  ADMIN_EMAIL,
  expectOutcome,
  HIDDEN,
  makeCanvas,
  MANAGE_MATRIX,
  OWNER_MATRIX,
  people,
  ROLES,
  snapshot,
  type Made,
  type Outcome,
  type People,
  type Who,
} from './management-fixtures.ts';

/** A viewer's list entry (issue 23 item 18): finding and opening the canvas, nothing to manage it with. */
const VIEWER_VIEW_KEYS = [
  'id',
  'slug',
  'url',
  'title',
  'ownerId',
  'role',
  'status',
  'publicationState',
  'accessMode',
  'hasPassword',
  'createdAt',
  'updatedAt',
];
const VIEW_KEYS = [
  ...VIEWER_VIEW_KEYS,
  'expiresAt',
  'currentVersionId',
  'publicationToken',
  'capabilities',
  'aiAudience',
  'connectionsAudience',
  // Easel's own (issue 23): whether the canvas's pages may register service workers.
  'serviceWorkers',
  'runtimePolicy',
  'runtimePolicyRevision',
].sort();
VIEWER_VIEW_KEYS.sort();

let app: TestApp;
let p: People;
let clock = Date.UTC(2030, 0, 1);

beforeAll(async () => {
  app = await startTestApp({ env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_USER_CANVAS_CREATES_PER_HOUR: '1000000' }, now: () => clock });
  p = await people(app);
});
afterAll(() => app.close());

interface RouteCase {
  name: string;
  method: string;
  path: (c: Made) => string;
  json?: (c: Made) => unknown;
  matrix: Record<Who, Outcome>;
  /** The view role a successful caller sees (routes answering a view). */
  viewRole?: boolean;
}

const routes: RouteCase[] = [
  { name: 'GET canvas', method: 'GET', path: (c) => `/api/canvases/${c.id}`, matrix: MANAGE_MATRIX, viewRole: true },
  {
    name: 'PATCH canvas',
    method: 'PATCH',
    path: (c) => `/api/canvases/${c.id}`,
    json: () => ({ title: 'Renamed' }),
    matrix: MANAGE_MATRIX,
    viewRole: true,
  },
  {
    name: 'PATCH capabilities',
    method: 'PATCH',
    path: (c) => `/api/canvases/${c.id}/capabilities`,
    json: () => ({ ai: true }),
    matrix: MANAGE_MATRIX,
    viewRole: true,
  },
  { name: 'GET members', method: 'GET', path: (c) => `/api/canvases/${c.id}/members`, matrix: MANAGE_MATRIX },
  {
    name: 'PUT member',
    method: 'PUT',
    path: (c) => `/api/canvases/${c.id}/members`,
    json: () => ({ email: 'new-person@example.com', role: 'viewer' }),
    matrix: MANAGE_MATRIX,
  },
  { name: 'DELETE member', method: 'DELETE', path: (c) => `/api/canvases/${c.id}/members/${p.id.viewer}`, matrix: MANAGE_MATRIX },
  { name: 'regenerate key', method: 'POST', path: (c) => `/api/canvases/${c.id}/regenerate-key`, matrix: OWNER_MATRIX },
  { name: 'archive', method: 'POST', path: (c) => `/api/canvases/${c.id}/archive`, matrix: OWNER_MATRIX, viewRole: true },
  { name: 'restore', method: 'POST', path: (c) => `/api/canvases/${c.id}/restore`, matrix: OWNER_MATRIX, viewRole: true },
  { name: 'DELETE canvas', method: 'DELETE', path: (c) => `/api/canvases/${c.id}`, matrix: OWNER_MATRIX },
];

describe('role matrix: every /api/canvases/{id} route', () => {
  for (const route of routes) {
    for (const who of ROLES) {
      const outcome = route.matrix[who];
      test(`${route.name} as ${who} → ${outcome.status}${outcome.code ? ` ${outcome.code}` : ''}`, async () => {
        const c = await makeCanvas(app, p);
        const before = await snapshot(app, c.id);
        const res = await app.request(route.path(c), { method: route.method, cookie: p.cookie[who], json: route.json?.(c) });
        const parsed = await expectOutcome(res, outcome, `${route.name} as ${who}`);
        if (outcome.status !== 200) {
          // What must not change: a refusal writes nothing, not even an audit row.
          expect(await snapshot(app, c.id)).toBe(before);
          expect(JSON.stringify(parsed)).not.toContain(c.slug);
        } else if (route.viewRole) {
          expect(parsed.role).toBe(who === 'admin' ? 'admin' : who);
          expect(Object.keys(parsed).sort()).toEqual(VIEW_KEYS);
        }
      });
    }
  }

  test('an unknown or deleted canvas is 404 for everyone, admins included', async () => {
    const c = await makeCanvas(app, p);
    expect((await app.request(`/api/canvases/${c.id}`, { method: 'DELETE', cookie: p.cookie.owner })).status).toBe(200);
    for (const id of [c.id, 'nope', 'x'.repeat(300)]) {
      for (const who of ['owner', 'admin'] as const) {
        const res = await app.request(`/api/canvases/${id}`, { cookie: p.cookie[who] });
        expect(res.status).toBe(404);
        expect((await body(res)).code).toBe('NOT_FOUND');
      }
    }
  });

  test('a legacy guest session is no user: 401 on the management API, even for its own canvas', async () => {
    const c = await makeCanvas(app, p);
    const { invite } = await app.ctx.guests.createInvite(c.id, p.id.owner);
    const cookie = `${guestCookieName(app.ctx.config)}=${await app.ctx.guests.createSession(invite)}`;
    const before = await snapshot(app, c.id);
    for (const [method, path] of [
      ['GET', '/api/me'],
      ['GET', '/api/canvases'],
      ['GET', `/api/canvases/${c.id}`],
      ['POST', `/api/canvases/${c.id}/archive`],
      ['GET', '/api/admin/users'],
    ]) {
      const res = await app.request(path!, { method, cookie });
      expect({ path, status: res.status, body: await body(res) }).toEqual({ path, status: 401, body: { error: 'unauthorized' } });
    }
    expect(await snapshot(app, c.id)).toBe(before);
  });

  test('a refused caller with a broken body still gets 401/404, not 400', async () => {
    const c = await makeCanvas(app, p);
    for (const [who, status] of [
      ['anonymous', 401],
      ['stranger', 404],
      ['viewer', 404],
    ] as const) {
      const res = await app.request(`/api/canvases/${c.id}`, {
        method: 'PATCH',
        cookie: p.cookie[who],
        headers: { 'content-type': 'application/json' },
        body: '{broken',
      });
      expect(res.status).toBe(status);
    }
  });
});

describe('POST /api/canvases and GET /api/canvases', () => {
  test('creates a restricted draft with the view, a key shown once and stored as SHA-256', async () => {
    const res = await app.request('/api/canvases', { method: 'POST', cookie: p.cookie.stranger, json: { title: '  My Första Canvas!  ' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const created = await body(res);
    expect(Object.keys(created).sort()).toEqual([...VIEW_KEYS, 'apiKey'].sort());
    expect(created).toMatchObject({
      slug: 'my-forsta-canvas',
      title: 'My Första Canvas!',
      ownerId: p.id.stranger,
      role: 'owner',
      status: 'active',
      publicationState: 'draft',
      accessMode: 'restricted',
      hasPassword: false,
      expiresAt: null,
      currentVersionId: null,
      capabilities: { backend: true, kv: true, files: true, ai: false, realtime: true, authoring: false },
      aiAudience: 'editors',
      connectionsAudience: 'editors',
      runtimePolicy: null,
      runtimePolicyRevision: null,
      createdAt: clock,
      updatedAt: clock,
    });
    expect(created.url).toEndWith('/c/my-forsta-canvas/');
    expect(created.publicationToken).toMatch(/^[0-9A-Za-z]{32}$/);
    expect(created.apiKey).toMatch(/^easel_sk_[0-9A-Za-z]{40}$/);
    const row = (await app.ctx.sql.get<{ key_hash: string }>('SELECT key_hash FROM canvases WHERE id = ?1', created.id))!;
    expect(row.key_hash).toBe(hashCanvasKey(created.apiKey));
    expect((await app.ctx.canvases.byKeyHash(hashCanvasKey(created.apiKey)))?.id).toBe(created.id);
    // Shown once: no later read carries it.
    const again = await (await app.request(`/api/canvases/${created.id}`, { cookie: p.cookie.stranger })).text();
    expect(again).not.toContain(created.apiKey);
    expect(again).not.toContain('apiKey');
  });

  test('generated slugs: suffixed when taken, too short or reserved; given slugs are checked', async () => {
    const make = (json: unknown) => app.request('/api/canvases', { method: 'POST', cookie: p.cookie.owner, json });
    const first = await body(await make({ title: 'Dup Title' }));
    const second = await body(await make({ title: 'Dup Title' }));
    expect(first.slug).toBe('dup-title');
    expect(second.slug).toMatch(/^dup-title-[0-9a-z]{6}$/);
    expect((await body(await make({ title: 'A' }))).slug).toMatch(/^a-[0-9a-z]{6}$/);
    expect((await body(await make({ title: 'Admin' }))).slug).toMatch(/^admin-[0-9a-z]{6}$/);
    expect((await body(await make({ title: '!!!' }))).slug).toMatch(/^canvas(-[0-9a-z]{6})?$/);
    const long = await body(await make({ title: 'x'.repeat(200) }));
    expect(long.slug.length).toBeLessThanOrEqual(63);
    expect((await body(await make({ title: 'Given', slug: 'my-given-slug' }))).slug).toBe('my-given-slug');
    expect((await body(await make({ title: 'Min', slug: 'abc' }))).slug).toBe('abc');
    expect((await body(await make({ title: 'Max', slug: 'a'.repeat(63) }))).slug).toBe('a'.repeat(63));

    for (const slug of [
      'ab',
      'a'.repeat(64),
      'Upper',
      '-lead',
      'trail-',
      'under_score',
      'sp ace',
      'api',
      'admin',
      'healthz',
      'dashboard',
      'www',
      '',
    ]) {
      const res = await make({ title: 'Bad', slug });
      expect({ slug, status: res.status }).toEqual({ slug, status: 400 });
      expect(await body(res)).toMatchObject({ code: 'INVALID_BODY', reason: 'invalid_slug' });
    }
    const taken = await make({ title: 'Taken', slug: 'my-given-slug' });
    expect(taken.status).toBe(409);
    expect((await body(taken)).code).toBe('SLUG_TAKEN');
  });

  test('bad bodies are 400 INVALID_BODY (413 past the cap) and create nothing', async () => {
    const count = async () => (await app.ctx.sql.get<{ n: number }>('SELECT count(*) AS n FROM canvases'))!.n;
    const before = await count();
    const cases: Array<[RequestInit & { json?: unknown }, number, string]> = [
      [{ json: {} }, 400, 'title'],
      [{ json: { title: '' } }, 400, 'title'],
      [{ json: { title: '   ' } }, 400, 'title'],
      [{ json: { title: 'x'.repeat(201) } }, 400, 'title'],
      [{ json: { title: 5 } }, 400, 'title'],
      [{ json: { title: 'ok', extra: true } }, 400, 'extra: unknown field'],
      [{ json: [] }, 400, 'body'],
      [{ json: null }, 400, 'body'],
      [{ body: '{nope', headers: { 'content-type': 'application/json' } }, 400, 'not valid JSON'],
      [{ body: 'title=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }, 400, 'content-type'],
      [{}, 400, 'body'],
      [{ json: { title: 'x'.repeat(300 * 1024) } }, 413, 'larger than'],
    ];
    for (const [init, status, message] of cases) {
      const res = await app.request('/api/canvases', { method: 'POST', cookie: p.cookie.owner, ...init });
      const parsed = await body(res);
      expect({ status: res.status, code: parsed.code }).toEqual({ status, code: 'INVALID_BODY' });
      expect(parsed.message).toContain(message);
    }
    // A chunked body (no Content-Length) is cut off while it streams.
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 100) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const res = await app.request('/api/canvases', {
      method: 'POST',
      cookie: p.cookie.owner,
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(sent).toBeLessThan(10);
    expect(await count()).toBe(before);
  });

  test('POST as anonymous is 401; every signed-in user may create', async () => {
    expect(await body(await app.request('/api/canvases', { method: 'POST', json: { title: 'x' } }))).toEqual({ error: 'unauthorized' });
    for (const who of ['stranger', 'viewer', 'editor', 'owner', 'admin'] as const) {
      const res = await app.request('/api/canvases', { method: 'POST', cookie: p.cookie[who], json: { title: `by ${who}` } });
      expect(res.status).toBe(201);
      expect((await body(res)).ownerId).toBe(p.id[who]);
    }
  });

  test('GET /api/canvases lists owned and shared canvases with the caller role, never deleted ones', async () => {
    const q = await people(app);
    const a = await makeCanvas(app, q, 'List A');
    const b = await makeCanvas(app, q, 'List B');
    await app.request(`/api/canvases/${b.id}`, { method: 'DELETE', cookie: q.cookie.owner });
    const list = async (who: Who) => {
      const res = await app.request('/api/canvases', { cookie: q.cookie[who] });
      return { status: res.status, body: await body(res) };
    };
    expect((await list('anonymous')).body).toEqual({ error: 'unauthorized' });
    for (const who of ['owner', 'editor', 'viewer'] as const) {
      const r = await list(who);
      expect(r.status).toBe(200);
      expect(r.body.canvases.map((c: any) => [c.id, c.role])).toEqual([[a.id, who]]);
      // Viewers (GET /api/canvases/{id} is 404 for them) see the listing fields only: no token, policy or settings.
      // Those who manage it also get the home list's facts: its people count, last deploy and AI spend this month.
      expect(Object.keys(r.body.canvases[0]).sort()).toEqual(
        who === 'viewer' ? VIEWER_VIEW_KEYS : [...VIEW_KEYS, 'aiMonth', 'lastDeployAt', 'people'].sort(),
      );
    }
    await expectOutcome(await app.request(`/api/canvases/${a.id}`, { cookie: q.cookie.viewer }), HIDDEN, 'viewer GET by id');
    expect((await list('stranger')).body).toEqual({ canvases: [] });
    // Admins reach any canvas by id, but their list is their own.
    expect((await list('admin')).body.canvases.some((c: any) => c.id === a.id)).toBe(false);
  });
});

describe('PATCH /api/canvases/{id}', () => {
  let c: Made;
  beforeAll(async () => {
    c = await makeCanvas(app, p, 'Patch Me');
  });
  const patch = (json: unknown, who: Who = 'owner', id = c.id) =>
    app.request(`/api/canvases/${id}`, { method: 'PATCH', cookie: p.cookie[who], json });

  test('title and slug; the URL follows the slug; events for access-affecting changes only', async () => {
    const events: string[] = [];
    const off = [app.onEvent('canvas.access-changed', (e) => events.push(e.canvasId))];
    clock += 1000;
    let res = await patch({ title: ' New Title ' });
    expect(res.status).toBe(200);
    let v = await body(res);
    expect(v.title).toBe('New Title');
    expect(v.updatedAt).toBe(clock);
    expect(events).toEqual([]);
    res = await patch({ slug: 'patched-slug' }, 'editor');
    v = await body(res);
    expect(v.slug).toBe('patched-slug');
    expect(v.url).toEndWith('/c/patched-slug/');
    expect(events).toEqual([c.id]);
    off.forEach((f) => f());
  });

  test('a refused slug change leaves the canvas as it was', async () => {
    const other = await makeCanvas(app, p, 'Other');
    const before = await snapshot(app, c.id);
    for (const [json, status, code] of [
      [{ slug: other.slug }, 409, 'SLUG_TAKEN'],
      [{ slug: 'API' }, 400, 'INVALID_BODY'],
      [{ slug: 'mcp' }, 400, 'INVALID_BODY'],
      [{ slug: 'ok-slug', title: '' }, 400, 'INVALID_BODY'],
    ] as const) {
      const res = await patch(json);
      expect({ status: res.status, code: (await body(res)).code }).toEqual({ status, code });
    }
    expect(await snapshot(app, c.id)).toBe(before);
    // Its own slug is not "taken".
    expect((await patch({ slug: (await app.ctx.canvases.byId(c.id))!.slug })).status).toBe(200);
  });

  test('password: argon2id hash, version bumped on every set and clear, never returned', async () => {
    const version = async () =>
      (await app.ctx.sql.get<{ password_version: number; password_hash: string | null }>(
        'SELECT password_version, password_hash FROM canvases WHERE id = ?1',
        c.id,
      ))!;
    const v0 = (await version()).password_version;
    let res = await patch({ password: 'correct horse' });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(JSON.parse(text).hasPassword).toBe(true);
    expect(text).not.toContain('correct horse');
    expect(text).not.toContain('argon2');
    const stored = await version();
    expect(stored.password_hash).toStartWith('$argon2id$');
    expect(await Bun.password.verify('correct horse', stored.password_hash!)).toBe(true);
    expect(stored.password_version).toBe(v0 + 1);
    await patch({ password: 'another one' }, 'editor');
    expect((await version()).password_version).toBe(v0 + 2);
    res = await patch({ password: null });
    expect((await body(res)).hasPassword).toBe(false);
    expect(await version()).toEqual({ password_version: v0 + 3, password_hash: null });
    for (const password of ['', 'x'.repeat(201), 5]) {
      const bad = await patch({ password });
      expect({ status: bad.status, code: (await body(bad)).code }).toEqual({ status: 400, code: 'INVALID_BODY' });
    }
    expect((await version()).password_version).toBe(v0 + 3);
    const all = JSON.stringify(app.nodes.map((node) => node.logs)) + JSON.stringify(await app.ctx.sql.all('SELECT * FROM audit_log'));
    expect(all).not.toContain('correct horse');
    expect(all).not.toContain('another one');
  });

  test('expiresAt: a past value is accepted (expired at once), null clears, junk is 400', async () => {
    expect((await body(await patch({ expiresAt: clock - 1 }))).expiresAt).toBe(clock - 1);
    expect((await body(await patch({ expiresAt: clock + 86_400_000 }))).expiresAt).toBe(clock + 86_400_000);
    expect((await body(await patch({ expiresAt: null }))).expiresAt).toBeNull();
    for (const expiresAt of [-1, 1.5, '2030-01-01', true, 8.64e15 + 1, 9223372036854776000]) {
      const res = await patch({ expiresAt });
      expect({ expiresAt, status: res.status }).toEqual({ expiresAt, status: 400 });
    }
  });

  test('access modes: whole_org and public_link; instance and owner switches refuse public_link', async () => {
    const v = await body(await patch({ accessMode: 'whole_org' }, 'editor'));
    expect(v.accessMode).toBe('whole_org');
    expect((await body(await patch({ accessMode: 'public_link' }))).accessMode).toBe('public_link');
    expect((await body(await patch({ accessMode: 'restricted' }))).accessMode).toBe('restricted');

    await adminSettings(app, p.cookie.admin, { publicLinks: false });
    let before = await snapshot(app, c.id);
    let res = await patch({ accessMode: 'public_link', title: 'Not applied' });
    expect(await body(res)).toEqual({ code: 'PUBLIC_LINKS_DISABLED', message: expect.any(String) });
    expect(res.status).toBe(403);
    expect(await snapshot(app, c.id)).toBe(before);
    await adminSettings(app, p.cookie.admin, { publicLinks: null });

    await adminUser(app, p.cookie.admin, p.id.owner, { canPublishPublic: false });
    // The owner's account decides, whoever asks.
    for (const who of ['owner', 'editor', 'admin'] as const) {
      res = await patch({ accessMode: 'public_link' }, who);
      expect(res.status).toBe(403);
      expect((await body(res)).code).toBe('PUBLIC_NOT_ALLOWED');
    }
    expect(await snapshot(app, c.id)).toBe(before);
    await adminUser(app, p.cookie.admin, p.id.owner, { canPublishPublic: true });
    expect((await patch({ accessMode: 'bogus' })).status).toBe(400);
  });

  test('an empty PATCH changes nothing and answers the view', async () => {
    const before = await snapshot(app, c.id);
    const res = await patch({});
    expect(res.status).toBe(200);
    expect((await body(res)).id).toBe(c.id);
    expect(await snapshot(app, c.id)).toBe(before);
  });
});

describe('tenancy on: whole_org needs the owner home org', () => {
  test('409 ORG_REQUIRED until an admin sets the org', async () => {
    const tenant = await startTestApp({
      env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_TENANCY: 'on', EASEL_USER_CANVAS_CREATES_PER_HOUR: '1000000' },
    });
    try {
      const q = await people(tenant);
      const c = await makeCanvas(tenant, q);
      const before = await snapshot(tenant, c.id);
      let res = await tenant.request(`/api/canvases/${c.id}`, {
        method: 'PATCH',
        cookie: q.cookie.editor,
        json: { accessMode: 'whole_org' },
      });
      expect(res.status).toBe(409);
      expect((await body(res)).code).toBe('ORG_REQUIRED');
      expect(await snapshot(tenant, c.id)).toBe(before);
      res = await tenant.request(`/api/admin/users/${q.id.owner}`, { method: 'PATCH', cookie: q.cookie.admin, json: { orgId: 'acme' } });
      expect(res.status).toBe(200);
      res = await tenant.request(`/api/canvases/${c.id}`, { method: 'PATCH', cookie: q.cookie.editor, json: { accessMode: 'whole_org' } });
      expect((await body(res)).accessMode).toBe('whole_org');
      expect((await body(await tenant.request('/api/me', { cookie: q.cookie.owner }))).orgs).toEqual([{ id: 'acme', name: 'acme' }]);
      expect((await body(await tenant.request('/api/me', { cookie: q.cookie.viewer }))).orgs).toEqual([]);
    } finally {
      await tenant.close();
    }
  });
});

describe('members', () => {
  test('list: the owner first, then members; PUT adds by email (creating the user) or changes the role', async () => {
    const c = await makeCanvas(app, p);
    let res = await app.request(`/api/canvases/${c.id}/members`, { cookie: p.cookie.editor });
    const { members } = await body(res);
    expect(members.map((m: any) => [m.userId, m.role])).toEqual([
      [p.id.owner, 'owner'],
      [p.id.editor, 'editor'],
      [p.id.viewer, 'viewer'],
    ]);
    expect(Object.keys(members[0]).sort()).toEqual(['email', 'name', 'role', 'userId']);

    expect(await app.ctx.users.byEmail('brand-new@example.com')).toBeNull();
    res = await app.request(`/api/canvases/${c.id}/members`, {
      method: 'PUT',
      cookie: p.cookie.editor,
      json: { email: ' Brand-New@Example.com ', role: 'editor' },
    });
    const added = await body(res);
    expect(added).toEqual({ userId: expect.any(String), email: 'brand-new@example.com', name: 'brand-new', role: 'editor' });
    expect((await app.ctx.users.byEmail('brand-new@example.com'))?.id).toBe(added.userId);
    expect(await app.ctx.canvases.roleOf({ id: c.id, ownerId: p.id.owner }, added.userId)).toBe('editor');
    res = await app.request(`/api/canvases/${c.id}/members`, {
      method: 'PUT',
      cookie: p.cookie.owner,
      json: { email: 'brand-new@example.com', role: 'viewer' },
    });
    expect((await body(res)).role).toBe('viewer');
    expect(await app.ctx.canvases.roleOf({ id: c.id, ownerId: p.id.owner }, added.userId)).toBe('viewer');
  });

  test('the owner cannot be added or removed; bad emails and roles are refused; removing a non-member is 404', async () => {
    const c = await makeCanvas(app, p);
    const before = await snapshot(app, c.id);
    const ownerEmail = (await app.ctx.users.byId(p.id.owner))!.email;
    const cases: Array<[string, string, unknown, number, string]> = [
      ['PUT', 'members', { email: ownerEmail.toUpperCase(), role: 'editor' }, 400, 'INVALID_BODY'],
      ['PUT', 'members', { email: 'not-an-email', role: 'editor' }, 400, 'INVALID_BODY'],
      ['PUT', 'members', { email: 'x@example.com', role: 'owner' }, 400, 'INVALID_BODY'],
      ['PUT', 'members', { email: 'x@example.com' }, 400, 'INVALID_BODY'],
      ['PUT', 'members', { email: 'x@example.com', role: 'viewer', admin: true }, 400, 'INVALID_BODY'],
      ['DELETE', `members/${p.id.owner}`, undefined, 400, 'INVALID_BODY'],
      ['DELETE', `members/${p.id.stranger}`, undefined, 404, 'NOT_FOUND'],
      ['DELETE', 'members/nobody', undefined, 404, 'NOT_FOUND'],
    ];
    for (const [method, path, json, status, code] of cases) {
      const res = await app.request(`/api/canvases/${c.id}/${path}`, { method, cookie: p.cookie.owner, json });
      expect({ method, path, status: res.status, code: (await body(res)).code }).toEqual({ method, path, status, code });
    }
    expect(await snapshot(app, c.id)).toBe(before);
    expect(await app.ctx.users.byEmail('x@example.com')).toBeNull();
  });

  test('a removed editor loses management at once; a demoted editor sees 404', async () => {
    const c = await makeCanvas(app, p);
    const events: string[] = [];
    const off = app.onEvent('canvas.access-changed', (e) => events.push(e.canvasId));
    const editorEmail = (await app.ctx.users.byId(p.id.editor))!.email;
    await app.request(`/api/canvases/${c.id}/members`, {
      method: 'PUT',
      cookie: p.cookie.owner,
      json: { email: editorEmail, role: 'viewer' },
    });
    expect((await app.request(`/api/canvases/${c.id}`, { cookie: p.cookie.editor })).status).toBe(404);
    const res = await app.request(`/api/canvases/${c.id}/members/${p.id.editor}`, { method: 'DELETE', cookie: p.cookie.owner });
    expect(await body(res)).toEqual({ ok: true });
    expect(await app.ctx.canvases.roleOf({ id: c.id, ownerId: p.id.owner }, p.id.editor)).toBeNull();
    expect(events).toEqual([c.id, c.id]);
    off();
  });
});

describe('regenerate key, archive, restore, delete', () => {
  test('a regenerated key replaces the old one at once', async () => {
    const c = await makeCanvas(app, p);
    const res = await app.request(`/api/canvases/${c.id}/regenerate-key`, { method: 'POST', cookie: p.cookie.owner });
    const { apiKey } = await body(res);
    expect(apiKey).toMatch(/^easel_sk_[0-9A-Za-z]{40}$/);
    expect(apiKey).not.toBe(c.apiKey);
    expect(await app.ctx.canvases.byKeyHash(hashCanvasKey(c.apiKey))).toBeNull();
    expect((await app.ctx.canvases.byKeyHash(hashCanvasKey(apiKey)))?.id).toBe(c.id);
  });

  test('archive and restore flip the status (idempotent); a disabled canvas stays disabled', async () => {
    const c = await makeCanvas(app, p);
    const post = (what: string, who: Who = 'owner') =>
      app.request(`/api/canvases/${c.id}/${what}`, { method: 'POST', cookie: p.cookie[who] });
    expect((await body(await post('archive'))).status).toBe('archived');
    expect((await body(await post('archive'))).status).toBe('archived');
    expect((await app.request(`/api/canvases/${c.id}`, { cookie: p.cookie.editor })).status).toBe(200);
    expect((await body(await post('restore', 'admin'))).status).toBe('active');
    await app.request(`/api/admin/canvases/${c.id}/disable`, { method: 'POST', cookie: p.cookie.admin });
    expect((await body(await post('archive'))).status).toBe('disabled');
    expect((await body(await post('restore'))).status).toBe('disabled');
    await app.request(`/api/admin/canvases/${c.id}/enable`, { method: 'POST', cookie: p.cookie.admin });
    expect((await body(await app.request(`/api/canvases/${c.id}`, { cookie: p.cookie.owner }))).status).toBe('active');
  });

  test('delete: the canvas vanishes everywhere, its slug is free, events fire', async () => {
    const c = await makeCanvas(app, p, 'Doomed Canvas');
    const seen: string[] = [];
    const offs = [
      app.onEvent('canvas.deleted', () => seen.push('deleted')),
      app.onEvent('canvas.access-changed', () => seen.push('access')),
    ];
    expect(await body(await app.request(`/api/canvases/${c.id}`, { method: 'DELETE', cookie: p.cookie.admin }))).toEqual({ ok: true });
    offs.forEach((f) => f());
    expect(seen.sort()).toEqual(['access', 'deleted']);
    expect(await app.ctx.canvases.byId(c.id)).toBeNull();
    expect(await app.ctx.canvases.bySlug(c.slug)).toBeNull();
    for (const who of ['owner', 'editor', 'viewer'] as const) {
      const list = await body(await app.request('/api/canvases', { cookie: p.cookie[who] }));
      expect(list.canvases.some((x: any) => x.id === c.id)).toBe(false);
    }
    for (const [method, path] of [
      ['GET', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['GET', '/members'],
      ['POST', '/archive'],
      ['POST', '/regenerate-key'],
    ]) {
      const res = await app.request(`/api/canvases/${c.id}${path}`, {
        method,
        cookie: p.cookie.owner,
        json: method === 'PATCH' ? { title: 'x' } : undefined,
      });
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
    }
    const reuse = await app.request('/api/canvases', { method: 'POST', cookie: p.cookie.stranger, json: { title: 'x', slug: c.slug } });
    expect(reuse.status).toBe(201);
  });
});

describe('audit log', () => {
  test('every write is recorded with who, what, which canvas and field names — never values, keys or passwords', async () => {
    const q = await people(app);
    const c = await makeCanvas(app, q, 'Audited');
    const call = (method: string, path: string, who: Who, json?: unknown) =>
      app.request(`/api/canvases/${c.id}${path}`, { method, cookie: q.cookie[who], json });
    await call('PATCH', '', 'editor', { title: 'Audited 2', password: 'hunter2-secret', expiresAt: clock + 1 });
    await call('PATCH', '/capabilities', 'owner', {
      ai: true,
      expectedRuntimePolicy: null,
      runtimePolicy: { collections: { notes: { preset: 'personal' } } },
    });
    const { apiKey } = await body(await call('POST', '/regenerate-key', 'admin'));
    await call('POST', '/archive', 'owner');
    await call('POST', '/restore', 'owner');
    await call('DELETE', `/members/${q.id.viewer}`, 'owner');
    await call('DELETE', '', 'owner');
    const rows = (
      await app.ctx.sql.all<{ actor_id: string; actor_kind: string; action: string; detail: string | null }>(
        'SELECT actor_id, actor_kind, action, detail FROM audit_log WHERE canvas_id = ?1 ORDER BY id',
        c.id,
      )
    ).map((r) => [r.actor_id, r.actor_kind, r.action, r.detail ? JSON.parse(r.detail) : null]);
    expect(rows).toEqual([
      [q.id.owner, 'user', 'canvas.create', { fields: ['title'] }],
      [q.id.owner, 'user', 'canvas.member.put', { userId: q.id.editor, fields: ['role'] }],
      [q.id.owner, 'user', 'canvas.member.put', { userId: q.id.viewer, fields: ['role'] }],
      [q.id.editor, 'user', 'canvas.update', { fields: ['title', 'password', 'expiresAt'] }],
      [q.id.owner, 'user', 'canvas.capabilities', { fields: ['ai', 'runtimePolicy'] }],
      [q.id.admin, 'admin', 'canvas.key.regenerate', null],
      [q.id.owner, 'user', 'canvas.archive', null],
      [q.id.owner, 'user', 'canvas.restore', null],
      [q.id.owner, 'user', 'canvas.member.remove', { userId: q.id.viewer }],
      [q.id.owner, 'user', 'canvas.delete', null],
    ]);
    const everything =
      JSON.stringify(await app.ctx.sql.all('SELECT * FROM audit_log')) + JSON.stringify(app.nodes.map((node) => node.logs));
    for (const secret of ['hunter2-secret', apiKey, c.apiKey, 'Audited 2']) expect(everything).not.toContain(secret);
  });
});

describe('GET /api/me', () => {
  test('exactly the spec fields, for every signed-in user; 401 without a session', async () => {
    expect(await body(await app.request('/api/me'))).toEqual({ error: 'unauthorized' });
    const me = await body(await app.request('/api/me', { cookie: p.cookie.viewer }));
    expect(me).toEqual({
      id: p.id.viewer,
      email: (await app.ctx.users.byId(p.id.viewer))!.email,
      name: (await app.ctx.users.byId(p.id.viewer))!.name,
      avatarUrl: null,
      isAdmin: false,
      orgs: [{ id: 'default', name: 'Everyone' }],
      isGuest: false,
      canPublishPublic: true,
      authMode: 'dev',
      urlMode: 'path',
      baseUrl: app.ctx.config.baseUrl,
      designSkin: 'default',
    });
    expect((await body(await app.request('/api/me', { cookie: p.cookie.admin }))).isAdmin).toBe(true);
  });

  test('canPublishPublic reflects the account and the instance switch', async () => {
    await adminSettings(app, p.cookie.admin, { publicLinks: false });
    expect((await body(await app.request('/api/me', { cookie: p.cookie.owner }))).canPublishPublic).toBe(false);
    await adminSettings(app, p.cookie.admin, { publicLinks: null });
    await adminUser(app, p.cookie.admin, p.id.stranger, { canPublishPublic: false });
    expect((await body(await app.request('/api/me', { cookie: p.cookie.stranger }))).canPublishPublic).toBe(false);
    await adminUser(app, p.cookie.admin, p.id.stranger, { canPublishPublic: true });
  });
});

describe('requests from canvas pages are refused on the management API', () => {
  test('Sec-Fetch-Site same-site/cross-site → 403 CROSS_SITE_FORBIDDEN; a Referer under /c/ → 403 CROSS_CANVAS_FORBIDDEN', async () => {
    const c = await makeCanvas(app, p);
    const before = await snapshot(app, c.id);
    const cases: Array<[Record<string, string>, number, string | null]> = [
      [{ 'sec-fetch-site': 'same-site' }, 403, 'CROSS_SITE_FORBIDDEN'],
      [{ 'sec-fetch-site': 'cross-site' }, 403, 'CROSS_SITE_FORBIDDEN'],
      [{ referer: `http://localhost/c/${c.slug}/index.html`, 'sec-fetch-site': 'same-origin' }, 403, 'CROSS_CANVAS_FORBIDDEN'],
      [{ referer: 'http://localhost/v1/c/x/' }, 403, 'CROSS_CANVAS_FORBIDDEN'],
      [{ referer: 'http://localhost/', 'sec-fetch-site': 'same-origin' }, 200, null],
      [{ 'sec-fetch-site': 'none' }, 200, null],
    ];
    for (const [headers, status, code] of cases) {
      const res = await app.request(`/api/canvases/${c.id}/archive`, { method: 'POST', cookie: p.cookie.owner, headers });
      expect({ headers, status: res.status }).toEqual({ headers, status });
      if (code) expect((await body(res)).code).toBe(code);
      if (status === 403) expect(await snapshot(app, c.id)).toBe(before);
    }
  });
});

describe('guest invites go through the same door', () => {
  test('from a canvas page: 403 on create, list and revoke, and nothing is minted or revoked', async () => {
    const c = await makeCanvas(app, p);
    const invites = () => app.ctx.guests.invites(c.id);
    const existing = await app.request(`/api/canvases/${c.id}/guest-invites`, {
      method: 'POST',
      cookie: p.cookie.owner,
      json: { name: 'Kept' },
    });
    expect(existing.status).toBe(201);
    const { inviteId } = await body(existing);
    const fromCanvas: Array<[Record<string, string>, string]> = [
      [{ 'sec-fetch-site': 'same-site', origin: 'http://evil.canvas.example' }, 'CROSS_SITE_FORBIDDEN'],
      [{ referer: `http://localhost/c/${c.slug}/`, 'sec-fetch-site': 'same-origin' }, 'CROSS_CANVAS_FORBIDDEN'],
    ];
    const refused = async (res: Response, code: string) => {
      expect(res.status).toBe(403);
      const text = await res.text();
      expect(text).not.toContain('token=');
      expect(JSON.parse(text)).toEqual({ code, message: expect.any(String) });
    };
    for (const [headers, code] of fromCanvas) {
      await refused(
        await app.request(`/api/canvases/${c.id}/guest-invites`, {
          method: 'POST',
          cookie: p.cookie.owner,
          headers: { ...headers, 'content-type': 'text/plain' },
          body: '{}',
        }),
        code,
      );
      await refused(await app.request(`/api/canvases/${c.id}/guest-invites`, { cookie: p.cookie.owner, headers }), code);
      await refused(
        await app.request(`/api/canvases/${c.id}/guest-invites/${inviteId}`, { method: 'DELETE', cookie: p.cookie.owner, headers }),
        code,
      );
    }
    expect((await invites()).map((i) => [i.inviteId, i.revokedAt])).toEqual([[inviteId, null]]);
  });

  test("an admin acting on someone else's canvas is audited as admin", async () => {
    const c = await makeCanvas(app, p);
    const res = await app.request(`/api/canvases/${c.id}/guest-invites`, { method: 'POST', cookie: p.cookie.admin, json: {} });
    expect(res.status).toBe(201);
    const row = await app.ctx.sql.get<{ actor_kind: string; actor_id: string }>(
      "SELECT actor_kind, actor_id FROM audit_log WHERE canvas_id = ?1 AND action = 'guest.invite.created'",
      c.id,
    );
    expect(row).toEqual({ actor_kind: 'admin', actor_id: p.id.admin });
  });
});

describe('management rate limit', () => {
  test('per user: 429 {error: rate_limited} with Retry-After, across /api/* routes; others unaffected; the window resets', async () => {
    let now = Date.UTC(2030, 5, 1, 12, 0, 0);
    const limited = await startTestApp({
      env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_RATELIMIT_MANAGEMENT_PER_MIN: '3' },
      now: () => now,
    });
    try {
      const ann = await limited.signIn('ann@example.com');
      const bob = await limited.signIn('bob@example.com');
      const admin = await limited.signIn(ADMIN_EMAIL);
      expect((await limited.request('/api/me', { cookie: ann })).status).toBe(200);
      expect((await limited.request('/api/canvases', { cookie: ann })).status).toBe(200);
      expect((await limited.request('/api/canvases', { method: 'POST', cookie: ann, json: { title: 'x' } })).status).toBe(201);
      for (const [method, path] of [
        ['GET', '/api/me'],
        ['GET', '/api/canvases'],
        ['POST', '/api/canvases'],
      ]) {
        const res = await limited.request(path!, { method, cookie: ann, json: method === 'POST' ? { title: 'y' } : undefined });
        expect(res.status).toBe(429);
        expect(await body(res)).toEqual({ error: 'rate_limited' });
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
      expect((await limited.ctx.sql.get<{ n: number }>('SELECT count(*) AS n FROM canvases'))!.n).toBe(1);
      expect((await limited.request('/api/me', { cookie: bob })).status).toBe(200);
      for (let i = 0; i < 3; i++) await limited.request('/api/admin/settings', { cookie: admin });
      expect((await limited.request('/api/admin/users', { cookie: admin })).status).toBe(429);
      now += 60_000;
      expect((await limited.request('/api/me', { cookie: ann })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  test('EASEL_RATELIMIT_ENABLED=false lifts it', async () => {
    const open = await startTestApp({ env: { EASEL_RATELIMIT_MANAGEMENT_PER_MIN: '1', EASEL_RATELIMIT_ENABLED: 'false' } });
    try {
      const ann = await open.signIn('ann@example.com');
      for (let i = 0; i < 3; i++) expect((await open.request('/api/me', { cookie: ann })).status).toBe(200);
    } finally {
      await open.close();
    }
  });
});
