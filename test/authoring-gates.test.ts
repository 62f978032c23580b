// passes: embedded, cluster
// Authoring's gates and quota under each instance and owner setting (issue 16 item 4).
import { afterAll, describe, expect, test } from 'bun:test';
import { adminSettings, adminUser } from './admin-actions.ts';
import { zipOf } from './deploy-fixtures.ts';
import { expectCode } from './expect-code.ts';
import { body, startTestApp, type TestApp } from './harness.ts';
import { ADMIN_EMAIL, World, type WorldCanvas } from './world.ts';

const DAY = 24 * 3600 * 1000;
const apps: TestApp[] = [];
afterAll(async () => {
  for (const a of apps) await a.close();
});

interface Studio {
  app: TestApp;
  w: World;
  studio: WorldCanvas;
  clock: { now: number };
  create(metadata: unknown, who?: string, bundle?: Uint8Array): Promise<Response>;
  update(id: string, metadata: unknown, who?: string): Promise<Response>;
}

/** An app with `env`, a cast, and a studio canvas with authoring on. */
async function studioWith(env: Record<string, string> = {}): Promise<Studio> {
  const clock = { now: Date.now() };
  const app = await startTestApp({
    now: () => clock.now,
    env: { EASEL_AUTHORING: 'on', EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_RATELIMIT_ENABLED: 'false', ...env },
  });
  apps.push(app);
  const w = await new World().attach(app);
  const studio = await w.newCanvas({ capabilities: { authoring: true }, files: { 'index.html': 'studio' } });
  const send = (method: string, path: string, who: string, metadata: unknown, bundle?: Uint8Array) => {
    const fd = new FormData();
    fd.append('metadata', JSON.stringify(metadata));
    if (bundle) fd.append('bundle', new Blob([bundle as Uint8Array<ArrayBuffer>]), 'site.zip');
    return app.request(`/v1/c/${studio.slug}/authoring${path}`, { method, cookie: who, body: fd });
  };
  return {
    app,
    w,
    studio,
    clock,
    create: (metadata, who = w.cookie.viewer, bundle = zipOf({ 'index.html': 'hi' })) => send('POST', '', who, metadata, bundle),
    update: (id, metadata, who = w.cookie.viewer) => send('PUT', `/${id}`, who, metadata),
  };
}

describe('instance rungs and expiry rules', () => {
  test('a rung outside EASEL_AUTHORING_ALLOWED_RUNGS is 400 (public_link covers password)', async () => {
    const s = await studioWith({ EASEL_AUTHORING_ALLOWED_RUNGS: 'private,whole_org' });
    expect((await s.create({ title: 'ok', access: 'whole_org' })).status).toBe(200);
    await expectCode(await s.create({ title: 'no', access: 'public_link' }), 400, 'INVALID_BODY');
    await expectCode(await s.create({ title: 'no', access: 'password', password: 'pw' }), 400, 'INVALID_BODY');
    const only = await studioWith({ EASEL_AUTHORING_ALLOWED_RUNGS: 'public_link' });
    await expectCode(await only.create({ title: 'no' }), 400, 'INVALID_BODY');
    expect((await only.create({ title: 'ok', access: 'password', password: 'pw' })).status).toBe(200);
  });

  test('EASEL_AUTHORING_MAX_EXPIRY_DAYS caps the expiry; EASEL_AUTHORING_REQUIRE_EXPIRY makes one required, on PUT too', async () => {
    const s = await studioWith({ EASEL_AUTHORING_MAX_EXPIRY_DAYS: '1', EASEL_AUTHORING_REQUIRE_EXPIRY: 'on' });
    await expectCode(await s.create({ title: 'none' }), 400, 'INVALID_BODY');
    await expectCode(await s.create({ title: 'far', expiresAt: s.clock.now + 2 * DAY }), 400, 'INVALID_BODY');
    const made = await body(await s.create({ title: 'soon', expiresAt: s.clock.now + DAY }));
    expect(made.expiresAt).toBe(s.clock.now + DAY);
    await expectCode(await s.update(made.id, { expiresAt: null }), 400, 'INVALID_BODY');
    expect((await s.update(made.id, { title: 'kept expiry' })).status).toBe(200);
  });
});

