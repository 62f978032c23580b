// passes: embedded, cluster
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Elysia } from 'elysia';
import { runInNewContext } from 'node:vm';
import { VERSION } from '../src/context.ts';
import { renderError } from '../src/http/on-error.ts';
import { SdkBundle } from '../src/serve/sdk-bundle.ts';
import { sdkRoutes, type SdkRouteOptions } from '../src/serve/sdk-route.ts';
import { body, startTestApp, type TestApp } from './harness.ts';
import { makeWorld } from './world.ts';

describe('GET /sdk/v1.js and /sdk/v1.d.ts', () => {
  let app: TestApp;
  let cookie: string;
  beforeAll(async () => {
    app = await startTestApp({ env: { EASEL_RATELIMIT_MANAGEMENT_PER_MIN: '3', EASEL_RATELIMIT_CANVAS_API_PER_MIN: '3' } });
    cookie = await app.signIn('dev@example.com');
  });
  afterAll(() => app.close());

  /** The same routes with another bundle or hook, on the same context (real code, other inputs). */
  const mount = (options: SdkRouteOptions) => {
    const alt = new Elysia()
      .onError(({ request, error, code }) => renderError(app.ctx, request, error, code))
      .use(sdkRoutes(app.ctx, options));
    return (path: string, headers: Record<string, string> = {}) => alt.handle(new Request(`http://localhost${path}`, { headers }));
  };

  test('without a session the bundle answers 401 {error: "unauthorized"} (the auth gateway); the types are served to anyone', async () => {
    const res = await app.request('/sdk/v1.js');
    expect(res.status).toBe(401);
    expect(await body(res)).toEqual({ error: 'unauthorized' });
    expect(res.headers.get('cache-control')).toBeNull();
    const types = await app.request('/sdk/v1.d.ts');
    expect(types.status).toBe(200);
    expect(await types.text()).toContain('export interface Easel');
  });

  test('with a session: the bundle as application/javascript, cacheable for an hour, defining the `easel` global', async () => {
    const res = await app.request('/sdk/v1.js', { cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const source = await res.text();
    expect(source).not.toContain('export ');
    const window: Record<string, any> = {};
    window.globalThis = window;
    runInNewContext(source, window);
    expect(window.easel.version).toBe(VERSION);
  });

  test('a matching If-None-Match answers 304 without a body', async () => {
    const first = await app.request('/sdk/v1.js', { cookie });
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const again = await app.request('/sdk/v1.js', { cookie, headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('cache-control')).toBe('public, max-age=3600');
  });

  test('the types as application/typescript with the same caching', async () => {
    const res = await app.request('/sdk/v1.d.ts', { cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/typescript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(await res.text()).toContain('export interface Easel');
  });

  test('not rate-limited: far more requests than any class allows all succeed', async () => {
    for (let i = 0; i < 12; i++) expect((await app.request('/sdk/v1.js', { cookie })).status).toBe(200);
  });

  test('503 text/plain when the bundle cannot be built, logged once, still behind the gateway', async () => {
    const errors: string[] = [];
    const bundle = new SdkBundle({
      entry: '/nonexistent/sdk/index.ts',
      types: '/nonexistent/sdk/v1.d.ts',
      onError: (what) => errors.push(what),
    });
    const get = mount({ bundle });
    expect((await get('/sdk/v1.js')).status).toBe(401);
    for (const path of ['/sdk/v1.js', '/sdk/v1.js', '/sdk/v1.d.ts']) {
      const res = await get(path, { cookie });
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.text()).toContain('has not been built');
    }
    expect(errors).toEqual(['bundle', 'types']);
  });

  test('warm: the bundle is built when the routes are made, before any request; without it, on the first request', async () => {
    let builds = 0;
    class CountingBundle extends SdkBundle {
      override js() {
        builds++;
        return super.js();
      }
    }
    mount({ bundle: new CountingBundle(), warm: true });
    expect(builds).toBe(1);
    const lazy = mount({ bundle: new CountingBundle() });
    expect(builds).toBe(1);
    await lazy('/sdk/v1.js', { cookie });
    expect(builds).toBe(2);
  });

  test('admitAnonymousVisitor is the one way in without a session', async () => {
    const get = mount({ admitAnonymousVisitor: async (request) => request.headers.get('referer') === 'http://localhost/c/open/' });
    expect((await get('/sdk/v1.js', { referer: 'http://localhost/c/open/' })).status).toBe(200);
    expect((await get('/sdk/v1.js', { referer: 'http://localhost/c/closed/' })).status).toBe(401);
  });

  test('an anonymous visitor of an open Public link canvas loads the SDK from its page; nobody else without a session', async () => {
    // Its own world: the suite's app keeps the management class at 3 a minute.
    const w = await makeWorld();
    try {
      const page = { 'index.html': '<h1>hello</h1>' };
      const open = await w.newCanvas({ files: page, settings: { accessMode: 'public_link' } });
      const closed = await w.newCanvas({ files: page });
      const from = (slug: string) =>
        w.app.request('/sdk/v1.js', { headers: { referer: `${w.app.ctx.config.baseUrl}/c/${slug}/index.html` } });
      const admitted = await from(open.slug);
      expect(admitted.status).toBe(200);
      expect(await admitted.text()).toContain('globalThis.easel=');
      expect((await from(closed.slug)).status).toBe(401);
      expect((await from('no-such-canvas')).status).toBe(401);
      expect((await w.app.request('/sdk/v1.js', { headers: { referer: `http://elsewhere.example/c/${open.slug}/` } })).status).toBe(401);
    } finally {
      await w.close();
    }
  });
});
