// passes: embedded, s3, cluster
// Deploy previews (issue 40): every deploy path with `preview`, the live site
// untouched, the version addresses with the canvas's access, making one live
// through rollback, and the pruning order.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { canvasUrl } from '../src/canvases/url.ts';
import { startTestApp, type TestApp } from './harness.ts';
import { canvasHostCookie } from './canvas-host-session.ts';
import { pageCode } from './serve-fixtures.ts';
import { begin, finalize, site as stagedSite, stage, tokenOf } from './upload-fixtures.ts';
import { ADMIN_EMAIL, useWorld, World, type Who, type WorldCanvas } from './world.ts';
import { zipOf } from './deploy-fixtures.ts';

const LIVE = { 'index.html': '<h1>live</h1>', 'app.js': 'console.log("live")' };
const NEXT = {
  'index.html': '<h1>next</h1>',
  '404.html': '<p>preview 404</p>',
  'docs/index.html': '<p>docs</p>',
};
const w = useWorld({ env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_RATELIMIT_ENABLED: 'false' }, reset: 'none' });
const zip = zipOf;

async function putDeploy(
  c: WorldCanvas,
  files: Record<string, string>,
  query: string,
  headers: Record<string, string> = { authorization: `Bearer ${c.apiKey}` },
  route = 'v1',
) {
  const path = route === 'v1' ? `/v1/canvases/${c.id}/deploy?${query}` : `/api/canvases/${c.id}/deploy?${query}`;
  const res = await w.app.request(path, { method: 'PUT', body: zip(files), headers });
  return { status: res.status, body: await res.json() };
}

/** What a visitor with `cookie` gets for every live path, byte for byte, with the token. */
async function liveState(c: WorldCanvas) {
  const pages: Record<string, string> = {};
  for (const p of ['', 'app.js', 'missing']) {
    const res = await w.request('owner', `/c/${c.slug}/${p}`);
    pages[p] = `${res.status} ${res.headers.get('etag')} ${await res.text()}`;
  }
  return { pages, token: await tokenOf(w.app.ctx, c.id), live: (await w.app.ctx.canvases.byId(c.id))!.currentVersionId };
}

