// passes: embedded, s3, cluster
// Authoring (issue 16): a canvas's page publishes canvases for its visitor.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { zipOf } from './deploy-fixtures.ts';
import { expectCode } from './expect-code.ts';
import { body, startTestApp, type TestApp } from './harness.ts';
import { ADMIN_EMAIL, World, type WorldCanvas } from './world.ts';

let app: TestApp;
let w: World;
let studio: WorldCanvas;
let clock = Date.now();

beforeAll(async () => {
  app = await startTestApp({
    now: () => clock,
    // Quotas have their own suite; here they stay out of the way.
    env: {
      EASEL_AUTHORING: 'on',
      EASEL_ADMIN_EMAILS: ADMIN_EMAIL,
      EASEL_RATELIMIT_ENABLED: 'false',
      EASEL_AUTHORING_USER_DAILY_MAX: '1000',
      EASEL_AUTHORING_USER_TOTAL_MAX: '1000',
    },
  });
  w = await new World().attach(app);
  studio = await w.newCanvas({ capabilities: { authoring: true }, files: { 'index.html': 'studio' } });
  // The admin uses the studio like anyone on its list.
  await w.expectOk('PUT', `/api/canvases/${studio.id}/members`, 'owner', { email: ADMIN_EMAIL, role: 'viewer' });
});
afterAll(() => app.close());

const SITE = { 'index.html': '<h1>made by a page</h1>' };

/** The multipart body: `metadata` first, then `bundle` (omit with bundle: null). */
function form(metadata: unknown, bundle: Uint8Array | null = zipOf(SITE)): FormData {
  const fd = new FormData();
  fd.append('metadata', typeof metadata === 'string' ? metadata : JSON.stringify(metadata));
  if (bundle) fd.append('bundle', new Blob([bundle as Uint8Array<ArrayBuffer>], { type: 'application/zip' }), 'site.zip');
  return fd;
}

const call = (method: string, path: string, cookie: string, fd?: FormData, slug = studio.slug) =>
  app.request(`/v1/c/${slug}/authoring${path}`, { method, cookie, body: fd });
const create = (metadata: unknown, who = w.cookie.viewer, bundle?: Uint8Array | null) => call('POST', '', who, form(metadata, bundle));

