// passes: embedded, s3, cluster
// The Deploy API around PUT deploy: key auth, read-back, coordination,
// rollback, unpublish, the deploy-class rate, retention and blob collection,
// concurrency, audit and log hygiene.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { canvasUrl } from '../src/canvases/url.ts';
import { activateVersion, rollbackTarget } from '../src/deploy/lifecycle.ts';
import { ON_CLUSTER, startTestApp, type TestApp } from './harness.ts';
import { ManualClock } from './manual-clock.ts';
import { connect } from './realtime-helpers.ts';
import { World } from './world.ts';
import { nextEvent, recordEvents } from './signals.ts';
import { begin, createKeyedCanvas, site as site2, stagedDeploy } from './upload-fixtures.ts';
import { createDeployCanvas, deploy, get, ownerSettings, post, sharing, site, text, zipOf, type DeployCanvas } from './deploy-fixtures.ts';

let app: TestApp;
let clock = Date.now();

beforeAll(async () => {
  app = await startTestApp({ env: { EASEL_RATELIMIT_ENABLED: 'false' }, now: () => clock });
});
afterAll(() => app.close());

const fresh = (): Promise<DeployCanvas> => createDeployCanvas(app);
const versionRows = async (c: DeployCanvas) =>
  (await app.ctx.sql.all<{ number: number }>('SELECT number FROM versions WHERE canvas_id = ?1 ORDER BY number', c.id)).map(
    (r) => r.number,
  );
const auditRows = (c: DeployCanvas) => app.ctx.audit.forCanvas(c.id);
/** The blob is stored (with a remote tier, as on the cluster: in the bucket). */
const stored = async (hash: string) => (await app.ctx.blobs.sizeOf(hash)) !== null;
const hashOf = (s: string) => new Bun.CryptoHasher('sha256').update(s).digest('hex');

