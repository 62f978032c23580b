// passes: embedded, cluster
import { adminSettings, adminUser } from './admin-actions.ts';
import { SECRET_KEY_HEX } from './connections-fixtures.ts';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { corsHeaders } from '../src/runtime/isolation.ts';
import { addHeaders } from '../src/http/add-headers.ts';
import { capabilityRefusal } from '../src/runtime/pipeline.ts';
import { gateCookieWith } from '../src/serve/gate-pass.ts';
import { utcDay } from '../src/runtime/usage.ts';
import { body, startTestApp, type TestApp } from './harness.ts';
import type { CanvasOptions } from './world.ts';
import { expectCode } from './expect-code.ts';
import { ADMIN_EMAIL, guestCookie, makeWorld, type World } from './runtime-fixtures.ts';

const METHODS = 'GET,HEAD,POST,PUT,PATCH,DELETE,OPTIONS';
const CHANNEL = { subscribe: 'viewers', publish: 'editors', seePresence: 'viewers', participatePresence: 'none' };

describe('runtime pipeline (path mode)', () => {
  let app: TestApp;
  let w: World;
  let clock = Date.UTC(2030, 0, 15, 12);
  beforeAll(async () => {
    app = await startTestApp({
      now: () => clock,
      env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_RATELIMIT_CANVAS_API_PER_MIN: '1000', EASEL_SECRET_KEY: SECRET_KEY_HEX },
    });
    w = await makeWorld(app);
  });
  afterAll(() => app.close());

  const me = (cookie: string, headers: Record<string, string> = {}, slug = w.slug) => app.request(`/v1/c/${slug}/me`, { cookie, headers });
  /** A canvas of the owner's, made through the API (no list, no guest unless asked). */
  const made = (o: CanvasOptions = {}) => w.world.newCanvas({ members: false, guest: false, ...o });
  const record = async (c: { id: string }) => (await app.ctx.canvases.byId(c.id))!;

  test('step 0: a preflight is answered before the gateway: 204 without a session, no CORS origin in path mode', async () => {
    const res = await app.request(`/v1/c/${w.slug}/kv/x`, {
      method: 'OPTIONS',
      headers: { origin: 'http://elsewhere.example', 'access-control-request-method': 'PUT' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-methods')).toBe(METHODS);
    expect(res.headers.get('access-control-allow-headers')).toBe('Content-Type');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const unknown = await app.request('/v1/c/no-such-canvas/me', {
      method: 'OPTIONS',
      headers: { 'access-control-request-headers': 'content-type, x-custom' },
    });
    expect(unknown.status).toBe(204);
    expect(unknown.headers.get('access-control-allow-headers')).toBe('content-type, x-custom');
  });

  test('step 1: no session is 401 {error: unauthorized}, even for an unknown slug', async () => {
    for (const slug of [w.slug, 'no-such-canvas']) {
      const res = await me('', {}, slug);
      expect(res.status).toBe(401);
      expect(await body(res)).toEqual({ error: 'unauthorized' });
    }
  });

  test('step 1: an anonymous visitor passes the gateway only for an open Public link canvas, then meets STATIC_ONLY', async () => {
    const pub = await made({ settings: { accessMode: 'public_link' } });
    const b = await expectCode(await me('', {}, pub.slug), 403, 'STATIC_ONLY');
    expect(b.message).toContain('public');
    expect(b.message).toContain('static-only');
    const archived = await made({ settings: { accessMode: 'public_link' } });
    await w.world.archive(archived);
    expect((await me('', {}, archived.slug)).status).toBe(401);
    const expired = await made({ settings: { accessMode: 'public_link', expiresAt: clock + 1000 } });
    clock += 1001;
    expect((await me('', {}, expired.slug)).status).toBe(401);
    await adminSettings(app, w.cookie.admin, { publicLinks: false });
    expect((await me('', {}, pub.slug)).status).toBe(401);
    await adminSettings(app, w.cookie.admin, { publicLinks: null });
    await adminUser(app, w.cookie.admin, w.ids.owner, { canPublishPublic: false });
    expect((await me('', {}, pub.slug)).status).toBe(401);
    await adminUser(app, w.cookie.admin, w.ids.owner, { canPublishPublic: true });
  });

  test('step 3: the sharing rung, with the exact codes; admins get no bypass', async () => {
    await expectCode(await me(w.cookie.viewer, {}, 'no-such-canvas'), 404, 'NOT_FOUND');
    await expectCode(await me(w.cookie.stranger), 404, 'OWNER_ONLY');
    await expectCode(await me(w.cookie.admin), 404, 'OWNER_ONLY');
    for (const who of ['viewer', 'editor', 'owner', 'guest'] as const) expect((await me(w.cookie[who])).status).toBe(200);
    const other = await made({ settings: { accessMode: 'whole_org' } });
    await expectCode(await me(w.cookie.guest, {}, other.slug), 404, 'NOT_INVITED');
    expect((await me(w.cookie.stranger, {}, other.slug)).status).toBe(200);
  });

  test('step 3: archived 404 ARCHIVED, disabled 403 DISABLED (owner too), deleted NOT_FOUND', async () => {
    const c = await made();
    await w.world.archive(c);
    await expectCode(await me(w.cookie.owner, {}, c.slug), 404, 'ARCHIVED');
    await w.world.archive(c, false);
    await w.world.disable(c);
    await expectCode(await me(w.cookie.owner, {}, c.slug), 403, 'DISABLED');
    await w.world.disable(c, false);
    await w.world.delete(c);
    await expectCode(await me(w.cookie.owner, {}, c.slug), 404, 'NOT_FOUND');
  });

  test('step 3: an expired share is SHARE_EXPIRED for viewers and guests, not for owners and editors', async () => {
    const c = await made({ members: true, settings: { expiresAt: clock + 1000 } });
    clock += 1001;
    await expectCode(await me(w.cookie.viewer, {}, c.slug), 404, 'SHARE_EXPIRED');
    expect((await me(w.cookie.editor, {}, c.slug)).status).toBe(200);
    expect((await me(w.cookie.owner, {}, c.slug)).status).toBe(200);
  });

  test('step 3: a password gate is PASSWORD_REQUIRED for viewers; owners, editors and guests pass', async () => {
    const c = await made({ members: true, settings: { password: 'x' } });
    const guest = await guestCookie(app, c.id, w.cookie.owner);
    await expectCode(await me(w.cookie.viewer, {}, c.slug), 403, 'PASSWORD_REQUIRED');
    for (const cookie of [w.cookie.owner, w.cookie.editor, guest.cookie]) expect((await me(cookie, {}, c.slug)).status).toBe(200);
    // The page's gate pass (the serving feature's cookie) opens the runtime API too, for this password version only.
    const pass = gateCookieWith(app.ctx, new Request('http://localhost/'), (await app.ctx.canvases.byId(c.id))!).split(';')[0]!;
    expect((await me(`${w.cookie.viewer}; ${pass}`, {}, c.slug)).status).toBe(200);
    await w.world.settings({ password: 'y' }, c);
    await expectCode(await me(`${w.cookie.viewer}; ${pass}`, {}, c.slug), 403, 'PASSWORD_REQUIRED');
  });

  test('step 3: a Public link canvas is static-only for signed-in viewers too; owners and editors use the API', async () => {
    const c = await made({ members: true, settings: { accessMode: 'public_link' } });
    for (const who of ['viewer', 'stranger'] as const) await expectCode(await me(w.cookie[who], {}, c.slug), 403, 'STATIC_ONLY');
    expect((await me(w.cookie.editor, {}, c.slug)).status).toBe(200);
    expect((await me(w.cookie.owner, {}, c.slug)).status).toBe(200);
  });

  test('step 3 before step 4: a refused viewer learns OWNER_ONLY, not the isolation code', async () => {
    await expectCode(await me(w.cookie.stranger, { 'sec-fetch-site': 'cross-site' }), 404, 'OWNER_ONLY');
  });

  test('step 4 (path mode): Sec-Fetch-Site other than same-origin/none is CROSS_SITE_FORBIDDEN', async () => {
    for (const site of ['cross-site', 'same-site'])
      await expectCode(await me(w.cookie.viewer, { 'sec-fetch-site': site }), 403, 'CROSS_SITE_FORBIDDEN');
    for (const site of ['same-origin', 'none']) expect((await me(w.cookie.viewer, { 'sec-fetch-site': site })).status).toBe(200);
  });

  test('step 4 (path mode): a Referer outside /c/{slug} is CROSS_CANVAS_FORBIDDEN, checked after Sec-Fetch-Site', async () => {
    const base = app.base;
    for (const ref of [`${base}/c/${w.slug}`, `${base}/c/${w.slug}/`, `${base}/c/${w.slug}/deep/page.html?x=1`]) {
      expect((await me(w.cookie.viewer, { referer: ref })).status).toBe(200);
    }
    for (const ref of [`${base}/c/other/`, `${base}/c/${w.slug}x/`, `${base}/`, `${base}/c/${w.slug}/../other/`]) {
      await expectCode(await me(w.cookie.viewer, { referer: ref }), 403, 'CROSS_CANVAS_FORBIDDEN');
    }
    await expectCode(
      await me(w.cookie.viewer, { referer: `${base}/c/other/`, 'sec-fetch-site': 'cross-site' }),
      403,
      'CROSS_SITE_FORBIDDEN',
    );
    const ok = await me(w.cookie.viewer, { referer: `${base}/c/${w.slug}/` });
    expect(ok.headers.get('access-control-allow-origin')).toBeNull();
  });

  test('step 4 before step 5: isolation refuses before the capability gate', async () => {
    const c = await made({ capabilities: { backend: false } });
    await expectCode(await me(w.cookie.owner, { 'sec-fetch-site': 'cross-site' }, c.slug), 403, 'CROSS_SITE_FORBIDDEN');
    await expectCode(await me(w.cookie.owner, {}, c.slug), 403, 'CAPABILITY_DISABLED');
  });

  test('step 5: CAPABILITY_DISABLED carries capability, backendEnabled, reason and hint', async () => {
    const off = await made({ capabilities: { backend: false } });
    const b = await expectCode(await me(w.cookie.owner, {}, off.slug), 403, 'CAPABILITY_DISABLED');
    expect(b).toEqual({
      code: 'CAPABILITY_DISABLED',
      message: expect.any(String),
      capability: 'identity',
      backendEnabled: false,
      reason: 'backend_off',
      hint: expect.any(String),
    });
    const noKv = await made({ capabilities: { kv: false, files: false } });
    expect((await me(w.cookie.owner, {}, noKv.slug)).status).toBe(200);
    const kv = await expectCode(await app.request(`/v1/c/${noKv.slug}/kv/a`, { cookie: w.cookie.owner }), 403, 'CAPABILITY_DISABLED');
    expect(kv).toMatchObject({ capability: 'kv', backendEnabled: true, reason: 'feature_off' });
    const files = await expectCode(await app.request(`/v1/c/${noKv.slug}/files`, { cookie: w.cookie.owner }), 403, 'CAPABILITY_DISABLED');
    expect(files).toMatchObject({ capability: 'files', backendEnabled: true, reason: 'feature_off' });
  });

  test('step 5 before role checks: a viewer writing shared KV on a kv-off canvas hears CAPABILITY_DISABLED', async () => {
    const c = await made({ members: true, capabilities: { kv: false } });
    await expectCode(
      await app.request(`/v1/c/${c.slug}/kv/a`, { method: 'PUT', cookie: w.cookie.viewer, json: 1 }),
      403,
      'CAPABILITY_DISABLED',
    );
    await expectCode(
      await app.request(`/v1/c/${w.slug}/kv/a`, { method: 'PUT', cookie: w.cookie.viewer, json: 1 }),
      403,
      'PERMISSION_DENIED',
    );
  });

  test('capability effectiveness: ai needs a provider key, realtime EASEL_REALTIME, authoring EASEL_AUTHORING, connections a grant', async () => {
    const c = await record(await made({ capabilities: { ai: true, authoring: true } }));
    expect(capabilityRefusal(app.ctx, c, 'identity')).toBeNull();
    expect(capabilityRefusal(app.ctx, c, 'kv')).toBeNull();
    expect(capabilityRefusal(app.ctx, c, 'realtime')).toBeNull();
    expect(capabilityRefusal(app.ctx, c, 'ai')?.body()).toMatchObject({
      code: 'CAPABILITY_DISABLED',
      capability: 'ai',
      reason: 'operator_disabled',
    });
    await adminSettings(app, w.cookie.admin, { aiApiKey: 'sk-test' });
    // Node A's held settings are read below: on the cluster node B may have served the change.
    await app.caughtUp();
    expect(capabilityRefusal(app.ctx, c, 'ai')).toBeNull();
    await adminSettings(app, w.cookie.admin, { aiApiKey: null });
    await app.caughtUp();
    expect(capabilityRefusal(app.ctx, c, 'authoring')?.body()).toMatchObject({ capability: 'authoring', reason: 'operator_disabled' });
    expect(capabilityRefusal(app.ctx, c, 'connections')?.body()).toMatchObject({
      capability: 'connections',
      reason: 'operator_disabled',
      backendEnabled: true,
    });
    const rtOff = await record(await made({ capabilities: { realtime: false } }));
    expect(capabilityRefusal(app.ctx, rtOff, 'realtime')?.body()).toMatchObject({ reason: 'feature_off' });
    app.ctx.config.realtime = false;
    expect(capabilityRefusal(app.ctx, c, 'realtime')?.body()).toMatchObject({ reason: 'operator_disabled' });
    app.ctx.config.realtime = true;
  });

  test('GET /me answers exactly the identity fields; never isAdmin', async () => {
    const res = await me(w.cookie.viewer);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const b = await body(res);
    expect(Object.keys(b).sort()).toEqual(['avatarUrl', 'canvasRole', 'email', 'id', 'kind', 'name', 'permissions', 'resources']);
    expect(b).toEqual({
      id: w.ids.viewer,
      email: expect.stringContaining('viewer-'),
      name: 'viewer',
      avatarUrl: null,
      kind: 'member',
      canvasRole: 'viewer',
      permissions: {
        canWriteSharedKv: false,
        canUploadSharedFiles: false,
        canUploadSubmissionFiles: true,
        canUseAi: false,
        canCreateCanvas: false,
      },
      resources: { collections: [], fileGroups: [], channels: [], connections: [] },
    });
    const editor = await body(await me(w.cookie.editor));
    expect(editor.canvasRole).toBe('editor');
    expect(editor.permissions).toMatchObject({ canWriteSharedKv: true, canUploadSharedFiles: true });
    expect((await body(await me(w.cookie.owner))).canvasRole).toBe('owner');
  });

  test('GET /me: an admin on the list has their list role and no isAdmin', async () => {
    const c = await made();
    await w.world.expectOk('PUT', `/api/canvases/${c.id}/members`, 'owner', { email: w.world.emails.admin, role: 'viewer' });
    const b = await body(await me(w.cookie.admin, {}, c.slug));
    expect(b.canvasRole).toBe('viewer');
    expect('isAdmin' in b).toBe(false);
  });

  test('GET /me for a guest: a synthetic user guest:<inviteId>, kind guest, viewer role', async () => {
    const b = await body(await me(w.cookie.guest));
    expect(b).toEqual({
      id: w.ids.guest,
      email: null,
      name: 'Guest',
      avatarUrl: null,
      kind: 'guest',
      canvasRole: 'viewer',
      permissions: {
        canWriteSharedKv: false,
        canUploadSharedFiles: false,
        canUploadSubmissionFiles: true,
        canUseAi: false,
        canCreateCanvas: false,
      },
      resources: { collections: [], fileGroups: [], channels: [], connections: [] },
    });
  });

  test('GET /me: resources list the runtime policy names; canCreateCanvas needs effective authoring and a member', async () => {
    const policy = {
      defaultMode: 'participation',
      collections: { notes: { preset: 'personal' } },
      fileGroups: { photos: { preset: 'managed' } },
      channels: { lobby: CHANNEL, 'participants:chat': CHANNEL },
    };
    const c = await made({ capabilities: { authoring: true, runtimePolicy: policy, expectedRuntimePolicy: null } });
    const guest = await guestCookie(app, c.id, w.cookie.owner);
    const off = await body(await me(w.cookie.owner, {}, c.slug));
    expect(off.resources).toEqual({
      collections: ['notes'],
      fileGroups: ['photos'],
      channels: ['lobby', 'participants:chat'],
      connections: [],
    });
    expect(off.permissions.canCreateCanvas).toBe(false);
    // Every node's configuration (on the cluster pass the requests go to both).
    for (const node of app.nodes) node.ctx.config.authoring = true;
    expect((await body(await me(w.cookie.owner, {}, c.slug))).permissions.canCreateCanvas).toBe(true);
    expect((await body(await me(guest.cookie, {}, c.slug))).permissions.canCreateCanvas).toBe(false);
    for (const node of app.nodes) node.ctx.config.authoring = false;
  });

  test('the runtime API does not depend on publication state: a never-published canvas answers', async () => {
    expect(w.canvas.currentVersionId).toBeNull();
    expect((await me(w.cookie.viewer)).status).toBe(200);
  });

  test('an unknown path under a canvas runs the pipeline first, then answers 404 NOT_FOUND', async () => {
    expect((await app.request(`/v1/c/${w.slug}/nope`)).status).toBe(401);
    await expectCode(await app.request(`/v1/c/${w.slug}/nope`, { cookie: w.cookie.stranger }), 404, 'OWNER_ONLY');
    await expectCode(await app.request(`/v1/c/${w.slug}/nope`, { method: 'POST', cookie: w.cookie.viewer }), 404, 'NOT_FOUND');
  });

  test('usage: requests are counted per canvas per UTC day, flushed in batches', async () => {
    const c = await made();
    for (let i = 0; i < 3; i++) await me(w.cookie.owner, {}, c.slug);
    const usage = app.features.usage;
    // Each node counts the requests it answered and flushes its own batch (on the cluster pass, both add up in the store).
    const flush = () => Promise.all(app.nodes.map((node) => node.features.usage.flush()));
    await flush();
    expect((await usage.read(c.id, utcDay(clock)))?.requests).toBe(3);
    await me(w.cookie.owner, {}, c.slug);
    await flush();
    expect((await usage.read(c.id, utcDay(clock)))?.requests).toBe(4);
    clock += 24 * 3600_000;
    await me(w.cookie.owner, {}, c.slug);
    await flush();
    expect((await usage.read(c.id, utcDay(clock)))?.requests).toBe(1);
  });
});

describe('runtime rate limits', () => {
  let app: TestApp;
  let w: World;
  const clock = Date.UTC(2030, 0, 15, 12, 0, 20);
  beforeAll(async () => {
    app = await startTestApp({ now: () => clock, env: { EASEL_RATELIMIT_CANVAS_API_PER_MIN: '3' } });
    w = await makeWorld(app);
  });
  afterAll(() => app.close());

  test('step 2 before step 3: over the canvas class, an unknown slug answers 429 RATE_LIMITED, not 404', async () => {
    for (let i = 0; i < 3; i++) expect((await app.request('/v1/c/ghost/me', { cookie: w.cookie.viewer })).status).toBe(404);
    const res = await app.request('/v1/c/ghost/me', { cookie: w.cookie.viewer });
    const b = await expectCode(res, 429, 'RATE_LIMITED');
    expect(b.message).toEqual(expect.any(String));
    expect(res.headers.get('retry-after')).toBe('40');
    expect(res.headers.get('x-ratelimit-limit')).toBe('3');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(res.headers.get('x-ratelimit-reset')).toBe(String(Date.UTC(2030, 0, 15, 12, 1) / 1000));
  });

  test('the canvas class is per user per canvas; preflights are not counted; the gateway comes first', async () => {
    expect((await app.request(`/v1/c/${w.slug}/me`, { cookie: w.cookie.viewer })).status).toBe(200);
    expect((await app.request(`/v1/c/${w.slug}/me`, { cookie: w.cookie.editor })).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await app.request('/v1/c/ghost/me', { method: 'OPTIONS' })).status).toBe(204);
    expect((await app.request('/v1/c/ghost/me')).status).toBe(401);
  });

  test('EASEL_RATELIMIT_ENABLED=false lifts the canvas class', async () => {
    const free = await startTestApp({ env: { EASEL_RATELIMIT_CANVAS_API_PER_MIN: '1', EASEL_RATELIMIT_ENABLED: 'false' } });
    const fw = await makeWorld(free);
    for (let i = 0; i < 5; i++) expect((await free.request(`/v1/c/${fw.slug}/me`, { cookie: fw.cookie.viewer })).status).toBe(200);
    await free.close();
  });
});

describe('runtime pipeline (subdomain mode)', () => {
  let app: TestApp;
  let w: World;
  beforeAll(async () => {
    app = await startTestApp({
      env: {
        EASEL_URL_MODE: 'subdomain',
        EASEL_BASE_URL: 'https://easel.test',
        EASEL_CANVAS_HOST: 'apps.easel.test:8443',
      },
    });
    w = await makeWorld(app);
  });
  const made = (o: CanvasOptions = {}) => w.world.newCanvas({ members: false, guest: false, ...o });
  afterAll(() => app.close());

  const own = () => `https://${w.slug}.apps.easel.test:8443`;
  const me = (cookie: string, headers: Record<string, string>, slug = w.slug) => app.request(`/v1/c/${slug}/me`, { cookie, headers });

  test("the canvas's own origin gets credentialed CORS headers on success", async () => {
    const res = await me(w.cookie.viewer, { origin: own() });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(own());
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    expect(res.headers.get('vary')).toBe('Origin');
  });

  test('no Origin passes without CORS headers; Sec-Fetch-Site and Referer do not matter here', async () => {
    const res = await me(w.cookie.viewer, { 'sec-fetch-site': 'cross-site', referer: 'https://elsewhere.example/' });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  test('any other Origin is CROSS_CANVAS_FORBIDDEN (other canvas, other scheme, other port, the dashboard)', async () => {
    for (const origin of [
      `https://other.apps.easel.test:8443`,
      `http://${w.slug}.apps.easel.test:8443`,
      `https://${w.slug}.apps.easel.test`,
      'https://easel.test',
      'null',
    ]) {
      const res = await me(w.cookie.viewer, { origin });
      await expectCode(res, 403, 'CROSS_CANVAS_FORBIDDEN');
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  test('CORS headers ride on the refusals of steps 1-3 and 5 and on a route refusal, so the canvas can read them', async () => {
    const pw = await made({ members: true, settings: { password: 'x' } });
    const origin = `https://${pw.slug}.apps.easel.test:8443`;
    const gated = await me(w.cookie.viewer, { origin }, pw.slug);
    await expectCode(gated, 403, 'PASSWORD_REQUIRED');
    expect(gated.headers.get('access-control-allow-origin')).toBe(origin);
    const anon = await me('', { origin: own() });
    expect(anon.status).toBe(401);
    expect(anon.headers.get('access-control-allow-origin')).toBe(own());
    const missing = await app.request(`/v1/c/${w.slug}/kv/absent`, { cookie: w.cookie.viewer, headers: { origin: own() } });
    await expectCode(missing, 404, 'NOT_FOUND');
    expect(missing.headers.get('access-control-allow-credentials')).toBe('true');
    const off = await made({ capabilities: { backend: false } });
    const offOrigin = `https://${off.slug}.apps.easel.test:8443`;
    const refused = await me(w.cookie.owner, { origin: offOrigin }, off.slug);
    await expectCode(refused, 403, 'CAPABILITY_DISABLED');
    expect(refused.headers.get('access-control-allow-origin')).toBe(offOrigin);
  });

  test("a 429 RATE_LIMITED to the canvas's own origin exposes Retry-After and the X-RateLimit headers", async () => {
    const c = await made({ members: true });
    const origin = `https://${c.slug}.apps.easel.test:8443`;
    for (let i = 0; i < app.ctx.config.rateLimitCanvasApiPerMin; i++)
      expect((await me(w.cookie.viewer, { origin }, c.slug)).status).toBe(200);
    const res = await me(w.cookie.viewer, { origin }, c.slug);
    await expectCode(res, 429, 'RATE_LIMITED');
    expect(res.headers.get('access-control-allow-origin')).toBe(origin);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(',').map((h) => h.trim().toLowerCase());
    expect(exposed).toEqual(
      expect.arrayContaining([
        'retry-after',
        'x-ratelimit-limit',
        'x-ratelimit-remaining',
        'x-ratelimit-reset',
        'x-easel-connection-response',
      ]),
    );
    // A success exposes them too (the same list on every answer to the canvas).
    const ok = await me(w.cookie.viewer, { origin: own() });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-expose-headers')).toBe(res.headers.get('access-control-expose-headers'));
  });

  test('Vary: Origin on every answer, whatever the Origin: successes, refusals, 304s of file content, preflights', async () => {
    const varies = (res: Response, label: string) => {
      const vary = (res.headers.get('vary') ?? '').split(',').map((v) => v.trim().toLowerCase());
      expect({ label, origin: vary.includes('origin') }).toEqual({ label, origin: true });
    };
    const evil = { origin: 'https://evil.example' };
    varies(await me(w.cookie.viewer, {}), 'no Origin, 200');
    varies(await me(w.cookie.viewer, evil), 'other Origin, 403 CROSS_CANVAS_FORBIDDEN');
    varies(await me('', {}), 'no session, 401');
    varies(await me('', evil), 'no session, other Origin, 401');
    varies(await me(w.cookie.viewer, {}, 'no-such-canvas'), 'unknown canvas, 404');
    varies(await me(w.cookie.stranger, {}), 'no route in, 404');
    varies(await app.request(`/v1/c/${w.slug}/kv/absent`, { cookie: w.cookie.viewer }), 'route refusal, 404');
    varies(await app.request(`/v1/c/${w.slug}`, { cookie: w.cookie.viewer }), 'the bare canvas path, 404');
    varies(await app.request(`/v1/c/${w.slug}/kv/x`, { method: 'OPTIONS' }), 'preflight without Origin');
    const form = new FormData();
    form.append('file', new Blob(['vary me'], { type: 'text/plain' }), 'a.txt');
    const up = await app.request(`/v1/c/${w.slug}/files`, { method: 'POST', cookie: w.cookie.editor, body: form });
    expect(up.status).toBe(201);
    const { url } = (await body(up)) as { url: string };
    const first = await app.request(url, { cookie: w.cookie.viewer });
    expect(first.status).toBe(200);
    varies(first, 'file content, 200');
    const etag = first.headers.get('etag')!;
    const revalidations: Array<[Record<string, string>, number]> = [
      [{}, 304],
      [{ origin: own() }, 304],
      [evil, 403],
    ];
    for (const [headers, status] of revalidations) {
      const again = await app.request(url, { cookie: w.cookie.viewer, headers: { ...headers, 'if-none-match': etag } });
      expect(again.status).toBe(status);
      varies(again, `file content revalidated, ${JSON.stringify(headers)}`);
    }
  });

  test("the CORS list headers are added to a handler's own, never replacing them (the Connections proxy exposes its kept headers)", () => {
    const headers = new Headers({
      vary: 'Accept-Encoding',
      'access-control-expose-headers': 'x-easel-connection-response, etag, retry-after',
    });
    addHeaders(headers, corsHeaders(app.ctx.config, new Request('https://easel.test/', { headers: { origin: own() } }), w.slug));
    expect(headers.get('vary')).toBe('Accept-Encoding, Origin');
    expect(headers.get('access-control-expose-headers')).toBe(
      'x-easel-connection-response, etag, retry-after, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset',
    );
    expect(headers.get('access-control-allow-origin')).toBe(own());
  });

  test('preflight: credentialed headers only when the Origin matches', async () => {
    const ok = await app.request(`/v1/c/${w.slug}/kv/x`, {
      method: 'OPTIONS',
      headers: { origin: own(), 'access-control-request-headers': 'content-type' },
    });
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe(own());
    expect(ok.headers.get('access-control-allow-credentials')).toBe('true');
    expect(ok.headers.get('access-control-allow-methods')).toBe(METHODS);
    expect(ok.headers.get('access-control-allow-headers')).toBe('content-type');
    const other = await app.request(`/v1/c/${w.slug}/kv/x`, { method: 'OPTIONS', headers: { origin: 'https://evil.example' } });
    expect(other.status).toBe(204);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect(other.headers.get('access-control-allow-credentials')).toBeNull();
  });
});
