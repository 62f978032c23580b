// passes: embedded, cluster
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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
    expect(html).toContain('<script src="/assets/app.js" defer></script>');
    expect(html).not.toMatch(/<script>(?!<\/script>)/); // no inline script (the CSP forbids it)
  });

  test('every file the page references is served with its type', async () => {
    const html = await (await app.request('/')).text();
    const refs = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(refs.sort()).toEqual([
      '/assets/admin-pickers.js',
      '/assets/admin.js',
      '/assets/app.js',
      '/assets/audit-words.js',
      '/assets/canvas-access.js',
      '/assets/canvas-danger.js',
      '/assets/canvas-data.js',
      '/assets/canvas-owner.js',
      '/assets/canvas-page.js',
      '/assets/canvas-submission-mail.js',
      '/assets/canvas-welcome.js',
      '/assets/data-browser.js',
      '/assets/dialogs.css',
      '/assets/notifications.js',
      '/assets/policy-form.js',
      '/assets/policy-misses.js',
      '/assets/section-bar.js',
      '/assets/status-words.js',
      '/assets/style.css',
      '/assets/tokens.js',
      '/assets/ui.js',
      '/assets/webhooks.js',
    ]);
    const types: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };
    for (const ref of refs) {
      const res = await app.request(ref);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(types[ref.split('.').pop()!]!);
    }
  });

  test('the editor bundle (TypeScript and CodeMirror) is built on first request, then served from memory with its ETag', async () => {
    const res = await app.request('/assets/editor.js');
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
    expect(await res.text()).toContain('easelEditor');
    const again = await app.request('/assets/editor.js', { headers: { 'if-none-match': res.headers.get('etag')! } });
    expect(again.status).toBe(304);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
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
      expect(await res.text()).not.toContain('/assets/app.js');
    }
    expect(await (await app.request('/auth/login')).text()).toContain('<form');
  });

  test('every dashboard script is valid browser script and writes server text only as text (no innerHTML, insertAdjacentHTML or document.write)', () => {
    const scripts = readdirSync(join(import.meta.dir, '../public')).filter((f) => f.endsWith('.js'));
    expect(scripts.sort()).toEqual([
      'admin-pickers.js',
      'admin.js',
      'app.js',
      'audit-words.js',
      'canvas-access.js',
      'canvas-danger.js',
      'canvas-data.js',
      'canvas-owner.js',
      'canvas-page.js',
      'canvas-submission-mail.js',
      'canvas-welcome.js',
      'data-browser.js',
      'notifications.js',
      'policy-form.js',
      'policy-misses.js',
      'section-bar.js',
      'status-words.js',
      'tokens.js',
      'ui.js',
      'webhooks.js',
    ]);
    // The bundled TypeScript (src/dashboard/ui/) is held to the same rule.
    const bundled = readdirSync(join(import.meta.dir, '../src/dashboard/ui')).map((f) => `../src/dashboard/ui/${f}`);
    expect(bundled.sort()).toEqual(['../src/dashboard/ui/editor-colours.ts', '../src/dashboard/ui/editor.ts']);
    for (const file of [...scripts, ...bundled]) {
      const script = readFileSync(join(import.meta.dir, '../public', file), 'utf8');
      expect(() => new Bun.Transpiler({ loader: file.endsWith('.ts') ? 'ts' : 'js' }).transformSync(script)).not.toThrow();
      for (const sink of ['innerHTML', 'outerHTML', 'insertAdjacentHTML', 'document.write'])
        expect({ file, sink, found: script.includes(sink) }).toEqual({ file, sink, found: false });
    }
    const source = readFileSync(join(import.meta.dir, '../public/app.js'), 'utf8');
    for (const path of ['/api/me', '/api/canvases', '/auth/logout', '/auth/login?returnTo=']) expect(source).toContain(path);
  });
});