describe('key auth', () => {
  const routes = (c: DeployCanvas): Array<[string, string]> => [
    ['PUT', `/v1/canvases/${c.id}/deploy`],
    ['GET', `/v1/canvases/${c.id}`],
    ['GET', `/v1/canvases/${c.id}/versions`],
    ['GET', `/v1/canvases/${c.id}/files`],
    ['GET', `/v1/canvases/${c.id}/files?path=index.html`],
    ['POST', `/v1/canvases/${c.id}/rollback`],
    ['POST', `/v1/canvases/${c.id}/unpublish`],
  ];

  async function expectAll(c: DeployCanvas, headers: Record<string, string>, status: number) {
    for (const [method, path] of routes(c)) {
      const res = await app.request(path, { method, headers, body: method === 'GET' ? undefined : '{"version":1}' });
      expect({ path, method, status: res.status }).toEqual({ path, method, status });
      expect(await res.json()).toEqual({ error: 'unauthorized' });
    }
  }

  test('a missing, malformed or unknown key: 401 on every route', async () => {
    const c = await fresh();
    await deploy(app, c, site());
    await expectAll(c, {}, 401);
    await expectAll(c, { authorization: c.key }, 401);
    await expectAll(c, { authorization: `Basic ${btoa(`x:${c.key}`)}` }, 401);
    await expectAll(c, { authorization: `Bearer easel_sk_${'0'.repeat(40)}` }, 401);
    expect(await versionRows(c)).toEqual([1]);
  });

  test('a key of another canvas: 403 with the same body', async () => {
    const a = await fresh();
    const b = await fresh();
    await deploy(app, a, site());
    await expectAll(a, { authorization: `Bearer ${b.key}` }, 403);
  });

  test('archived, disabled or deleted canvases: their key gives 401', async () => {
    for (const column of ['archived_at', 'disabled_at', 'deleted_at']) {
      const c = await fresh();
      await deploy(app, c, site());
      await app.ctx.sql.run(`UPDATE canvases SET ${column} = ?1 WHERE id = ?2`, clock, c.id);
      await expectAll(c, { authorization: `Bearer ${c.key}` }, 401);
      // Even against another canvas's id the dead key is unknown, not "another canvas".
      const other = await fresh();
      const res = await app.request(`/v1/canvases/${other.id}`, { headers: { authorization: `Bearer ${c.key}` } });
      expect(res.status).toBe(401);
    }
  });

  test('the scheme is case-insensitive', async () => {
    const c = await fresh();
    const res = await app.request(`/v1/canvases/${c.id}`, { headers: { authorization: `bearer ${c.key}` } });
    expect(res.status).toBe(200);
  });

  test('a session cookie is not honored, and no CORS headers are sent', async () => {
    const c = await fresh();
    const cookie = await app.signIn('owner@example.test', 'Owner');
    const withCookie = await app.request(`/v1/canvases/${c.id}`, { cookie, headers: { origin: 'https://evil.example' } });
    expect(withCookie.status).toBe(401);
    const ok = await app.request(`/v1/canvases/${c.id}`, { headers: { authorization: `Bearer ${c.key}`, origin: 'https://evil.example' } });
    expect(ok.status).toBe(200);
    for (const res of [withCookie, ok]) {
      expect([...res.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([]);
      expect(res.headers.get('set-cookie')).toBeNull();
    }
  });

  test('no CORS on any route or answer: preflights, refusals and writes carry no access-control-* header', async () => {
    const c = await fresh();
    await deploy(app, c, site());
    const cors = {
      origin: 'https://evil.example',
      'access-control-request-method': 'PUT',
      'access-control-request-headers': 'authorization',
    };
    const answers: Response[] = [];
    for (const path of ['/deploy', '', '/versions', '/files', '/uploads', '/rollback', '/unpublish']) {
      answers.push(await app.request(`/v1/canvases/${c.id}${path}`, { method: 'OPTIONS', headers: cors }));
    }
    answers.push(
      await app.request(`/v1/canvases/${c.id}/deploy`, { method: 'PUT', body: 'garbage', headers: { origin: 'https://evil.example' } }),
    );
    answers.push(
      await app.request(`/v1/canvases/${c.id}/deploy`, {
        method: 'PUT',
        body: 'garbage',
        headers: { origin: 'https://evil.example', authorization: `Bearer ${c.key}` },
      }),
    );
    answers.push(
      await app.request(`/v1/canvases/${c.id}/deploy`, {
        method: 'PUT',
        body: site({ 'o.js': 'origin' }),
        headers: { origin: 'https://evil.example', authorization: `Bearer ${c.key}` },
      }),
    );
    for (const res of answers) {
      expect([...res.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([]);
      // A preflight is never answered as if it could succeed.
      if (res.status < 300) expect(res.headers.get('allow')).toBeNull();
    }
    expect(answers.slice(0, 7).every((res) => res.status >= 400)).toBe(true);
  });

  test("a cookie beside the key changes nothing: the write is the owner's, audited as the key", async () => {
    const c = await fresh();
    const stranger = await app.signIn('stranger-with-cookie@example.test', 'Stranger');
    const res = await app.request(`/v1/canvases/${c.id}/deploy`, {
      method: 'PUT',
      body: site(),
      cookie: stranger,
      headers: { authorization: `Bearer ${c.key}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie')).toBeNull();
    const versionId = ((await res.json()) as { versionId: string }).versionId;
    expect((await get(app, c, '/versions')).body.versions[0]).toMatchObject({ id: versionId, createdBy: c.ownerId });
    expect((await auditRows(c))[0]).toMatchObject({ action: 'canvas.deploy', actorKind: 'key', actorId: c.ownerId });
    // And a cookie of the owner without the key is still nothing.
    const owner = await app.signIn('owner@example.test', 'Owner');
    expect((await app.request(`/v1/canvases/${c.id}/unpublish`, { method: 'POST', cookie: owner })).status).toBe(401);
    expect((await sharing(app.ctx, c.id)).current_version_id).toBe(versionId);
  });
});

describe('read-back', () => {
  test('a never-published canvas: draft, token present, nothing live, NOT_PUBLISHED for files', async () => {
    const c = await fresh();
    const view = await get(app, c);
    expect(view.status).toBe(200);
    expect(view.body).toEqual({
      id: c.id,
      slug: c.slug,
      url: `${app.ctx.config.baseUrl}/c/${c.slug}/`,
      title: `Canvas ${c.slug}`,
      status: 'active',
      publicationState: 'draft',
      accessMode: 'restricted',
      currentVersionId: null,
      publicationToken: (await sharing(app.ctx, c.id)).publication_token,
      currentVersion: null,
    });
    expect((await get(app, c, '/versions')).body).toEqual({ versions: [] });
    for (const path of ['/files', '/files?path=index.html']) {
      const r = await get(app, c, path);
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ code: 'NOT_PUBLISHED' });
    }
  });

  test('a published canvas: currentVersion, the version list newest first, the listing sorted by path', async () => {
    const c = await fresh();
    const v1 = await deploy(app, c, site(), { releaseId: 'build-1' });
    clock += 1000;
    const v2 = await deploy(app, c, zipOf({ 'index.html': 'two', 'z.js': 'z', 'a/b.css': 'b', 'B.txt': 'B' }));
    const view = (await get(app, c)).body;
    expect(view).toMatchObject({
      publicationState: 'published',
      currentVersionId: v2.body.versionId,
      publicationToken: v2.body.publicationToken,
    });
    expect(view.currentVersion).toEqual({ id: v2.body.versionId, number: 2, releaseId: null, createdAt: clock });
    const versions = (await get(app, c, '/versions')).body.versions;
    expect(versions).toEqual([
      {
        id: v2.body.versionId,
        number: 2,
        source: 'api',
        status: 'ready',
        createdBy: c.ownerId,
        createdAt: clock,
        fileCount: 4,
        totalBytes: 6,
        releaseId: null,
        current: true,
        preview: false,
        previewUrl: `${canvasUrl(app.ctx.config, c.slug)}__easel/v/2/`,
        warnings: [],
      },
      {
        id: v1.body.versionId,
        number: 1,
        source: 'api',
        status: 'ready',
        createdBy: c.ownerId,
        createdAt: clock - 1000,
        fileCount: 2,
        totalBytes: 25,
        releaseId: 'build-1',
        current: false,
        preview: false,
        previewUrl: `${canvasUrl(app.ctx.config, c.slug)}__easel/v/1/`,
        warnings: v1.body.warnings,
      },
    ]);
    expect(v2.body.warnings).toEqual([]);
    const listing = (await get(app, c, '/files')).body;
    expect(listing).toEqual({
      version: 2,
      fileCount: 4,
      files: [
        { path: 'B.txt', size: 1, mime: 'text/plain; charset=utf-8', hash: hashOf('B') },
        { path: 'a/b.css', size: 1, mime: 'text/css; charset=utf-8', hash: hashOf('b') },
        { path: 'index.html', size: 3, mime: 'text/html; charset=utf-8', hash: hashOf('two') },
        { path: 'z.js', size: 1, mime: 'text/javascript; charset=utf-8', hash: hashOf('z') },
      ],
    });
  });

  test('?path= answers the raw bytes with their type, a quoted sha256 ETag and Cache-Control no-store', async () => {
    const c = await fresh();
    await deploy(app, c, zipOf({ 'index.html': '<h1>hello</h1>', 'a/b c.css': 'body{}' }));
    const res = await app.request(`/v1/canvases/${c.id}/files?path=${encodeURIComponent('a/b c.css')}`, {
      headers: { authorization: `Bearer ${c.key}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(res.headers.get('etag')).toBe(`"${hashOf('body{}')}"`);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.text()).toBe('body{}');
  });

  test('?path= not in the live manifest: 404 NOT_FOUND (exact match only)', async () => {
    const c = await fresh();
    await deploy(app, c, site());
    for (const path of ['missing.html', '/index.html', 'INDEX.HTML', '', './index.html']) {
      const r = await get(app, c, `/files?path=${encodeURIComponent(path)}`);
      expect(r.status).toBe(404);
      expect(r.body.code).toBe('NOT_FOUND');
    }
  });
});

describe('coordination', () => {
  test('releaseId live: already_current with the live fields and current token, and no side effects', async () => {
    const c = await fresh();
    const first = await deploy(app, c, site(), { releaseId: 'r1' });
    const audits = (await auditRows(c)).length;
    const again = await deploy(app, c, zipOf({ 'index.html': 'different' }), { releaseId: 'r1' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...first.body, outcome: 'already_current', warnings: [] });
    expect(await versionRows(c)).toEqual([1]);
    expect((await auditRows(c)).length).toBe(audits);
    // It precedes the token check: a stale token still hears already_current.
    const stale = await deploy(app, c, site(), { releaseId: 'r1', expectedPublicationToken: 'stale' });
    expect(stale.body.outcome).toBe('already_current');
  });

  test('releaseId only in history: 409 RELEASE_NOT_CURRENT with release and current', async () => {
    const c = await fresh();
    const r1 = await deploy(app, c, site(), { releaseId: 'r1' });
    const r2 = await deploy(app, c, site({ 'x.js': '2' }), { releaseId: 'r2' });
    const r = await deploy(app, c, site(), { releaseId: 'r1' });
    expect(r.status).toBe(409);
    expect(r.body).toEqual({
      code: 'RELEASE_NOT_CURRENT',
      message: expect.any(String),
      release: { versionId: r1.body.versionId, version: 1 },
      current: { publicationToken: r2.body.publicationToken, versionId: r2.body.versionId, version: 2, releaseId: 'r2' },
    });
    expect(await versionRows(c)).toEqual([1, 2]);
  });

  test('a release unpublished stays in history: RELEASE_NOT_CURRENT, current all null but the token', async () => {
    const c = await fresh();
    const r1 = await deploy(app, c, site(), { releaseId: 'r1' });
    await post(app, c, '/unpublish');
    const r = await deploy(app, c, site(), { releaseId: 'r1' });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('RELEASE_NOT_CURRENT');
    expect(r.body.release).toEqual({ versionId: r1.body.versionId, version: 1 });
    expect(r.body.current).toEqual({
      publicationToken: (await sharing(app.ctx, c.id)).publication_token,
      versionId: null,
      version: null,
      releaseId: null,
    });
  });

  test('a stale token: 409 PUBLICATION_CHANGED, live site unchanged, nothing kept', async () => {
    const c = await fresh();
    const never = await deploy(app, c, site(), { expectedPublicationToken: 'not-the-token' });
    expect(never.status).toBe(409);
    expect(never.body).toEqual({
      code: 'PUBLICATION_CHANGED',
      message: expect.any(String),
      current: { publicationToken: (await sharing(app.ctx, c.id)).publication_token, versionId: null, version: null, releaseId: null },
    });
    const token0 = (await sharing(app.ctx, c.id)).publication_token;
    const v1 = await deploy(app, c, site(), { expectedPublicationToken: token0, releaseId: 'a' });
    expect(v1.status).toBe(200);
    const stale = await deploy(app, c, site({ 'n.js': 'new' }), { expectedPublicationToken: token0 });
    expect(stale.status).toBe(409);
    expect(stale.body.current).toEqual({
      publicationToken: v1.body.publicationToken,
      versionId: v1.body.versionId,
      version: 1,
      releaseId: 'a',
    });
    expect(await versionRows(c)).toEqual([1]);
    const v2 = await deploy(app, c, site(), { expectedPublicationToken: v1.body.publicationToken });
    expect(v2.body.outcome).toBe('published');
  });

  test('INVALID_RELEASE_ID: empty, over 200 characters, control characters', async () => {
    const c = await fresh();
    for (const releaseId of ['', 'x'.repeat(201), 'a\nb', 'tab\there', 'nul\u0000', 'c1\u0085']) {
      const r = await deploy(app, c, site(), { releaseId });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ code: 'INVALID_RELEASE_ID', message: expect.any(String) });
    }
    const raw = await app.request(`/v1/canvases/${c.id}/deploy?releaseId=`, {
      method: 'PUT',
      body: site(),
      headers: { authorization: `Bearer ${c.key}` },
    });
    expect(raw.status).toBe(400);
    expect(await versionRows(c)).toEqual([]);
    // 200 characters (counted as characters, not UTF-16 units) is fine, and stored verbatim.
    const long = '🚀'.repeat(200);
    const ok = await deploy(app, c, site(), { releaseId: long });
    expect(ok.status).toBe(200);
    expect(ok.body.releaseId).toBe(long);
  });

  test('INVALID_REQUEST: a coordination field that is not a string (repeated in the query)', async () => {
    const c = await fresh();
    for (const qs of ['releaseId=a&releaseId=b', 'expectedPublicationToken=a&expectedPublicationToken=b']) {
      const res = await app.request(`/v1/canvases/${c.id}/deploy?${qs}`, {
        method: 'PUT',
        body: site(),
        headers: { authorization: `Bearer ${c.key}` },
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ code: 'INVALID_REQUEST', message: expect.any(String) });
    }
  });

  test('the token rotates on every publication change and never comes back', async () => {
    const c = await fresh();
    const seen = [(await sharing(app.ctx, c.id)).publication_token];
    const note = async () => {
      const t = (await sharing(app.ctx, c.id)).publication_token;
      expect(seen).not.toContain(t);
      seen.push(t);
    };
    await deploy(app, c, site());
    await note();
    await deploy(app, c, site({ 'v2.js': '2' }));
    await note();
    await post(app, c, '/rollback', { version: 1 });
    await note();
    await post(app, c, '/rollback', { version: 1 });
    await note();
    await post(app, c, '/unpublish');
    await note();
    await post(app, c, '/rollback', { version: 2 });
    await note();
    // A refused change leaves it alone.
    await deploy(app, c, 'garbage');
    expect((await sharing(app.ctx, c.id)).publication_token).toBe(seen.at(-1)!);
  });

  test('N parallel deploys holding the same token: exactly one wins, the rest PUBLICATION_CHANGED', async () => {
    const c = await fresh();
    const token = (await sharing(app.ctx, c.id)).publication_token;
    const zips = Array.from({ length: 8 }, (_, i) => site({ [`n${i}.js`]: String(i) }));
    const results = await Promise.all(zips.map((z) => deploy(app, c, z, { expectedPublicationToken: token })));
    const winners = results.filter((r) => r.status === 200);
    const losers = results.filter((r) => r.status === 409);
    expect(winners.length).toBe(1);
    expect(losers.length).toBe(7);
    for (const l of losers) {
      expect(l.body.code).toBe('PUBLICATION_CHANGED');
      expect(l.body.current.versionId).toBe(winners[0]!.body.versionId);
    }
    expect(await versionRows(c)).toEqual([1]);
  });
});

describe('racing deploys of one release', () => {
  test('one publishes, the others answer already_current, one version is kept and no stray blobs remain', async () => {
    const c = await fresh();
    const zips = Array.from({ length: 5 }, (_, i) => site({ [`r${i}.txt`]: `race ${c.id} ${i}` }));
    const results = await Promise.all(zips.map((z) => deploy(app, c, z, { releaseId: 'same' })));
    const outcomes = results.map((r) => r.body.outcome).sort();
    expect(outcomes).toEqual(['already_current', 'already_current', 'already_current', 'already_current', 'published']);
    expect(new Set(results.map((r) => r.body.versionId)).size).toBe(1);
    expect(await versionRows(c)).toEqual([1]);
    const kept = (await Promise.all(zips.map((_, i) => stored(hashOf(`race ${c.id} ${i}`))))).filter(Boolean);
    expect(kept.length).toBe(1);
  });
});

describe('rollback', () => {
  test('moves only the live pointer when published; sharing unchanged; answers {url, version}', async () => {
    const c = await fresh();
    const v1 = await deploy(app, c, site());
    await deploy(app, c, site({ 'b.js': 'b' }));
    await ownerSettings(app, c, { accessMode: 'whole_org' });
    const events: string[] = [];
    const off = app.onEvent('canvas.published', (e) => events.push(e.versionId));
    const r = await post(app, c, '/rollback', { version: 1 });
    off();
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ url: `${app.ctx.config.baseUrl}/c/${c.slug}/`, version: 1 });
    expect(events).toEqual([v1.body.versionId]);
    const view = (await get(app, c)).body;
    expect(view).toMatchObject({ currentVersionId: v1.body.versionId, accessMode: 'whole_org', publicationState: 'published' });
    expect(await versionRows(c)).toEqual([1, 2]);
    expect((await auditRows(c))[0]).toMatchObject({ action: 'canvas.rollback', actorKind: 'key', actorId: c.ownerId });
  });

  test('from draft: published again and Restricted', async () => {
    const c = await fresh();
    await deploy(app, c, site());
    await post(app, c, '/unpublish');
    await ownerSettings(app, c, { accessMode: 'public_link' });
    const r = await post(app, c, '/rollback', { version: 1 });
    expect(r.status).toBe(200);
    expect((await get(app, c)).body).toMatchObject({ publicationState: 'published', accessMode: 'restricted' });
  });

  test('a bad body: 400 {error: invalid_body}', async () => {
    const c = await fresh();
    await deploy(app, c, site());
    const bodies = [
      '',
      'null',
      '[]',
      '{}',
      '{"version":0}',
      '{"version":-1}',
      '{"version":1.5}',
      '{"version":"1"}',
      '{"version":null}',
      'not json',
      `{"version":${2 ** 60}}`,
    ];
    for (const body of bodies) {
      const r = await post(app, c, '/rollback', undefined, { body });
      expect({ body, status: r.status }).toEqual({ body, status: 400 });
      expect(r.body).toEqual({ error: 'invalid_body' });
    }
    const big = await post(app, c, '/rollback', undefined, { body: `{"version":1,"pad":"${'x'.repeat(20_000)}"}` });
    expect(big.body).toEqual({ error: 'invalid_body' });
  });

  test('reads JSON whatever the Content-Type', async () => {
    const c = await fresh();
    await deploy(app, c, site());
    const res = await app.request(`/v1/canvases/${c.id}/rollback`, {
      method: 'POST',
      body: '{"version":1}',
      headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(200);
  });

  test('no ready version with that number: 404 INVALID_PATH', async () => {
    const c = await fresh();
    const none = await post(app, c, '/rollback', { version: 1 });
    expect(none.status).toBe(404);
    expect(none.body).toEqual({ code: 'INVALID_PATH', message: expect.any(String) });
    await deploy(app, c, site());
    expect((await post(app, c, '/rollback', { version: 2 })).body.code).toBe('INVALID_PATH');
  });

  test('a target pruned during the swap: 409 VERSION_UNAVAILABLE', async () => {
    const c = await fresh();
    for (let i = 0; i < 10; i++) await deploy(app, c, site({ 'n.js': String(i) }));
    const canvas = (await app.ctx.canvases.byId(c.id))!;
    const target = await rollbackTarget(app.ctx, canvas, 1);
    // An 11th deploy prunes version 1 between the lookup and the swap.
    await deploy(app, c, site({ 'n.js': 'eleven' }));
    const live = await sharing(app.ctx, c.id);
    let error: unknown;
    try {
      await activateVersion(app.ctx, canvas, target);
    } catch (err) {
      error = err;
    }
    expect((error as { status: number; body(): unknown }).status).toBe(409);
    expect((error as { body(): unknown }).body()).toEqual({ code: 'VERSION_UNAVAILABLE', message: expect.any(String) });
    expect(await sharing(app.ctx, c.id)).toEqual(live);
  });
});

describe('unpublish', () => {
  test('clears the pointer, resets sharing, keeps history, rotates the token and emits events', async () => {
    const c = await fresh();
    await deploy(app, c, site());
    await ownerSettings(app, c, { accessMode: 'public_link', expiresAt: clock + 1e6 });
    // No API sets the listing flags yet (the gallery is not built): the store is the only way to reach that state.
    await app.ctx.sql.run('UPDATE canvases SET listed_for_access = 1, gallery_listed = 1 WHERE id = ?1', c.id);
    const before = (await sharing(app.ctx, c.id)).publication_token;
    const events: string[] = [];
    const offs = [
      app.onEvent('canvas.unpublished', () => events.push('unpublished')),
      app.onEvent('canvas.access-changed', () => events.push('access-changed')),
    ];
    const r = await post(app, c, '/unpublish');
    offs.forEach((off) => off());
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ url: `${app.ctx.config.baseUrl}/c/${c.slug}/`, publicationState: 'draft', currentVersionId: null });
    expect(events).toEqual(['unpublished', 'access-changed']);
    const row = await sharing(app.ctx, c.id);
    expect(row).toMatchObject({
      access_mode: 'restricted',
      expires_at: null,
      listed_for_access: 0,
      gallery_listed: 0,
      current_version_id: null,
    });
    expect(row.publication_token).not.toBe(before);
    expect((await get(app, c, '/versions')).body.versions.map((v: { current: boolean }) => v.current)).toEqual([false]);
    expect((await auditRows(c))[0]).toMatchObject({ action: 'canvas.unpublish', actorKind: 'key', actorId: c.ownerId });
    expect((await get(app, c, '/files')).body.code).toBe('NOT_PUBLISHED');
  });

  test('from draft: 409 CANNOT_UNPUBLISH', async () => {
    const c = await fresh();
    const r = await post(app, c, '/unpublish');
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ code: 'CANNOT_UNPUBLISH', message: expect.any(String) });
    await deploy(app, c, site());
    await post(app, c, '/unpublish');
    expect((await post(app, c, '/unpublish')).body.code).toBe('CANNOT_UNPUBLISH');
  });

  test('a publish after unpublish comes back Restricted, as a new version', async () => {
    const c = await fresh();
    await deploy(app, c, site());
    await ownerSettings(app, c, { accessMode: 'whole_org' });
    await post(app, c, '/unpublish');
    const r = await deploy(app, c, site());
    expect(r.body).toMatchObject({ outcome: 'published', version: 2 });
    expect((await get(app, c)).body).toMatchObject({ publicationState: 'published', accessMode: 'restricted' });
  });

  test('sharing widened while in draft still comes back Restricted; a first publish keeps what the owner set', async () => {
    const c = await fresh();
    await deploy(app, c, site());
    await post(app, c, '/unpublish');
    await app.ctx.canvases.update(c.id, { access_mode: 'whole_org' }, clock);
    expect((await deploy(app, c, site())).body.outcome).toBe('published');
    expect((await get(app, c)).body.accessMode).toBe('restricted');

    const first = await fresh();
    await app.ctx.canvases.update(first.id, { access_mode: 'whole_org' }, clock);
    expect((await deploy(app, first, site())).body.outcome).toBe('published');
    expect((await get(app, first)).body.accessMode).toBe('whole_org');
  });
});

