// passes: embedded, s3, cluster
// Canvas files: paths and index rules, content types, validators, ranges, compression, caching, URL modes.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, statSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { canvasUrl } from '../src/canvases/url.ts';
import { sha256Hex } from '../src/ids.ts';
import { beginHandoff, canvasHostCookie, setCookieValue } from './canvas-host-session.ts';
import { ON_CLUSTER, startTestApp, type TestApp } from './harness.ts';
import { pageCode } from './serve-fixtures.ts';
import { deploy, zipOf } from './deploy-fixtures.ts';
import { stagedDeploy } from './upload-fixtures.ts';
import { World, type WorldCanvas } from './world.ts';

let app: TestApp;
let cast: World;

beforeAll(async () => {
  app = await startTestApp();
  cast = await new World().attach(app);
});
afterAll(() => app.close());

const JS = `// app\n${Array.from({ length: 200 }, (_, i) => `export const value${i} = ${i} * 2; // some repeated text to compress`).join('\n')}\n`;
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...new Array(3000).fill(7)]);

/** A canvas of `w`'s owner (editor and viewers on its list), published with `files` through the Deploy API. */
const published = (w: World, files: Record<string, string | Uint8Array> = { 'index.html': '<h1>hello</h1>' }) => w.newCanvas({ files });

const get = (path: string, headers: Record<string, string> = {}, cookie = cast.cookie.viewer) => app.request(path, { cookie, headers });

describe('paths', () => {
  let site: WorldCanvas;
  beforeAll(async () => {
    site = await published(cast, {
      'index.html': '<h1>home</h1>',
      'about.html': '<h1>about</h1>',
      'docs/index.html': '<h1>docs</h1>',
      'docs/guide/index.html': '<h1>guide</h1>',
      'my file.txt': 'spaced',
      '404.html': '<h1>custom missing</h1>',
    });
  });

  test('/c/{slug} → 301 to the slash, query kept', async () => {
    const res = await get(`/c/${site.slug}?a=1&b=two`);
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe(`/c/${site.slug}/?a=1&b=two`);
    // A slash in the query is the query's: the slug ends at the `?`.
    const slashed = await get(`/c/${site.slug}?next=/c/other/x`);
    expect([slashed.status, slashed.headers.get('location')]).toEqual([301, `/c/${site.slug}/?next=/c/other/x`]);
    const file = await get(`/c/${site.slug}/about?next=/x/y`);
    expect(file.status).toBe(200);
    // Before any access check: it says nothing about the canvas.
    const unknown = await app.request('/c/no-such-canvas');
    expect(unknown.status).toBe(301);
  });

  test('pages are answered before the router, yet `/c/` without a slug stays an unknown route', async () => {
    for (const path of ['/c/', '/c']) {
      const res = await app.request(path);
      expect({ path, status: res.status, body: await res.json() }).toEqual({
        path,
        status: 404,
        body: { code: 'NOT_FOUND', message: 'no such route' },
      });
    }
    const res = await get(`/c/${site.slug}/about`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^[a-z0-9]{20}$/);
    expect(app.logs.some((l) => l.msg === 'request' && l.path === `/c/${site.slug}/about` && l.status === 200)).toBe(true);
  });

  test('root and directories serve their index.html; `dir` → 301 `dir/`, query kept', async () => {
    expect(await (await get(`/c/${site.slug}/`)).text()).toBe('<h1>home</h1>');
    expect(await (await get(`/c/${site.slug}/docs/`)).text()).toBe('<h1>docs</h1>');
    expect(await (await get(`/c/${site.slug}/docs/guide/`)).text()).toBe('<h1>guide</h1>');
    const redirect = await get(`/c/${site.slug}/docs/guide?x=1`);
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe(`/c/${site.slug}/docs/guide/?x=1`);
  });

  test('`page` serves `page.html`; percent-encoded names are decoded', async () => {
    expect(await (await get(`/c/${site.slug}/about`)).text()).toBe('<h1>about</h1>');
    expect(await (await get(`/c/${site.slug}/about.html`)).text()).toBe('<h1>about</h1>');
    expect(await (await get(`/c/${site.slug}/my%20file.txt`)).text()).toBe('spaced');
  });

  test("a missing path answers 404 with the canvas's own 404.html", async () => {
    // (Dot segments never get here: the URL parser resolves them, as a browser does.)
    for (const path of ['nope', 'docs/nope/', '%E0%A4%A', 'docs/..%2Findex.html', 'docs%2Findex.html', 'nul%00.html']) {
      const res = await get(`/c/${site.slug}/${path}`);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await res.text()).toBe('<h1>custom missing</h1>');
    }
  });

  test('without a 404.html, a small Easel page; a root without index.html is missing too', async () => {
    const bare = await published(cast, { 'a.html': 'a', 'b.html': 'b' });
    const res = await get(`/c/${bare.slug}/`);
    expect(res.status).toBe(404);
    const html = await res.text();
    expect(pageCode(html)).toBe('NOT_FOUND');
    expect(html).toContain('no page at this address');
  });

  test('the only HTML file answers at the root', async () => {
    const single = await published(cast, { 'page.html': '<h1>only</h1>', 'app.js': 'x' });
    expect(await (await get(`/c/${single.slug}/`)).text()).toBe('<h1>only</h1>');
    const nested = await published(cast, { 'sub/deck.html': '<h1>deck</h1>' });
    expect(await (await get(`/c/${nested.slug}/`)).text()).toBe('<h1>deck</h1>');
  });

  test('methods other than GET and HEAD: 405 with Allow', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH', 'POST']) {
      const res = await app.request(`/c/${site.slug}/index.html`, {
        method,
        cookie: cast.cookie.viewer,
        body: method === 'DELETE' ? undefined : 'x',
      });
      expect({ method, status: res.status }).toEqual({ method, status: 405 });
      expect(res.headers.get('allow')).toBe('GET, HEAD');
    }
  });

  test('HEAD: the GET headers without a body', async () => {
    const res = await app.request(`/c/${site.slug}/about.html`, { method: 'HEAD', cookie: cast.cookie.viewer });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]{64}"$/);
    expect(res.headers.get('content-length')).toBe('14');
    expect(await res.text()).toBe('');
  });
});