describe('public links and orgs', () => {
  test('public links off on the instance: 403 PUBLIC_LINKS_DISABLED, on create and on a PUT that keeps a Public link', async () => {
    const s = await studioWith();
    const shared = await body(await s.create({ title: 'public', access: 'public_link' }));
    await adminSettings(s.app, s.w.cookie.admin, { publicLinks: false });
    await expectCode(await s.create({ title: 'p', access: 'public_link' }), 403, 'PUBLIC_LINKS_DISABLED');
    await expectCode(await s.update(shared.id, { title: 'still public' }), 403, 'PUBLIC_LINKS_DISABLED');
    expect((await s.update(shared.id, { access: 'private' })).status).toBe(200);
  });

  test('an owner who may not publish public links: 403 PUBLIC_NOT_ALLOWED; an editor asking one of their shares: 403 PUBLIC_LINK_OWNER_GATED', async () => {
    const s = await studioWith();
    const made = await body(await s.create({ title: 'mine' }));
    await s.w.expectOk('PUT', `/api/canvases/${made.id}/members`, 'viewer', { email: s.w.emails.editor, role: 'editor' });
    await adminUser(s.app, s.w.cookie.admin, s.w.ids.viewer, { canPublishPublic: false });
    await expectCode(await s.create({ title: 'p', access: 'public_link' }), 403, 'PUBLIC_NOT_ALLOWED');
    await expectCode(await s.update(made.id, { access: 'public_link' }, s.w.cookie.editor), 403, 'PUBLIC_LINK_OWNER_GATED');
    await expectCode(await s.update(made.id, { access: 'public_link' }), 403, 'PUBLIC_NOT_ALLOWED');
  });

  test('whole_org under tenancy without a home org: 409 ORG_REQUIRED', async () => {
    const s = await studioWith({ EASEL_TENANCY: 'on' });
    await expectCode(await s.create({ title: 'org', access: 'whole_org' }), 409, 'ORG_REQUIRED');
    expect((await s.create({ title: 'private is fine' })).status).toBe(200);
  });
});

describe('the quota', () => {
  test('daily and total per user, 429 with scope; a creation that failed after the row existed still counts', async () => {
    const s = await studioWith({ EASEL_AUTHORING_USER_DAILY_MAX: '2', EASEL_AUTHORING_USER_TOTAL_MAX: '3' });
    expect((await s.create({ title: 'one' })).status).toBe(200);
    await expectCode(await s.create({ title: 'broken' }, s.w.cookie.viewer, new TextEncoder().encode('not a zip')), 502, 'PUBLISH_FAILED');
    expect((await expectCode(await s.create({ title: 'three' }), 429, 'QUOTA_EXCEEDED')).scope).toBe('user_daily');
    // Someone else's quota is their own.
    expect((await s.create({ title: 'theirs' }, s.w.cookie.editor)).status).toBe(200);
    s.clock.now += DAY;
    expect((await s.create({ title: 'next day' })).status).toBe(200);
    expect((await expectCode(await s.create({ title: 'four' }), 429, 'QUOTA_EXCEEDED')).scope).toBe('user_total');
    // PUT uses no quota.
    const listed = (await body(await s.app.request(`/v1/c/${s.studio.slug}/authoring`, { cookie: s.w.cookie.viewer }))).canvases;
    expect((await s.update(listed[0].id, { title: 'renamed' })).status).toBe(200);
  });

  test('publishes made at once share the quota: 10 at once under a daily quota of 3 make exactly 3 canvases', async () => {
    const s = await studioWith({ EASEL_AUTHORING_USER_DAILY_MAX: '3', EASEL_AUTHORING_USER_TOTAL_MAX: '100' });
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => s.create({ title: `race ${i}` })));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
    expect((await s.app.ctx.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM authored_canvases'))!.n).toBe(3);
  });
});