describe('deploys are audited as the owner', () => {
  test('action, actor and metadata; createdBy is the owner', async () => {
    const c = await fresh();
    const r = await deploy(app, c, site(), { releaseId: 'rel' });
    const [row] = await auditRows(c);
    expect(row).toMatchObject({ action: 'canvas.deploy', actorKind: 'key', actorId: c.ownerId });
    expect(row!.detail).toMatchObject({ versionId: r.body.versionId, version: 1, source: 'api', fileCount: 2, releaseId: 'rel' });
  });
});

describe('retention', () => {
  test('12 deploys keep the 10 newest; a pruned number is INVALID_PATH; blobs only pruned versions held are collected', async () => {
    const c = await fresh();
    const unique = (i: number) => `unique content of deploy ${i} ${c.id}`;
    for (let i = 1; i <= 10; i++) await deploy(app, c, site({ 'u.txt': unique(i) }));
    expect(await stored(hashOf(unique(1)))).toBe(true);
    // The blobs are now old enough for collection (past the grace period).
    clock += 60 * 60 * 1000;
    for (let i = 11; i <= 12; i++) await deploy(app, c, site({ 'u.txt': unique(i) }));
    expect(await versionRows(c)).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    const list = (await get(app, c, '/versions')).body.versions;
    expect(list.map((v: { number: number }) => v.number)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3]);
    for (const n of [1, 2]) expect((await post(app, c, '/rollback', { version: n })).body.code).toBe('INVALID_PATH');
    // On the cluster a prune collects the blobs the pruning node holds a copy of; the others wait for a sweep (by the bucket's ages).
    if (ON_CLUSTER) await app.ctx.blobGc.sweep();
    expect(await stored(hashOf(unique(1)))).toBe(false);
    expect(await stored(hashOf(unique(2)))).toBe(false);
    // Content still used by kept versions stays.
    expect(await stored(hashOf(unique(3)))).toBe(true);
    expect(await stored(hashOf('<h1>hi</h1>'))).toBe(true);
    // The oldest kept version is a rollback target and serves its files.
    expect((await post(app, c, '/rollback', { version: 3 })).status).toBe(200);
    const res = await app.request(`/v1/canvases/${c.id}/files?path=u.txt`, { headers: { authorization: `Bearer ${c.key}` } });
    expect(await res.text()).toBe(unique(3));
  });

  // Ages blobs by touching node A's local copies; on the cluster the deploys may have written them on node B.
  test.skipIf(ON_CLUSTER)(
    'a pruned blob another canvas still uses is kept; one re-used within the grace period waits for the sweep',
    async () => {
      const a = await fresh();
      const b = await fresh();
      const shared = `shared ${a.id}`;
      const recent = `recent ${a.id}`;
      await deploy(app, a, site({ 's.txt': shared, 'r.txt': recent }));
      await deploy(app, b, site({ 's.txt': shared }));
      // As the app's clock sees it: `shared` is old, `recent` was just written (or re-used).
      utimesSync(app.ctx.blobs.pathOf(hashOf(shared)), new Date(clock - 7_200_000), new Date(clock - 7_200_000));
      utimesSync(app.ctx.blobs.pathOf(hashOf(recent)), new Date(clock), new Date(clock));
      for (let i = 0; i < 10; i++) await deploy(app, a, site({ 'n.txt': String(i) }));
      expect((await versionRows(a))[0]).toBe(2);
      expect(await stored(hashOf(shared))).toBe(true);
      expect(await stored(hashOf(recent))).toBe(true);
      // Past the grace period the whole-store sweep takes it; what is referenced stays.
      clock += 60 * 60 * 1000;
      expect(await app.ctx.blobGc.sweep()).toBeGreaterThanOrEqual(1);
      expect(await stored(hashOf(recent))).toBe(false);
      expect(await stored(hashOf(shared))).toBe(true);
      const res = await app.request(`/v1/canvases/${a.id}/files?path=n.txt`, { headers: { authorization: `Bearer ${a.key}` } });
      expect(await res.text()).toBe('9');
    },
  );
});