describe('content types and headers', () => {
  test('the stored type is served, with nosniff and the framing headers', async () => {
    const files = {
      'index.html': '<h1>x</h1>',
      's.css': 'body{}',
      'a.js': 'let a;',
      'd.json': '{}',
      'i.svg': '<svg/>',
      'p.png': PNG,
      'm.wasm': new Uint8Array([0, 97, 115, 109]),
      'x.php': '<?php echo 1;',
      README: 'no extension',
    };
    const canvas = await published(cast, files);
    const expected: Record<string, string> = {
      'index.html': 'text/html; charset=utf-8',
      's.css': 'text/css; charset=utf-8',
      'a.js': 'text/javascript; charset=utf-8',
      'd.json': 'application/json; charset=utf-8',
      'i.svg': 'image/svg+xml; charset=utf-8', // the type the deploy path stores (the old fixture's own table had no charset)
      'p.png': 'image/png',
      'm.wasm': 'application/wasm',
      'x.php': 'text/plain; charset=utf-8',
      README: 'text/plain; charset=utf-8',
    };
    for (const [path, type] of Object.entries(expected)) {
      const res = await get(`/c/${canvas.slug}/${path}`);
      expect({ path, status: res.status, type: res.headers.get('content-type') }).toEqual({ path, status: 200, type });
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
      expect(res.headers.get('cross-origin-opener-policy')).toBe('same-origin');
      expect(res.headers.get('content-security-policy')).toBe("frame-ancestors 'self'");
      expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    }
    // Answered again from memory (no promise on the way): the wrapper leaves the file's own nosniff alone, and still adds the request id.
    const ids = new Set<string>();
    for (const path of ['a.js', 'a.js', 'index.html']) {
      const res = await get(`/c/${canvas.slug}/${path}`);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-z]{20}$/);
      ids.add(res.headers.get('x-request-id')!);
    }
    // The file's ready header set carries the id into each answer: every answer its own request's, never the last one's.
    expect(ids.size).toBe(3);
    // What that relies on: Bun copies a Response's init headers when it is made (a later set on the set never reaches it).
    const ready = new Headers({ 'x-request-id': 'made-with' });
    const made = new Response('x', { headers: ready });
    ready.set('x-request-id', 'set-after');
    expect(made.headers.get('x-request-id')).toBe('made-with');
    for (const id of ['first-id', 'second-id']) {
      const res = await get(`/c/${canvas.slug}/a.js`, { 'x-request-id': id });
      expect(res.headers.get('x-request-id')).toBe(id);
    }
    const head = await app.request(`/c/${canvas.slug}/a.js`, {
      method: 'HEAD',
      cookie: cast.cookie.viewer,
      headers: { 'x-request-id': 'head-id' },
    });
    expect(head.headers.get('x-request-id')).toBe('head-id');
    expect(head.headers.get('x-content-type-options')).toBe('nosniff');
  });

  test('Cache-Control: private for content behind sign-in, public for an open Public link canvas', async () => {
    const canvas = await published(cast);
    expect((await get(`/c/${canvas.slug}/`)).headers.get('cache-control')).toBe('private, no-cache');
    await cast.settings({ accessMode: 'public_link' }, canvas);
    expect((await get(`/c/${canvas.slug}/`, {}, '')).headers.get('cache-control')).toBe('public, no-cache');
    expect((await get(`/c/${canvas.slug}/`)).headers.get('cache-control')).toBe('public, no-cache');
  });

  test("the dashboard's own page refuses to be framed", async () => {
    const res = await app.request('/');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });
});