describe('POST /authoring', () => {
  test('creates a canvas owned by the caller, deploys the bundle, shares it, and answers the AuthoredCanvas', async () => {
    const res = await create({ title: 'Report', tags: ['q3', 'sales'], metadata: { sourceApp: 'reports', sourceKind: 'weekly', n: 1 } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const made = await body(res);
    expect(made).toMatchObject({
      title: 'Report',
      tags: ['q3', 'sales'],
      access: 'private',
      accessMode: 'restricted',
      publicationStatus: 'published',
      status: 'private',
      hasPassword: false,
      expiresAt: null,
      revokedAt: null,
      createdBy: w.ids.viewer,
      viewerRole: 'owner',
      sourceApp: 'reports',
      sourceKind: 'weekly',
      metadata: { sourceApp: 'reports', sourceKind: 'weekly', n: 1 },
      audienceSummary: { count: 0, names: [] },
    });
    expect(made.version).toEqual(expect.any(String));
    expect(made.bundleUpdatedAt).toBe(made.updatedAt);
    // It is an ordinary canvas of the caller's, serving the bundle.
    const page = await app.request(new URL(made.url).pathname, { cookie: w.cookie.viewer });
    expect([page.status, await page.text()]).toEqual([200, SITE['index.html']]);
    const mine = (await body(await app.request('/api/canvases', { cookie: w.cookie.viewer }))).canvases as any[];
    expect(mine.some((c) => c.id === made.id && c.role === 'owner')).toBe(true);
  });
});

describe('the metadata field, row by row', () => {
  test('title is required, 1-200 characters', async () => {
    await expectCode(await create({}), 400, 'INVALID_BODY');
    await expectCode(await create({ title: '' }), 400, 'INVALID_BODY');
    await expectCode(await create({ title: 'x'.repeat(201) }), 400, 'INVALID_BODY');
    expect((await create({ title: 'x'.repeat(200) })).status).toBe(200);
  });

  test('slug: a malformed one is 400 with reason invalid_slug, one in use 409 SLUG_TAKEN, a free one is kept', async () => {
    expect((await expectCode(await create({ title: 'S', slug: 'Not A Slug' }), 400, 'INVALID_BODY')).reason).toBe('invalid_slug');
    await expectCode(await create({ title: 'S', slug: studio.slug }), 409, 'SLUG_TAKEN');
    const made = await body(await create({ title: 'S', slug: 'made-by-a-page' }));
    expect(made.url).toContain('/c/made-by-a-page/');
  });

  test('tags: at most 20, each 1-64 characters', async () => {
    await expectCode(await create({ title: 'T', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }), 400, 'INVALID_BODY');
    await expectCode(await create({ title: 'T', tags: ['x'.repeat(65)] }), 400, 'INVALID_BODY');
    await expectCode(await create({ title: 'T', tags: [''] }), 400, 'INVALID_BODY');
    expect((await body(await create({ title: 'T', tags: Array.from({ length: 20 }, (_, i) => `t${i}`) }))).tags).toHaveLength(20);
  });

  test('access: private by default, specific_people is private, whole_org, public_link, password (with a password)', async () => {
    expect(await body(await create({ title: 'A', access: 'specific_people' }))).toMatchObject({
      access: 'private',
      accessMode: 'restricted',
    });
    expect(await body(await create({ title: 'A', access: 'whole_org' }))).toMatchObject({
      access: 'whole_org',
      accessMode: 'whole_org',
      status: 'live',
    });
    expect(await body(await create({ title: 'A', access: 'public_link' }))).toMatchObject({
      accessMode: 'public_link',
      hasPassword: false,
    });
    await expectCode(await create({ title: 'A', access: 'password' }), 400, 'INVALID_BODY');
    expect(await body(await create({ title: 'A', access: 'password', password: 'pw' }))).toMatchObject({
      access: 'password',
      accessMode: 'public_link',
      hasPassword: true,
    });
    await expectCode(await create({ title: 'A', access: 'everyone' }), 400, 'INVALID_BODY');
    await expectCode(await create({ title: 'A', password: 'x'.repeat(201) }), 400, 'INVALID_BODY');
  });

  test('expiresAt: in the future, and within what a Date can hold', async () => {
    await expectCode(await create({ title: 'E', expiresAt: clock - 1 }), 400, 'INVALID_BODY');
    await expectCode(await create({ title: 'E', expiresAt: 8.64e15 + 1 }), 400, 'INVALID_BODY');
    await expectCode(await create({ title: 'E', expiresAt: 9223372036854776000 }), 400, 'INVALID_BODY');
    expect((await body(await create({ title: 'E', expiresAt: clock + 60_000 }))).expiresAt).toBe(clock + 60_000);
  });

  test('metadata: an object of at most 16 KiB', async () => {
    await expectCode(await create({ title: 'M', metadata: { big: 'x'.repeat(16 * 1024) } }), 400, 'INVALID_BODY');
    await expectCode(await create({ title: 'M', metadata: ['not', 'an', 'object'] }), 400, 'INVALID_BODY');
  });

  test('a field the method does not accept is 400', async () => {
    await expectCode(await create({ title: 'F', expectedUpdatedAt: 1 }), 400, 'INVALID_BODY');
    await expectCode(await create({ title: 'F', colour: 'red' }), 400, 'INVALID_BODY');
  });
});

describe('the body', () => {
  test('not multipart, metadata missing or not JSON, bundle missing, empty or before the metadata: 400 INVALID_BODY', async () => {
    await expectCode(
      await app.request(`/v1/c/${studio.slug}/authoring`, { method: 'POST', cookie: w.cookie.viewer, json: { title: 'x' } }),
      400,
      'INVALID_BODY',
    );
    const onlyBundle = new FormData();
    onlyBundle.append('bundle', new Blob([zipOf(SITE)]), 'site.zip');
    await expectCode(await call('POST', '', w.cookie.viewer, onlyBundle), 400, 'INVALID_BODY');
    await expectCode(await call('POST', '', w.cookie.viewer, form('{not json')), 400, 'INVALID_BODY');
    await expectCode(await create({ title: 'No bundle' }, w.cookie.viewer, null), 400, 'INVALID_BODY');
    await expectCode(await create({ title: 'Empty' }, w.cookie.viewer, new Uint8Array(0)), 400, 'INVALID_BODY');
    const before = await authoredCount(w.ids.viewer);
    await expectCode(await create({ title: 'x' }, w.cookie.viewer, null), 400, 'INVALID_BODY');
    expect(await authoredCount(w.ids.viewer)).toBe(before);
  });

  test('a bundle over 50 MiB is 413 INVALID_BODY', async () => {
    const huge = new Uint8Array(50 * 1024 * 1024 + 1);
    await expectCode(await create({ title: 'Huge' }, w.cookie.viewer, huge), 413, 'INVALID_BODY');
  });

  test('a bundle that is not a ZIP: the canvas exists, so 502 PUBLISH_FAILED with its id', async () => {
    const res = await create({ title: 'Broken' }, w.cookie.viewer, new TextEncoder().encode('this is not a zip archive'));
    const failed = await expectCode(res, 502, 'PUBLISH_FAILED');
    expect(failed.id).toEqual(expect.any(String));
    const listed = (await body(await call('GET', '', w.cookie.viewer))).canvases as any[];
    expect(listed.find((c) => c.id === failed.id)).toMatchObject({ publicationStatus: 'draft', version: null });
  });
});

describe('who may author', () => {
  test('a legacy guest is 401 NOT_AUTHENTICATED; anonymous visitors 401; strangers to the studio 404', async () => {
    const { guestCookie } = await w.openGuestInvite(studio.id);
    await expectCode(await create({ title: 'G' }, guestCookie), 401, 'NOT_AUTHENTICATED');
    expect((await create({ title: 'G' }, '')).status).toBe(401);
    expect((await create({ title: 'G' }, w.cookie.stranger)).status).toBe(404);
  });

  test("the calling canvas's switch decides, and the instance's: 403 CAPABILITY_DISABLED", async () => {
    const off = await w.newCanvas({ files: { 'index.html': 'x' } });
    await expectCode(await call('POST', '', w.cookie.viewer, form({ title: 'C' }), off.slug), 403, 'CAPABILITY_DISABLED');
    const instanceOff = await startTestApp({ env: { EASEL_RATELIMIT_ENABLED: 'false' } });
    try {
      const w2 = await new World().attach(instanceOff);
      const c = await w2.newCanvas({ capabilities: { authoring: true }, files: { 'index.html': 'x' } });
      const res = await instanceOff.request(`/v1/c/${c.slug}/authoring`, {
        method: 'POST',
        cookie: w2.cookie.owner,
        body: form({ title: 'C' }),
      });
      await expectCode(res, 403, 'CAPABILITY_DISABLED');
    } finally {
      await instanceOff.close();
    }
  });
});

async function authoredCount(userId: string): Promise<number> {
  return (await app.ctx.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM authored_canvases WHERE created_by = ?1', userId))!.n;
}

const update = (id: string, metadata: unknown, who = w.cookie.viewer, bundle: Uint8Array | null = null) =>
  call('PUT', `/${id}`, who, form(metadata, bundle));
const listFor = async (who: string, query = '') => (await body(await call('GET', query, who))).canvases as any[];
/** A fresh authored canvas of the viewer's, with the editor on its list. */
async function authored(metadata: Record<string, unknown> = {}): Promise<any> {
  const made = await body(await create({ title: 'Shared', ...metadata }));
  await w.expectOk('PUT', `/api/canvases/${made.id}/members`, 'viewer', { email: w.emails.editor, role: 'editor' });
  return made;
}

describe('PUT /authoring/{id}', () => {
  test('settings only: title, tags, metadata and share change; the version stays', async () => {
    const made = await authored();
    clock += 1000;
    const res = await update(made.id, { title: 'Renamed', tags: ['x'], metadata: { sourceApp: 'b' }, access: 'whole_org' });
    expect(res.status).toBe(200);
    expect(await body(res)).toMatchObject({
      title: 'Renamed',
      tags: ['x'],
      sourceApp: 'b',
      access: 'whole_org',
      accessMode: 'whole_org',
      version: made.version,
    });
  });

  test('with a bundle: a new immutable version at the same URL', async () => {
    const made = await authored();
    const res = await update(made.id, {}, w.cookie.viewer, zipOf({ 'index.html': 'second' }));
    const next = await body(res);
    expect([res.status, next.url]).toEqual([200, made.url]);
    expect(next.version).not.toBe(made.version);
    expect(await (await app.request(new URL(made.url).pathname, { cookie: w.cookie.viewer })).text()).toBe('second');
  });

  test('expectedUpdatedAt is a compare-and-swap: stale is 409 SHARE_CONFLICT carrying the current record', async () => {
    const made = await authored();
    clock += 1000;
    expect((await update(made.id, { title: 'First', expectedUpdatedAt: made.updatedAt })).status).toBe(200);
    const stale = await expectCode(await update(made.id, { title: 'Second', expectedUpdatedAt: made.updatedAt }), 409, 'SHARE_CONFLICT');
    expect(stale.current).toMatchObject({ id: made.id, title: 'First' });
  });

  test('a bundle that fails after the settings were saved: 502 UPDATE_PARTIAL with stage and current', async () => {
    const made = await authored();
    const res = await update(made.id, { title: 'Saved anyway' }, w.cookie.viewer, new TextEncoder().encode('not a zip'));
    const partial = await expectCode(res, 502, 'UPDATE_PARTIAL');
    expect(partial.stage).toBe('deploy');
    expect(partial.current).toMatchObject({ id: made.id, title: 'Saved anyway', version: made.version });
  });

  test('owner, editor and admin may; viewers, strangers and unknown ids get 404; slug is not accepted', async () => {
    const made = await authored();
    await w.expectOk('PUT', `/api/canvases/${made.id}/members`, 'viewer', { email: w.emails.viewer2, role: 'viewer' });
    expect((await update(made.id, { title: 'by editor' }, w.cookie.editor)).status).toBe(200);
    const byAdmin = await update(made.id, { title: 'by admin' }, w.cookie.admin);
    expect(byAdmin.status).toBe(200);
    expect((await body(byAdmin)).viewerRole).toBe('admin');
    await expectCode(await update(made.id, { title: 'x' }, w.cookie.viewer2), 404, 'NOT_FOUND');
    // Someone not on the studio's list never gets past the runtime pipeline.
    await expectCode(await update(made.id, { title: 'x' }, w.cookie.stranger), 404, 'OWNER_ONLY');
    await expectCode(await update('no-such-canvas-id', { title: 'x' }), 404, 'NOT_FOUND');
    await expectCode(await update(made.id, { slug: 'new-slug' }), 400, 'INVALID_BODY');
  });

  test('a canvas that was not authored is not reachable here', async () => {
    await expectCode(await update(studio.id, { title: 'x' }, w.cookie.owner), 404, 'NOT_FOUND');
  });

  test('an admin-disabled share: PUT and DELETE answer 409 DISABLED', async () => {
    const made = await authored();
    await w.expectOk('POST', `/api/admin/canvases/${made.id}/disable`, 'admin', {});
    await expectCode(await update(made.id, { title: 'x' }), 409, 'DISABLED');
    await expectCode(await call('DELETE', `/${made.id}`, w.cookie.viewer), 409, 'DISABLED');
    expect((await listFor(w.cookie.viewer)).find((c) => c.id === made.id).publicationStatus).toBe('disabled');
  });
});

describe('DELETE /authoring/{id} (revoke)', () => {
  test('204; the URL stops serving; the record stays listed as unpublished; settings-only PUT is 409 SHARE_REVOKED; a bundle PUT publishes it again', async () => {
    const made = await authored({ access: 'whole_org' });
    const res = await call('DELETE', `/${made.id}`, w.cookie.viewer);
    expect(res.status).toBe(204);
    expect((await app.request(new URL(made.url).pathname, { cookie: w.cookie.viewer })).status).toBe(404);
    const listed = (await listFor(w.cookie.viewer)).find((c) => c.id === made.id);
    expect(listed).toMatchObject({ publicationStatus: 'unpublished', status: 'revoked', revokedAt: clock, version: null });
    await expectCode(await update(made.id, { title: 'x' }), 409, 'SHARE_REVOKED');
    const again = await body(await update(made.id, {}, w.cookie.viewer, zipOf({ 'index.html': 'back' })));
    expect(again).toMatchObject({ publicationStatus: 'published', revokedAt: null, accessMode: 'whole_org' });
    expect(await (await app.request(new URL(made.url).pathname, { cookie: w.cookie.viewer })).text()).toBe('back');
  });

  test('people without a role on the share get 404, its viewers too; the share keeps serving', async () => {
    const made = await authored();
    await expectCode(await call('DELETE', `/${made.id}`, w.cookie.viewer2), 404, 'NOT_FOUND');
    await w.expectOk('PUT', `/api/canvases/${made.id}/members`, 'viewer', { email: w.emails.viewer2, role: 'viewer' });
    await expectCode(await call('DELETE', `/${made.id}`, w.cookie.viewer2), 404, 'NOT_FOUND');
    expect((await app.request(new URL(made.url).pathname, { cookie: w.cookie.viewer2 })).status).toBe(200);
  });
});

describe('GET /authoring', () => {
  test('what the caller authored and still manages, filtered by sourceApp, sourceKind and every tag; never cached', async () => {
    const a = await authored({ tags: ['red', 'big'], metadata: { sourceApp: 'paint', sourceKind: 'poster' } });
    const b = await authored({ tags: ['red'], metadata: { sourceApp: 'paint', sourceKind: 'card' } });
    const res = await call('GET', '?sourceApp=paint', w.cookie.viewer);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const ids = (list: any[]) =>
      list
        .map((c) => c.id)
        .filter((id) => id === a.id || id === b.id)
        .sort();
    expect(ids((await body(res)).canvases)).toEqual([a.id, b.id].sort());
    expect(ids(await listFor(w.cookie.viewer, '?sourceKind=poster'))).toEqual([a.id]);
    expect(ids(await listFor(w.cookie.viewer, '?tags=red,big'))).toEqual([a.id]);
    expect(ids(await listFor(w.cookie.viewer, '?tags=red'))).toEqual([a.id, b.id].sort());
    // The editor manages them but did not author them; a deleted one is gone.
    expect(ids(await listFor(w.cookie.editor))).toEqual([]);
    await w.expectOk('DELETE', `/api/canvases/${b.id}`, 'viewer');
    expect(ids(await listFor(w.cookie.viewer))).toEqual([a.id]);
  });

  test('publicationStatus: expired once expiresAt passed, archived, in the spec order', async () => {
    const made = await authored({ expiresAt: clock + 5000 });
    expect((await listFor(w.cookie.viewer)).find((c) => c.id === made.id)).toMatchObject({
      publicationStatus: 'published',
      status: 'private',
    });
    clock += 5000;
    expect((await listFor(w.cookie.viewer)).find((c) => c.id === made.id)).toMatchObject({
      publicationStatus: 'expired',
      status: 'expired',
    });
    await w.expectOk('POST', `/api/canvases/${made.id}/archive`, 'viewer');
    expect((await listFor(w.cookie.viewer)).find((c) => c.id === made.id).publicationStatus).toBe('archived');
  });
});

describe('the management API shows authored canvases like any other', () => {
  test('the canvas view carries where it came from; viewers get the reduced view; revoke through /api works for managers only', async () => {
    const made = await authored({ metadata: { sourceApp: 'reports', sourceKind: 'weekly' } });
    const view = await w.expectOk('GET', `/api/canvases/${made.id}`, 'viewer');
    expect(view.authored).toEqual({
      sourceCanvasId: studio.id,
      sourceApp: 'reports',
      sourceKind: 'weekly',
      createdBy: w.ids.viewer,
      publicationStatus: 'published',
      revokedAt: null,
    });
    expect((await w.expectOk('GET', `/api/canvases/${studio.id}`, 'owner')).authored).toBeUndefined();
    const listed = (await w.expectOk('GET', '/api/canvases', 'viewer')).canvases.find((c: any) => c.id === made.id);
    expect(listed.authored.sourceApp).toBe('reports');
    await w.expectOk('PUT', `/api/canvases/${made.id}/members`, 'viewer', { email: w.emails.viewer2, role: 'viewer' });
    const reduced = (await w.expectOk('GET', '/api/canvases', 'viewer2')).canvases.find((c: any) => c.id === made.id);
    expect(reduced.authored).toBeUndefined();

    await expectCode(await w.request('viewer2', `/api/canvases/${made.id}/revoke`, { method: 'POST' }), 404, 'NOT_FOUND');
    await expectCode(await w.request('owner', `/api/canvases/${studio.id}/revoke`, { method: 'POST' }), 404, 'NOT_FOUND');
    const revoked = await w.expectOk('POST', `/api/canvases/${made.id}/revoke`, 'editor');
    expect(revoked.authored).toMatchObject({ publicationStatus: 'unpublished', revokedAt: clock });
  });
});

describe('more refusals', () => {
  test('DELETE by the editor and by an admin works; on an archived share it is 404', async () => {
    const one = await authored();
    expect((await call('DELETE', `/${one.id}`, w.cookie.editor)).status).toBe(204);
    const two = await authored();
    expect((await call('DELETE', `/${two.id}`, w.cookie.admin)).status).toBe(204);
    const three = await authored();
    await w.expectOk('POST', `/api/canvases/${three.id}/archive`, 'viewer');
    await expectCode(await call('DELETE', `/${three.id}`, w.cookie.viewer), 404, 'NOT_FOUND');
  });

  test('a streamed (chunked) bundle is held to 50 MiB while it flows: 413 INVALID_BODY with the id of the canvas already made', async () => {
    const boundary = 'authoring-stream-boundary';
    const head = new TextEncoder().encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n${JSON.stringify({ title: 'Streamed' })}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="bundle"; filename="b.zip"\r\nContent-Type: application/zip\r\n\r\n`,
    );
    const chunk = new Uint8Array(1024 * 1024).fill(0x50);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(head);
        if (sent >= 200) return controller.close();
        sent++;
        controller.enqueue(chunk);
      },
    });
    const res = await app.request(`/v1/c/${studio.slug}/authoring`, {
      method: 'POST',
      cookie: w.cookie.viewer,
      body: stream,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    const refused = await expectCode(res, 413, 'INVALID_BODY');
    expect(refused.id).toEqual(expect.any(String));
    // Reading stopped at the cap (a little read-ahead aside), not at the end of a 200 MiB body.
    expect(sent).toBeLessThan(60);
  });
});