describe('retention: pruning and collection', () => {
  test('a pruned release is gone from history: deploying it again publishes', async () => {
    const c = await fresh();
    await deploy(app, c, site(), { releaseId: 'old-release' });
    for (let i = 0; i < 10; i++) await deploy(app, c, site({ 'n.js': `${i}` }));
    expect((await versionRows(c))[0]).toBe(2);
    const again = await deploy(app, c, site(), { releaseId: 'old-release' });
    expect(again.body).toMatchObject({ outcome: 'published', version: 12, releaseId: 'old-release' });
  });

  test('pruning runs inside the transaction that activates the new version: if it fails, nothing changes', async () => {
    const c = await fresh();
    for (let i = 0; i < 10; i++) await deploy(app, c, site({ 'n.js': `tx ${i}` }));
    const before = await sharing(app.ctx, c.id);
    const audits = (await auditRows(c)).length;
    // A trigger refuses the prune, on either engine (the same database for both nodes of the cluster).
    const sqlite = app.ctx.sql.engine === 'sqlite';
    if (sqlite) {
      await app.ctx.sql.run("CREATE TEMP TRIGGER refuse_prune BEFORE DELETE ON versions BEGIN SELECT RAISE(ABORT, 'prune refused'); END");
    } else {
      await app.ctx.sql.run(
        "CREATE FUNCTION refuse_prune() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'prune refused'; END $$",
      );
      await app.ctx.sql.run('CREATE TRIGGER refuse_prune BEFORE DELETE ON versions FOR EACH ROW EXECUTE FUNCTION refuse_prune()');
    }
    try {
      const r = await deploy(app, c, site({ 'n.js': `tx ${c.id} eleven` }));
      expect(r.status).toBe(500);
    } finally {
      if (sqlite) await app.ctx.sql.run('DROP TRIGGER refuse_prune');
      else {
        await app.ctx.sql.run('DROP TRIGGER refuse_prune ON versions');
        await app.ctx.sql.run('DROP FUNCTION refuse_prune()');
      }
    }
    expect(await sharing(app.ctx, c.id)).toEqual(before);
    expect(await versionRows(c)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect((await auditRows(c)).length).toBe(audits);
    // The failed deploy's new blob went with it.
    expect(await stored(hashOf(`tx ${c.id} eleven`))).toBe(false);
    expect((await deploy(app, c, site({ 'n.js': 'after' }))).body.version).toBe(11);
    expect((await versionRows(c))[0]).toBe(2);
  });

  test('a blob a runtime file still uses (the files table) is never collected', async () => {
    const c = await fresh();
    const content = `runtime file bytes ${c.id}`;
    await deploy(app, c, site({ 'shared.txt': content }));
    await app.ctx.sql.run(
      'INSERT INTO files (id, canvas_id, name, size, mime, hash, scope, uploaded_by, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)',
      `f-${c.id}`,
      c.id,
      'upload.txt',
      content.length,
      'text/plain',
      hashOf(content),
      'shared',
      c.ownerId,
      clock,
    );
    const old = new Date(Date.now() - 7_200_000);
    const local = app.ctx.blobs.pathOf(hashOf(content));
    // On the cluster the deploy may have left its copy on node B only: its age is then B's and the bucket's, not touched here.
    if (!ON_CLUSTER || existsSync(local)) utimesSync(local, old, old);
    for (let i = 0; i < 10; i++) await deploy(app, c, site({ 'n.js': `files ${i}` }));
    expect((await versionRows(c))[0]).toBe(2);
    const start = clock;
    try {
      clock = Date.now() + 7_200_000;
      await app.ctx.blobGc.sweep();
      expect(await stored(hashOf(content))).toBe(true);
      await app.ctx.sql.run('DELETE FROM files WHERE id = ?1', `f-${c.id}`);
      await app.ctx.blobGc.sweep();
      expect(await stored(hashOf(content))).toBe(false);
    } finally {
      clock = start;
    }
  });

  // Holds are per node: on the cluster the deploy may hold the blob on node B while node A sweeps (B then uploads it again at commit).
  test.skipIf(ON_CLUSTER)(
    'collection never races an in-flight deploy: a sweep while its body is still arriving spares the blobs it has written',
    async () => {
      const c = await fresh();
      const early = `written before the body ends ${c.id}`;
      // The same bytes already sit in the store, unreferenced and old: a sweep would take them...
      const orphan = await app.ctx.blobs.putBytes(text(early));
      const old = new Date(Date.now() - 7_200_000);
      utimesSync(app.ctx.blobs.pathOf(orphan.hash), old, old);
      const zip = zipOf(
        { 'early.txt': early, 'index.html': '<h1>late</h1>', 'late.bin': crypto.getRandomValues(new Uint8Array(200_000)) },
        0,
      );
      // ...the deploy sends the first entry, then waits before the rest.
      const cut = Buffer.from(zip).indexOf(Buffer.from('PK\x03\x04', 'latin1'), 4);
      expect(cut).toBeGreaterThan(early.length);
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const body = new ReadableStream<Uint8Array>({
        async start(ctl) {
          ctl.enqueue(zip.subarray(0, cut));
          await gate;
          ctl.enqueue(zip.subarray(cut));
          ctl.close();
        },
      });
      const held = nextEvent(app, 'blobs.held', (e) => e.hash === orphan.hash);
      const pending = deploy(app, c, body);
      const start = clock;
      try {
        await held;
        clock = Date.now() + 7_200_000;
        await app.ctx.blobGc.sweep();
        expect(await stored(orphan.hash)).toBe(true);
      } finally {
        clock = start;
        release();
      }
      const r = await pending;
      expect(r.status).toBe(200);
      const res = await app.request(`/v1/canvases/${c.id}/files?path=early.txt`, { headers: { authorization: `Bearer ${c.key}` } });
      expect(await res.text()).toBe(early);
    },
  );

  // Compressed copies and delete listeners are node A's own (its data directory, its memory).
  test.skipIf(ON_CLUSTER)('a collected blob takes its cached compressed copies along, and listeners hear of it', async () => {
    const c = await fresh();
    const content = `compressible ${c.id} `.repeat(200);
    await deploy(app, c, site({ 'big.txt': content }));
    const hash = hashOf(content);
    const copies = app.ctx.blobs.derivedPaths(hash);
    expect(copies.map((p) => p.slice(app.dataDir.length))).toEqual([
      `/blobs-compressed/${hash.slice(0, 2)}/${hash}.br`,
      `/blobs-compressed/${hash.slice(0, 2)}/${hash}.gz`,
    ]);
    mkdirSync(dirname(copies[0]!), { recursive: true });
    for (const p of copies) writeFileSync(p, 'compressed');
    // An orphan copy (its blob long gone) is swept too.
    const orphan = hashOf(`never stored ${c.id}`);
    const orphanCopy = app.ctx.blobs.derivedPaths(orphan)[0]!;
    mkdirSync(dirname(orphanCopy), { recursive: true });
    writeFileSync(orphanCopy, 'stale');
    const heard: string[] = [];
    const off = app.ctx.blobs.onDelete((h) => heard.push(h));
    const old = new Date(Date.now() - 7_200_000);
    utimesSync(app.ctx.blobs.pathOf(hash), old, old);
    const start = clock;
    try {
      clock = Date.now() + 7_200_000;
      for (let i = 0; i < 10; i++) await deploy(app, c, site({ 'n.js': `copies ${i}` }));
      expect(await stored(hash)).toBe(false);
      for (const p of copies) expect(existsSync(p)).toBe(false);
      expect(heard).toContain(hash);
      await app.ctx.blobGc.sweep();
      expect(existsSync(orphanCopy)).toBe(false);
      expect(heard).toContain(orphan);
    } finally {
      clock = start;
      off();
    }
  });
});

describe('scheduled blob sweeps', () => {
  test('a whole-store sweep a minute after start, then every six hours; shutdown cancels every timer', async () => {
    const clock = new ManualClock(Date.now());
    const own = await startTestApp({ listen: true, now: clock.now, scheduler: clock.scheduler });
    // Every node sweeps on its own timer (two on the cluster pass, where one of them deletes a given orphan).
    const sweeps = own.nodes.map((node) => recordEvents(node, 'blobs.swept'));
    const seen = () => sweeps.map((s) => s.seen.length);
    /** Advances to the next sweep time; what every node's sweep removed, together. */
    const sweepAfter = async (ms: number) => {
      const swept = Promise.all(own.nodes.map((node) => nextEvent(node, 'blobs.swept')));
      clock.advance(ms);
      return (await swept).reduce((n, e) => n + e.removed, 0);
    };
    try {
      // An orphan (a crash mid-deploy), past the grace period.
      const orphan = async (what: string) => {
        const { hash } = await own.ctx.blobs.putBytes(text(what));
        const old = new Date(clock.now() - 7_200_000);
        utimesSync(own.ctx.blobs.pathOf(hash), old, old);
        return hash;
      };
      const first = await orphan('left by a crash');
      // On the cluster both nodes may count an orphan: a node whose listing was read before the other's delete deletes
      // the (already missing) object again, which the remote store allows. One node or both, never none.
      clock.advance(59_999);
      expect(seen()).toEqual(own.nodes.map(() => 0));
      expect(own.ctx.blobs.has(first)).toBe(true);
      const removedFirst = await sweepAfter(1);
      expect(removedFirst).toBeGreaterThanOrEqual(1);
      expect(removedFirst).toBeLessThanOrEqual(own.nodes.length);
      // Gone from the store (on the cluster the other node may be the one that deleted it from the bucket).
      expect(await own.ctx.blobs.sizeOf(first)).toBeNull();

      const second = await orphan('spared by a prune');
      clock.advance(6 * 3600_000 - 1);
      expect(seen()).toEqual(own.nodes.map(() => 1));
      // As above: one node's removal, or both nodes' (see the first sweep).
      const removed = await sweepAfter(1);
      expect(removed).toBeGreaterThanOrEqual(1);
      expect(removed).toBeLessThanOrEqual(own.nodes.length);
      expect(await own.ctx.blobs.sizeOf(second)).toBeNull();
    } finally {
      await own.close();
    }
    expect(clock.pending).toBe(0);
    for (const s of sweeps) s.stop();
  });
});

describe('the deploy-class rate', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await startTestApp({ env: { EASEL_RATELIMIT_DEPLOY_PER_MIN: '3' } });
  });
  afterAll(() => limited.close());

  test('PUT deploy and rollback share it per canvas: 429 {error: rate_limited} with Retry-After', async () => {
    const c = await createDeployCanvas(limited);
    const other = await createDeployCanvas(limited);
    expect((await deploy(limited, c, site())).status).toBe(200);
    expect((await deploy(limited, c, 'garbage')).status).toBe(400);
    expect((await post(limited, c, '/rollback', { version: 1 })).status).toBe(200);
    for (const r of [await deploy(limited, c, site()), await post(limited, c, '/rollback', { version: 1 })]) {
      expect(r.status).toBe(429);
      expect(r.body).toEqual({ error: 'rate_limited' });
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // Reads and unpublish are not throttled; another canvas has its own budget.
    expect((await get(limited, c)).status).toBe(200);
    expect((await get(limited, c, '/files')).status).toBe(200);
    expect((await post(limited, c, '/unpublish')).status).toBe(200);
    expect((await deploy(limited, other, site())).status).toBe(200);
  });

  test('counted only after the key is verified', async () => {
    const c = await createDeployCanvas(limited);
    for (let i = 0; i < 5; i++) {
      const r = await deploy(limited, { ...c, key: `easel_sk_${'x'.repeat(40)}` }, site());
      expect(r.status).toBe(401);
    }
    expect((await deploy(limited, c, site())).status).toBe(200);
  });

  test("refused keys on begin, finalize and rollback spend nothing either; another canvas's key is refused before counting", async () => {
    const c = await createDeployCanvas(limited);
    const other = await createDeployCanvas(limited);
    for (const key of [`easel_sk_${'y'.repeat(40)}`, other.key]) {
      for (const path of ['/uploads', '/uploads/some-upload/finalize', '/rollback']) {
        const r = await post(limited, c, path, { version: 1, manifest: [] }, { key });
        expect(r.body).toEqual({ error: 'unauthorized' });
      }
    }
    // The whole budget of 3 is still there, spent by one of each class member.
    expect((await deploy(limited, c, site())).status).toBe(200);
    const s = await post(limited, c, '/uploads', { manifest: [{ path: 'index.html', hash: hashOf('<h1>hi</h1>'), size: 11 }] });
    expect(s.status).toBe(200);
    expect((await post(limited, c, '/rollback', { version: 1 })).status).toBe(200);
    const over = await post(limited, c, `/uploads/${s.body.uploadId}/finalize`, {});
    expect([over.status, over.body]).toEqual([429, { error: 'rate_limited' }]);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Staging a blob and the reads are not counted.
    const staged = await limited.request(`/v1/canvases/${c.id}/uploads/${s.body.uploadId}/blobs/${hashOf('<h1>hi</h1>')}`, {
      method: 'PUT',
      body: '<h1>hi</h1>',
      headers: { authorization: `Bearer ${c.key}` },
    });
    expect(staged.status).toBe(204);
    expect((await get(limited, c, '/versions')).status).toBe(200);
  });
});