describe('validators and ranges', () => {
  let canvas: WorldCanvas;
  const BODY = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const hash = sha256Hex(BODY);
  beforeAll(async () => {
    canvas = await published(cast, { 'index.html': 'i', 'alpha.txt': BODY });
  });
  const url = () => `/c/${canvas.slug}/alpha.txt`;

  test('ETag is the quoted sha256; If-None-Match → 304 (strong, weak, lists, *)', async () => {
    const res = await get(url());
    expect(res.headers.get('etag')).toBe(`"${hash}"`);
    for (const inm of [`"${hash}"`, `W/"${hash}"`, `"other", "${hash}"`, '*', `"${hash}-br"`]) {
      const r = await get(url(), { 'if-none-match': inm });
      expect({ inm, status: r.status }).toEqual({ inm, status: 304 });
      expect(await r.text()).toBe('');
      expect(r.headers.get('cache-control')).toBe('private, no-cache');
    }
    expect((await get(url(), { 'if-none-match': '"other"' })).status).toBe(200);
  });

  test('a 304 still needs access', async () => {
    const r = await get(url(), { 'if-none-match': `"${hash}"` }, cast.cookie.stranger);
    expect(r.status).toBe(404);
  });

  test('Range: 206 for one range, 416 when unsatisfiable, full 200 for several or a stale If-Range', async () => {
    const cases: Array<[string, number, string | null, string]> = [
      ['bytes=0-9', 206, 'bytes 0-9/36', 'abcdefghij'],
      ['bytes=30-', 206, 'bytes 30-35/36', '456789'],
      ['bytes=-4', 206, 'bytes 32-35/36', '6789'],
      ['bytes=10-1000', 206, 'bytes 10-35/36', BODY.slice(10)],
      ['bytes=36-', 416, 'bytes */36', ''],
      ['bytes=-0', 416, 'bytes */36', ''],
      ['bytes=0-1,4-5', 200, null, BODY],
      ['bytes=5-2', 200, null, BODY],
      ['items=0-1', 200, null, BODY],
    ];
    for (const [range, status, contentRange, text] of cases) {
      const r = await get(url(), { range, 'accept-encoding': 'br, gzip' });
      expect({ range, status: r.status, cr: r.headers.get('content-range') }).toEqual({ range, status, cr: contentRange });
      expect(await r.text()).toBe(text);
      expect(r.headers.get('content-encoding')).toBeNull();
    }
    expect((await get(url(), { range: 'bytes=0-1', 'if-range': `"${hash}"` })).status).toBe(206);
    expect((await get(url(), { range: 'bytes=0-1', 'if-range': '"stale"' })).status).toBe(200);
  });
});