describe('deploying a preview', () => {
  test('PUT /v1 …/deploy?preview=true: a ready version that is not live; the live site and the token stay', async () => {
    const c = await w.newCanvas({ files: LIVE });
    const before = await liveState(c);
    const r = await putDeploy(c, NEXT, 'preview=true');
    expect(r.status).toBe(200);
    const url = canvasUrl(w.app.ctx.config, c.slug);
    expect(r.body).toMatchObject({ outcome: 'preview', url, previewUrl: `${url}__easel/v/2/`, version: 2, publicationToken: before.token });
    expect(await liveState(c)).toEqual(before);
    const list = await w.expectOk('GET', `/api/canvases/${c.id}/versions`, 'owner');
    expect(list.versions.map((v: any) => [v.number, v.current, v.preview, v.previewUrl])).toEqual([
      [2, false, true, `${url}__easel/v/2/`],
      [1, true, false, `${url}__easel/v/1/`],
    ]);
    const viaKey = await w.app.request(`/v1/canvases/${c.id}/versions`, { headers: { authorization: `Bearer ${c.apiKey}` } });
    expect((await viaKey.json()).versions[0]).toMatchObject({ number: 2, preview: true, previewUrl: `${url}__easel/v/2/` });
  });

  test('the people route, as an editor, takes ?preview=true too', async () => {
    const c = await w.newCanvas({ files: LIVE });
    const before = await liveState(c);
    const r = await putDeploy(c, NEXT, 'preview=true', { cookie: w.cookie.editor! }, 'api');
    expect(r).toMatchObject({ status: 200, body: { outcome: 'preview', version: 2 } });
    expect(await liveState(c)).toEqual(before);
  });

  test('a staged finalize with {"preview": true}', async () => {
    const c = await w.newCanvas({ files: LIVE });
    const before = await liveState(c);
    const keyed = { id: c.id, slug: c.slug, key: c.apiKey, ownerId: '', ownerCookie: '' };
    const s = stagedSite(NEXT);
    const b = await begin(w.app, keyed, { manifest: s.manifest });
    for (const h of b.body.missingHashes as string[])
      expect((await stage(w.app, keyed, b.body.uploadId, h, s.byHash.get(h)!)).status).toBe(204);
    const f = await finalize(w.app, keyed, b.body.uploadId, { preview: true });
    expect(f).toMatchObject({ status: 200, body: { outcome: 'preview', version: 2, previewUrl: expect.stringContaining('__easel/v/2/') } });
    expect(await liveState(c)).toEqual(before);
  });

  test('a misspelt parameter is refused on both routes before anything is read: a typo of preview never publishes, nor one of the token skips its check', async () => {
    const c = await w.newCanvas({ files: LIVE });
    const before = await liveState(c);
    const people = { cookie: w.cookie.owner! };
    for (const [query, headers, route] of [
      ['previw=true', undefined, 'v1'],
      ['preview=true&expectedPublicationtoken=stale', undefined, 'v1'],
      ['previw=true', people, 'api'],
    ] as const) {
      const r = await putDeploy(c, NEXT, query, headers, route);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('INVALID_REQUEST');
      expect(r.body.message).toStartWith('unknown query parameter "');
      expect(r.body.message).toContain('a deploy takes releaseId, expectedPublicationToken and preview');
    }
    expect(await liveState(c)).toEqual(before);
    const versions = await w.app.request(`/v1/canvases/${c.id}/versions`, { headers: { authorization: `Bearer ${c.apiKey}` } });
    expect(((await versions.json()) as { versions: unknown[] }).versions).toHaveLength(1);
  });

  test('preview must be true or false', async () => {
    const c = await w.newCanvas({ files: LIVE });
    const r = await putDeploy(c, NEXT, 'preview=yes');
    expect(r).toEqual({ status: 400, body: expect.objectContaining({ code: 'INVALID_REQUEST' }) });
  });

  test('releaseId: a kept release answers that version as the preview; a stale expectedPublicationToken is still refused', async () => {
    const c = await w.newCanvas({ files: LIVE });
    const token = await tokenOf(w.app.ctx, c.id);
    const first = await putDeploy(c, NEXT, 'preview=true&releaseId=abc');
    expect(first.body).toMatchObject({ outcome: 'preview', version: 2, releaseId: 'abc' });
    const again = await putDeploy(c, NEXT, 'preview=true&releaseId=abc');
    expect(again.body).toMatchObject({ outcome: 'preview', version: 2, versionId: first.body.versionId });
    const stale = await putDeploy(c, NEXT, 'preview=true&expectedPublicationToken=stale');
    expect(stale).toMatchObject({ status: 409, body: { code: 'PUBLICATION_CHANGED' } });
    const current = await putDeploy(c, NEXT, `preview=true&expectedPublicationToken=${token}`);
    expect(current.body).toMatchObject({ outcome: 'preview', version: 3 });
    // Without preview, the kept release is not live: the usual conflict.
    expect((await putDeploy(c, NEXT, 'releaseId=abc')).body.code).toBe('RELEASE_NOT_CURRENT');
  });

  test('making a preview live is the rollback; the token then changes', async () => {
    const c = await w.newCanvas({ files: LIVE });
    const before = await tokenOf(w.app.ctx, c.id);
    await putDeploy(c, NEXT, 'preview=true');
    await w.expectOk('POST', `/api/canvases/${c.id}/rollback`, 'owner', { version: 2 });
    expect(await tokenOf(w.app.ctx, c.id)).not.toBe(before);
    expect(await (await w.request('owner', `/c/${c.slug}/`)).text()).toBe('<h1>next</h1>');
  });
});

describe('version addresses', () => {
  test('served with noindex, its own 404.html and its redirects', async () => {
    const c = await w.newCanvas({ files: LIVE });
    await putDeploy(c, NEXT, 'preview=true');
    const base = `/c/${c.slug}/__easel/v/2/`;
    const page = await w.request('owner', base);
    expect(page.status).toBe(200);
    expect(page.headers.get('x-robots-tag')).toBe('noindex');
    expect(await page.text()).toBe('<h1>next</h1>');
    const missing = await w.request('owner', `${base}nope`);
    expect({ status: missing.status, text: await missing.text(), robots: missing.headers.get('x-robots-tag') }).toEqual({
      status: 404,
      text: '<p>preview 404</p>',
      robots: 'noindex',
    });
    expect((await w.request('owner', `${base}docs`)).headers.get('location')).toBe(`${base}docs/`);
    expect((await w.request('owner', `/c/${c.slug}/__easel/v/2`)).headers.get('location')).toBe(base);
    // The older, live version has its address too; an unknown one is a 404 page.
    expect(await (await w.request('owner', `/c/${c.slug}/__easel/v/1/app.js`)).text()).toBe('console.log("live")');
    for (const n of ['3', '0', 'x', '01']) {
      const res = await w.request('owner', `/c/${c.slug}/__easel/v/${n}/`);
      expect({ n, status: res.status, code: pageCode(await res.text()) }).toEqual({ n, status: 404, code: 'NOT_FOUND' });
    }
  });

  const LOGIN = 302;
  const NF = 404;
  const rows: Array<[string, Record<string, unknown>, Record<Exclude<Who, 'otherKey' | 'admin'>, number>]> = [
    ['restricted', {}, { anonymous: LOGIN, stranger: NF, viewer: 200, editor: 200, owner: 200, guest: 200 }],
    ['public_link', { accessMode: 'public_link' }, { anonymous: 200, stranger: 200, viewer: 200, editor: 200, owner: 200, guest: 200 }],
    [
      'password',
      { password: 'correct horse battery' },
      { anonymous: LOGIN, stranger: NF, viewer: 403, editor: 200, owner: 200, guest: 200 },
    ],
    ['expired', { expiresAt: Date.now() - 1000 }, { anonymous: LOGIN, stranger: NF, viewer: NF, editor: 200, owner: 200, guest: NF }],
  ];
  for (const [name, settings, expected] of rows) {
    test(`path mode, ${name}: each role gets what the live page gives`, async () => {
      const c = w.use(await w.newCanvas({ files: LIVE, settings }));
      await putDeploy(c, NEXT, 'preview=true');
      for (const [who, status] of Object.entries(expected)) {
        const live = await w.request(who as Who, `/c/${c.slug}/`);
        const v = await w.request(who as Who, `/c/${c.slug}/__easel/v/2/`);
        expect({ who, live: live.status, version: v.status }).toEqual({ who, live: status, version: status });
        if (status === 200) expect(await v.text()).toBe('<h1>next</h1>');
      }
    });
  }
});