describe('secrets', () => {
  test('keys and coordination tokens never reach the logs or any response', async () => {
    const c = await fresh();
    const token = (await sharing(app.ctx, c.id)).publication_token;
    await deploy(app, c, site(), { expectedPublicationToken: token });
    await deploy(app, c, 'garbage');
    await get(app, c, '/files?path=index.html');
    const logs = JSON.stringify(app.logs);
    expect(logs).not.toContain(c.key);
    expect(logs).not.toContain(token);
    expect(logs).not.toContain('expectedPublicationToken=');
    const bodies = JSON.stringify([(await get(app, c)).body, (await get(app, c, '/versions')).body, (await get(app, c, '/files')).body]);
    expect(bodies).not.toContain(c.key);
    expect(bodies).not.toContain(hashOf(c.key));
  });
});

describe('unpublish through the Deploy API, end to end', () => {
  let live: TestApp;
  beforeAll(async () => {
    live = await startTestApp({ listen: true, env: { EASEL_RATELIMIT_ENABLED: 'false' } });
  });
  afterAll(() => live.close());

  test("drops the canvas's realtime sockets (4401) through the hook, other canvases' stay; the page stops serving", async () => {
    const cast = await new World().attach(live);
    const other = await new World().attach(live);
    const c: DeployCanvas = {
      id: cast.canvas.id,
      slug: cast.canvas.slug,
      key: cast.canvas.apiKey,
      ownerId: cast.ids.owner,
      ownerCookie: cast.cookie.owner,
    };
    expect((await deploy(live, c, site())).status).toBe(200);
    const page = await live.request(`/c/${c.slug}/`, { cookie: cast.cookie.viewer });
    expect(page.status).toBe(200);
    const owner = await connect(live, c.slug, cast.cookie.owner);
    const viewer = await connect(live, c.slug, cast.cookie.viewer);
    const elsewhere = await connect(live, other.canvas.slug, other.cookie.viewer);
    expect(await owner.opened).toBe(true);
    expect((await post(live, c, '/unpublish')).status).toBe(200);
    expect((await owner.closed).code).toBe(4401);
    expect((await viewer.closed).code).toBe(4401);
    expect((await elsewhere.ask({ type: 'presence', channel: 'x' })).type).toBe('presence');
    await elsewhere.close();
    expect((await live.request(`/c/${c.slug}/`, { cookie: cast.cookie.viewer })).status).toBe(404);
  });
});