describe('compression', () => {
  // Inspects node A's compressed copies (its data directory); on the cluster each node makes its own, and a request may go to B.
  test.skipIf(ON_CLUSTER)('gzip and brotli round-trip to the original bytes; each copy is made once and reused', async () => {
    const canvas = await published(cast, { 'index.html': 'i', 'app.js': JS });
    const hash = sha256Hex(JS);
    const server = app.features.pages;
    const path = `/c/${canvas.slug}/app.js`;

    const br = await get(path, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(br.headers.get('vary')).toBe('Accept-Encoding');
    expect(br.headers.get('etag')).toBe(`"${hash}-br"`);
    const brBytes = new Uint8Array(await br.arrayBuffer());
    expect(brBytes.byteLength).toBeLessThan(JS.length / 3);
    expect(brotliDecompressSync(brBytes).toString()).toBe(JS);

    const gz = await get(path, { 'accept-encoding': 'gzip' });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(new Uint8Array(await gz.arrayBuffer())).toString()).toBe(JS);

    const brFile = server.compressed.pathOf(hash, 'br');
    const gzFile = server.compressed.pathOf(hash, 'gzip');
    expect(brFile.startsWith(`${app.dataDir}/blobs-compressed/`)).toBe(true);
    expect(existsSync(brFile) && existsSync(gzFile)).toBe(true);
    const made = statSync(brFile).mtimeMs;
    const inode = statSync(brFile).ino;
    // Forget the in-memory knowledge too: the file on disk is found, not remade.
    server.compressed.reset();
    for (let i = 0; i < 3; i++) expect((await get(path, { 'accept-encoding': 'br' })).headers.get('content-encoding')).toBe('br');
    expect(statSync(brFile).mtimeMs).toBe(made);
    expect(statSync(brFile).ino).toBe(inode);

    // 304 for the compressed representation too.
    expect((await get(path, { 'accept-encoding': 'br', 'if-none-match': `"${hash}-br"` })).status).toBe(304);
  });

  // Node A's compressed copies and its own blob deletion (see above).
  test.skipIf(ON_CLUSTER)('a collected blob deployed again serves compressed once more (the store forgets the removed copy)', async () => {
    const canvas = await published(cast, { 'index.html': 'i', 'app.js': JS });
    const hash = sha256Hex(JS);
    const path = `/c/${canvas.slug}/app.js`;
    expect((await get(path, { 'accept-encoding': 'br' })).headers.get('content-encoding')).toBe('br');
    const brFile = app.features.pages.compressed.pathOf(hash, 'br');
    expect(existsSync(brFile)).toBe(true);
    // Garbage collection removes the blob and its copies; then the same bytes arrive again.
    app.ctx.blobs.delete(hash);
    expect(existsSync(brFile)).toBe(false);
    await app.ctx.blobs.putBytes(new TextEncoder().encode(JS));
    const again = await get(path, { 'accept-encoding': 'br' });
    expect(again.status).toBe(200);
    expect(again.headers.get('content-encoding')).toBe('br');
    expect(brotliDecompressSync(new Uint8Array(await again.arrayBuffer())).toString()).toBe(JS);
    expect(existsSync(brFile)).toBe(true);
  });

  test('identity when the client does not ask, refuses with q=0, for small files and for already-compressed types', async () => {
    const canvas = await published(cast, { 'index.html': 'i', 'app.js': JS, 'tiny.js': 'let a = 1;', 'p.png': PNG });
    const path = `/c/${canvas.slug}/app.js`;
    expect((await get(path)).headers.get('content-encoding')).toBeNull();
    expect((await get(path, { 'accept-encoding': 'identity' })).headers.get('content-encoding')).toBeNull();
    expect((await get(path, { 'accept-encoding': 'br;q=0, gzip' })).headers.get('content-encoding')).toBe('gzip');
    expect((await get(path, { 'accept-encoding': '*;q=0' })).headers.get('content-encoding')).toBeNull();
    const identity = await get(path);
    expect(identity.headers.get('etag')).toBe(`"${sha256Hex(JS)}"`);
    expect(await identity.text()).toBe(JS);
    const tiny = await get(`/c/${canvas.slug}/tiny.js`, { 'accept-encoding': 'br' });
    expect(tiny.headers.get('content-encoding')).toBeNull();
    expect(tiny.headers.get('vary')).toBeNull();
    const png = await get(`/c/${canvas.slug}/p.png`, { 'accept-encoding': 'br' });
    expect(png.headers.get('content-encoding')).toBeNull();
  });

  // Waits on node A's background compression; on the cluster the next request may go to node B, which makes its own.
  test.skipIf(ON_CLUSTER)('a big file is served as is while its compressed copy is made in the background', async () => {
    const big = JS.repeat(Math.ceil((1.2 * 1024 * 1024) / JS.length));
    const canvas = await published(cast, { 'index.html': 'i', 'big.js': big });
    const path = `/c/${canvas.slug}/big.js`;
    const first = await get(path, { 'accept-encoding': 'gzip' });
    expect(first.headers.get('content-encoding')).toBeNull();
    expect((await first.text()).length).toBe(big.length);
    // Awaited while still under way (it may be done already); had it not been started, the next answer would be identity.
    await app.features.pages.compressed.inProgress(sha256Hex(big), 'gzip');
    const encoded = await get(path, { 'accept-encoding': 'gzip' });
    expect(encoded.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(new Uint8Array(await encoded.arrayBuffer())).toString()).toBe(big);
  });

  test('a custom 404.html is compressed like any page', async () => {
    const big404 = `<h1>missing</h1>${'<p>filler text for compression</p>'.repeat(100)}`;
    const canvas = await published(cast, { 'index.html': 'i', '404.html': big404 });
    const res = await get(`/c/${canvas.slug}/nope`, { 'accept-encoding': 'gzip' });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(new Uint8Array(await res.arrayBuffer())).toString()).toBe(big404);
  });
});