describe('subdomain mode', () => {
  const HOST = 'easel.test:8080';
  let sub: TestApp;
  let people: World;
  beforeAll(async () => {
    sub = await startTestApp({ env: { EASEL_URL_MODE: 'subdomain', EASEL_BASE_URL: `http://${HOST}`, EASEL_RATELIMIT_ENABLED: 'false' } });
    people = await new World().attach(sub);
  });
  afterAll(() => sub.close());

  test('a version is served on the canvas host, to whom the canvas is served', async () => {
    const c = await people.newCanvas({ files: LIVE });
    const res = await sub.request(`/v1/canvases/${c.id}/deploy?preview=true`, {
      method: 'PUT',
      body: zip(NEXT),
      headers: { authorization: `Bearer ${c.apiKey}` },
    });
    const r = await res.json();
    expect(r.previewUrl).toBe(`http://${c.slug}.${HOST}/__easel/v/2/`);
    const at = (cookie: string) => sub.request('/__easel/v/2/', { cookie, headers: { host: `${c.slug}.${HOST}` } });
    const viewer = await at(await canvasHostCookie(sub, HOST, c.slug, people.cookie.viewer!));
    expect({ status: viewer.status, text: await viewer.text(), robots: viewer.headers.get('x-robots-tag') }).toEqual({
      status: 200,
      text: '<h1>next</h1>',
      robots: 'noindex',
    });
    const stranger = await at(await canvasHostCookie(sub, HOST, c.slug, people.cookie.stranger!));
    expect(stranger.status).toBe(404);
    expect((await at('')).status).toBe(302);
  });
});

describe('keeping', () => {
  test('previews go before published versions; the live one stays', async () => {
    const c = await w.newCanvas({ files: { 'index.html': 'v1' } });
    const deployN = (n: number, preview: boolean) => putDeploy(c, { 'index.html': `v${n}` }, preview ? 'preview=true' : '');
    // 2..6 published, 7..10 previews: 10 kept, v6 live.
    for (let n = 2; n <= 6; n++) expect((await deployN(n, false)).body.outcome).toBe('published');
    for (let n = 7; n <= 10; n++) expect((await deployN(n, true)).body.outcome).toBe('preview');
    const kept = async () =>
      (await w.expectOk('GET', `/api/canvases/${c.id}/versions`, 'owner')).versions
        .map((v: any) => v.number)
        .sort((a: number, b: number) => a - b);
    expect(await kept()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // An 11th (a preview): the oldest preview (7) goes, not published 1.
    await deployN(11, true);
    expect(await kept()).toEqual([1, 2, 3, 4, 5, 6, 8, 9, 10, 11]);
    // Roll back to 1: it is live, and must survive while previews and other published versions go.
    await w.expectOk('POST', `/api/canvases/${c.id}/rollback`, 'owner', { version: 1 });
    for (let n = 12; n <= 15; n++) await deployN(n, true);
    expect(await kept()).toEqual([1, 2, 3, 4, 5, 6, 12, 13, 14, 15]);
    // A published deploy: the oldest preview (12) goes first.
    await deployN(16, false);
    expect(await kept()).toEqual([1, 2, 3, 4, 5, 6, 13, 14, 15, 16]);
  });
});