describe('DeployResult is the same on every path', () => {
  test('a ZIP deploy and a staged upload of the same site answer the same shape and numbers (the key lint is ZIP-only)', async () => {
    const files = {
      'index.html': '<h1>same</h1>',
      'app.js': 'let same = 1',
      'notes.qqq': 'unknown',
      'secret.txt': `key: easel_sk_${'A'.repeat(40)}`,
    };
    const a = await fresh();
    const b = await createKeyedCanvas(app);
    const viaZip = await deploy(app, a, zipOf(files), { releaseId: 'same-release' });
    const viaUpload = await stagedDeploy(app, b, files, { releaseId: 'same-release' });
    expect(viaZip.status).toBe(200);
    expect(viaUpload.status).toBe(200);
    expect(Object.keys(viaUpload.body).sort()).toEqual(Object.keys(viaZip.body).sort());
    const numbers = (r: { body: Record<string, unknown> }) => ({
      outcome: r.body.outcome,
      version: r.body.version,
      releaseId: r.body.releaseId,
      fileCount: r.body.fileCount,
      totalBytes: r.body.totalBytes,
    });
    expect(numbers(viaUpload)).toEqual(numbers(viaZip));
    expect(viaZip.body.warnings).toEqual(['notes.qqq will be served as text/plain', 'secret.txt may contain a canvas API key']);
    expect(viaUpload.body.warnings).toEqual(viaZip.body.warnings);
    // already_current is the same shape too, with the live version's fields.
    const againZip = await deploy(app, a, zipOf(files), { releaseId: 'same-release' });
    const againUpload = await begin(app, b, { manifest: site2(files).manifest, releaseId: 'same-release' });
    expect(againZip.body).toEqual({ ...viaZip.body, outcome: 'already_current', warnings: [] });
    expect(againUpload.body).toEqual({ ...viaUpload.body, outcome: 'already_current', warnings: [] });
  });
});
