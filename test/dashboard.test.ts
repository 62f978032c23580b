// passes: embedded, cluster
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Elysia } from 'elysia';
import { dashboardRoutes, type DashboardRouteOptions } from '../src/dashboard/routes.ts';
import { UiBundles } from '../src/dashboard/ui-bundle.ts';
import { body, startTestApp, type TestApp, TEST_BACKENDS } from './harness.ts';

describe('dashboard shell', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  test('GET / serves the page with a strict content security policy, to anyone', async () => {
    const res = await app.request('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await res.text();
    expect(html).toContain('<script src="/assets/dashboard.js" defer></script>');
    expect(html).not.toMatch(/<script>(?!<\/script>)/); // no inline script (the CSP forbids it)
  });

  test('every file the page references is served with its type', async () => {
    const html = await (await app.request('/')).text();
    const refs = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(refs.sort()).toEqual(['/assets/dashboard.js', '/assets/dialogs.css', '/assets/icon.svg', '/assets/style.css']);
    const types: Record<string, string> = {
      js: 'text/javascript; charset=utf-8',
      css: 'text/css; charset=utf-8',
      svg: 'image/svg+xml; charset=utf-8',
    };
    for (const ref of refs) {
      const res = await app.request(ref);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(types[ref.split('.').pop()!]!);
    }
  });

  test('/favicon.ico, where a browser looks on a page that links no icon (sign-in, refusals), is the same icon: no 404 in every console', async () => {
    const res = await app.request('/favicon.ico');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(await res.text()).toBe(await (await app.request('/assets/icon.svg')).text());
  });

  test('the editor bundle (TypeScript and CodeMirror) is built on first request, then served from memory with its ETag', async () => {
    const res = await app.request('/assets/editor.js');
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
    expect(await res.text()).toContain('easelEditor');
    const again = await app.request('/assets/editor.js', { headers: { 'if-none-match': res.headers.get('etag')! } });
    expect(again.status).toBe(304);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  test('warm: the page script is built when the routes are made (the server starts so), before any request; without it, on the first request', async () => {
    const built: string[] = [];
    class CountingBundles extends UiBundles {
      override get(name: string) {
        built.push(name);
        return super.get(name);
      }
    }
    const mount = (options: DashboardRouteOptions) => {
      const alt = new Elysia().use(dashboardRoutes(app.ctx, options));
      return (path: string) => alt.handle(new Request(`http://localhost${path}`));
    };
    const warm = mount({ bundles: new CountingBundles(), warm: true });
    expect(built).toEqual(['dashboard.js']);
    expect((await warm('/assets/dashboard.js')).status).toBe(200);
    built.length = 0;
    const lazy = mount({ bundles: new CountingBundles() });
    expect(built).toEqual([]);
    expect((await lazy('/assets/dashboard.js')).status).toBe(200);
    expect(built).toEqual(['dashboard.js']);
    // The server (src/server/listener.ts) asks for it; in-process apps like this suite's do not.
    expect(readFileSync(join(import.meta.dir, '../src/server/listener.ts'), 'utf8')).toMatch(/createApp\(ctx, \{[^}]*warmDashboard: true/);
  });

  test('unknown or traversing asset paths answer the JSON 404', async () => {
    for (const path of ['/assets/missing.js', '/assets/../package.json', '/assets/%2e%2e/package.json', '/assets/', '/index.html']) {
      const res = await app.request(path);
      expect(res.status).toBe(404);
      expect((await body(res)).code).toBe('NOT_FOUND');
    }
  });

  test('the dashboard does not shadow the other prefixes', async () => {
    expect(await body(await app.request('/healthz'))).toEqual({
      ok: true,
      version: app.ctx.version,
      backends: TEST_BACKENDS,
    });
    for (const path of ['/api/nothing-here', '/v1/nothing-here', '/c/nothing-here/x', '/sdk/nothing.js', '/auth/nothing']) {
      const res = await app.request(path);
      expect(res.status).not.toBe(200);
      expect(await res.text()).not.toContain('/assets/dashboard.js');
    }
    expect(await (await app.request('/auth/login')).text()).toContain('<form');
  });

  test('the dashboard is TypeScript under src/dashboard/ui/ that writes server text only as text (no innerHTML, insertAdjacentHTML or document.write)', () => {
    expect(readdirSync(join(import.meta.dir, '../public')).filter((f) => /\.(js|mjs|ts)$/.test(f))).toEqual([]);
    const dir = join(import.meta.dir, '../src/dashboard/ui');
    const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
    expect(files).toContain('app.ts');
    for (const file of files) {
      const script = readFileSync(join(dir, file), 'utf8');
      for (const sink of ['innerHTML', 'outerHTML', 'insertAdjacentHTML', 'document.write'])
        expect({ file, sink, found: script.includes(sink) }).toEqual({ file, sink, found: false });
    }
    const source = readFileSync(join(dir, 'app.ts'), 'utf8');
    for (const path of ['/api/me', '/api/canvases', '/auth/logout', '/auth/login?returnTo=']) expect(source).toContain(path);
  });
});