describe('live version changes', () => {
  test('a deploy shows at once (event), and so does a pointer moved without one', async () => {
    const canvas = await published(cast, { 'index.html': 'v1' });
    expect(await (await get(`/c/${canvas.slug}/`)).text()).toBe('v1');
    await cast.deploy(canvas, { 'index.html': 'v2' });
    expect(await (await get(`/c/${canvas.slug}/`)).text()).toBe('v2');
    // A third version, with the pointer flipped behind the cache's back.
    const v2 = (await app.ctx.canvases.byId(canvas.id))!.currentVersionId!;
    const v3 = (await cast.deploy(canvas, { 'index.html': 'v3' })).versionId;
    // Straight to the store on purpose: a rollback through the API would emit the event this test does without.
    await app.ctx.canvases.update(canvas.id, { current_version_id: v2 }, app.ctx.now());
    expect(await (await get(`/c/${canvas.slug}/`)).text()).toBe('v2');
    await app.ctx.canvases.update(canvas.id, { current_version_id: v3 }, app.ctx.now());
    expect(await (await get(`/c/${canvas.slug}/`)).text()).toBe('v3');
  });
});

describe('subdomain mode', () => {
  let sub: TestApp;
  let people: World;
  let canvas: WorldCanvas;
  const HOST = 'easel.test:8080';
  const at = (slug: string, path: string, cookie = '', headers: Record<string, string> = {}, method = 'GET', body?: string) =>
    sub.request(path, { method, cookie, body, headers: { host: `${slug}.${HOST}`, ...headers } });

  beforeAll(async () => {
    sub = await startTestApp({ env: { EASEL_URL_MODE: 'subdomain', EASEL_BASE_URL: `http://${HOST}` } });
    people = await new World().attach(sub);
    canvas = await published(people, { 'index.html': '<h1>sub</h1>', 'docs/index.html': 'docs' });
  });
  afterAll(() => sub.close());
  /** `who`'s own session on the canvas host of `slug` (sign-in handoff). */
  const onHost = (slug: string, who: 'viewer' | 'stranger' = 'viewer') => canvasHostCookie(sub, HOST, slug, people.cookie[who]);

  test('canvases answer on {slug}.{canvas host}; the URL the API gives is that host', async () => {
    expect(canvasUrl(sub.ctx.config, canvas.slug)).toBe(`http://${canvas.slug}.${HOST}/`);
    const viewer = await onHost(canvas.slug);
    const res = await at(canvas.slug, '/', viewer);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('<h1>sub</h1>');
    expect(res.headers.get('content-security-policy')).toBe(`frame-ancestors 'self' http://${HOST}`);
    expect(res.headers.get('x-frame-options')).toBeNull();
    expect((await at(canvas.slug, '/docs', viewer)).headers.get('location')).toBe('/docs/');
    expect(sub.logs.some((l) => l.msg === 'request' && l.path === '/docs' && l.status === 301)).toBe(true);
  });

  test('the base host keeps the dashboard; its /c/{slug}/ links move to the canvas host', async () => {
    const dash = await sub.request('/', { headers: { host: HOST } });
    expect(dash.status).toBe(200);
    expect(dash.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const old = await sub.request(`/c/${canvas.slug}/docs/?a=1`, { headers: { host: HOST } });
    expect(old.status).toBe(301);
    expect(old.headers.get('location')).toBe(`http://${canvas.slug}.${HOST}/docs/?a=1`);
  });

  test('anonymous visitors go to sign-in on the base host through the handoff, and come back to the canvas host', async () => {
    const res = await at(canvas.slug, '/docs/?x=1');
    expect(res.status).toBe(302);
    const toBase = new URL(res.headers.get('location')!);
    expect(toBase.origin + toBase.pathname).toBe(`http://${HOST}/auth/handoff`);
    expect(toBase.searchParams.get('canvas')).toBe(canvas.slug);
    expect(toBase.searchParams.get('next')).toBe('/docs/?x=1');
    expect(res.headers.get('set-cookie')).toMatch(/^easel_handoff=[0-9A-Za-z]{32}; Path=\/; Max-Age=900; HttpOnly; SameSite=Lax$/);
    // Not signed in on the base host either: sign in first, then back to the handoff.
    const login = await sub.request(toBase.pathname + toBase.search, { headers: { host: HOST } });
    expect(login.status).toBe(302);
    expect(login.headers.get('location')).toBe(`/auth/login?returnTo=${encodeURIComponent(toBase.pathname + toBase.search)}`);
    // Signed in: the page, on the path asked for.
    const { state, exchange } = await beginHandoff(sub, HOST, canvas.slug, people.cookie.viewer, '/docs/?x=1');
    const done = await at(canvas.slug, exchange, state);
    expect([done.status, done.headers.get('location')]).toEqual([303, '/docs/?x=1']);
    expect(done.headers.get('referrer-policy')).toBe('no-referrer');
    const session = setCookieValue(done, 'easel_session')!;
    expect(done.headers.getSetCookie().find((c) => c.startsWith('easel_session='))).not.toContain('Domain=');
    expect((await at(canvas.slug, '/docs/?x=1', session)).status).toBe(200);
    // No canvas, or no access: the same 404 page.
    const nowhere = await beginHandoff(sub, HOST, 'no-such-canvas', people.cookie.viewer);
    const missing = await at('no-such-canvas', nowhere.exchange, nowhere.state);
    expect([missing.status, pageCode(await missing.text())]).toEqual([404, 'NOT_FOUND']);
    const stranger = await at(canvas.slug, '/', await onHost(canvas.slug, 'stranger'));
    expect([stranger.status, pageCode(await stranger.text())]).toEqual([404, 'NOT_FOUND']);
  });

  test('the gate lives at /__easel/gate and its pass stays on the canvas host', async () => {
    await people.settings({ password: 'pw' }, canvas);
    const viewer = await onHost(canvas.slug);
    const form = await at(canvas.slug, '/', viewer);
    expect(form.status).toBe(403);
    expect(await form.text()).toContain('action="/__easel/gate"');
    const res = await at(
      canvas.slug,
      '/__easel/gate',
      viewer,
      { 'content-type': 'application/x-www-form-urlencoded' },
      'POST',
      'password=pw',
    );
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/');
    expect(res.headers.get('set-cookie')).not.toContain('Domain=');
    const pass = res.headers.get('set-cookie')!.split(';')[0]!;
    expect((await at(canvas.slug, '/', `${viewer}; ${pass}`)).status).toBe(200);
    // The runtime API on the canvas host takes the same pass.
    expect((await at(canvas.slug, `/v1/c/${canvas.slug}/me`, viewer)).status).toBe(403);
    expect((await at(canvas.slug, `/v1/c/${canvas.slug}/me`, `${viewer}; ${pass}`)).status).toBe(200);
    await people.settings({ password: null }, canvas);
  });

  test('anonymous visitors of a Public link canvas get the page and, from it, the SDK', async () => {
    const open = await people.newCanvas({ files: { 'index.html': '<h1>hello</h1>' }, settings: { accessMode: 'public_link' } });
    const res = await at(open.slug, '/');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, no-cache');
    const { anonymousSdkVisitor } = await import('../src/serve/sdk-admission.ts');
    const admit = anonymousSdkVisitor(sub.ctx, sub.features.access);
    const sdk = (referer: string) => admit(new Request(`http://${HOST}/sdk/v1.js`, { headers: { referer } }));
    expect(await sdk(`http://${open.slug}.${HOST}/`)).toBe(true);
    expect(await sdk(`http://${canvas.slug}.${HOST}/`)).toBe(false);
    expect(await sdk(`http://${HOST}/c/${open.slug}/`)).toBe(false);
  });
});

describe('over a real socket', () => {
  // Loses the blob from node A's disk and the bucket; on the cluster node B may still hold a copy, and compression is per node.
  test.skipIf(ON_CLUSTER)('compression, HEAD and ranges survive Bun’s server; a blob lost from disk is a plain 500', async () => {
    const live = await startTestApp({ listen: true });
    try {
      const people = await new World().attach(live);
      const canvas = await published(people, { 'index.html': 'i', 'app.js': JS, 'gone.txt': 'soon gone' });
      const url = `${live.base}/c/${canvas.slug}/app.js`;
      const headers = { cookie: people.cookie.viewer };
      const br = await fetch(url, { headers: { ...headers, 'accept-encoding': 'br' } });
      expect(br.headers.get('content-encoding')).toBe('br');
      expect(await br.text()).toBe(JS); // fetch decodes it
      const head = await fetch(url, { method: 'HEAD', headers: { ...headers, 'accept-encoding': 'identity' } });
      expect(head.headers.get('content-length')).toBe(String(JS.length));
      expect(await head.text()).toBe('');
      const range = await fetch(url, { headers: { ...headers, range: 'bytes=3-7' } });
      expect(range.status).toBe(206);
      expect(await range.text()).toBe(JS.slice(3, 8));

      // Lost everywhere: the local copy, and the bucket's object when blobs are on S3 (`bun run test:s3`).
      const { rmSync } = await import('node:fs');
      rmSync(live.ctx.blobs.pathOf(sha256Hex('soon gone')));
      await live.ctx.blobs.remote?.delete(sha256Hex('soon gone'));
      const lost = await fetch(`${live.base}/c/${canvas.slug}/gone.txt`, { headers });
      expect(lost.status).toBe(500);
      const text = await lost.text();
      expect(pageCode(text)).toBe('INTERNAL');
      expect(text).not.toContain(live.dataDir);
    } finally {
      await live.close();
    }
  });
});

describe('a name in either Unicode form (macOS names "é" as "e" + U+0301, links say "é")', () => {
  const composed = 'menu/café.html';
  const decomposed = 'menu/cafe\u0301.html';
  const url = (c: WorldCanvas, path: string) => `/c/${c.slug}/${path.split('/').map(encodeURIComponent).join('/')}`;
  const keyed = (c: WorldCanvas, path: string) => app.request(path, { headers: { authorization: `Bearer ${c.apiKey}` } });
  /** The canvas as the deploy fixtures take it. */
  const deployable = (c: WorldCanvas) => ({
    id: c.id,
    slug: c.slug,
    key: c.apiKey,
    ownerId: cast.ids.owner,
    ownerCookie: cast.cookie.owner,
  });

  test('a file deployed decomposed answers both spellings, is listed composed, and a link in either form is no missing reference', async () => {
    const site = await cast.newCanvas();
    const result = await cast.deploy(site, {
      'index.html': `<a href="${encodeURI(composed)}">composed</a> <a href="${decomposed}">decomposed</a>`,
      [decomposed]: 'the menu',
    });
    expect(result.warnings).toEqual([]);
    for (const path of [composed, decomposed]) {
      const res = await get(url(site, path));
      expect({ path, status: res.status, body: await res.text() }).toEqual({ path, status: 200, body: 'the menu' });
    }
    const listing = await (await keyed(site, `/v1/canvases/${site.id}/files`)).json();
    expect(listing.files.map((f: { path: string }) => f.path)).toEqual(['index.html', composed]);
    for (const path of [composed, decomposed]) {
      const back = await keyed(site, `/v1/canvases/${site.id}/files?path=${encodeURIComponent(path)}`);
      expect({ path, status: back.status, body: await back.text() }).toEqual({ path, status: 200, body: 'the menu' });
    }
  });

  test('the staged upload stores the composed form too', async () => {
    const site = await cast.newCanvas();
    const staged = await stagedDeploy(app, deployable(site), { 'index.html': 'x', [decomposed]: 'staged menu' });
    expect(staged.status).toBe(200);
    const listing = await (await keyed(site, `/v1/canvases/${site.id}/files`)).json();
    expect(listing.files.map((f: { path: string }) => f.path)).toEqual(['index.html', composed]);
    expect(await (await get(url(site, composed))).text()).toBe('staged menu');
  });

  test('two names that differ only in form are one path: a ZIP holding both is refused, as is such a manifest', async () => {
    const site = await cast.newCanvas();
    const res = await deploy(app, deployable(site), zipOf({ 'index.html': 'x', [composed]: 'a', [decomposed]: 'b' }));
    expect({ status: res.status, code: res.body.code, path: res.body.path }).toEqual({ status: 400, code: 'INVALID_ZIP', path: composed });
    const staged = await stagedDeploy(app, deployable(site), { 'index.html': 'x', [composed]: 'a', [decomposed]: 'b' });
    expect({ status: staged.status, code: staged.body.code }).toEqual({ status: 400, code: 'INVALID_MANIFEST' });
  });
});
