// passes: embedded, cluster
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { safeReturnTo } from '../src/auth/login-page.ts';
import { startTestApp, type TestApp } from './harness.ts';

const subdomain = { urlMode: 'subdomain' as const, baseUrl: 'https://easel.example.com', canvasHost: 'canvas.example.com' };
const pathMode = { ...subdomain, urlMode: 'path' as const };

describe('where sign-in returns to', () => {
  test.each([
    ['/c/demo/page?x=1', pathMode, '/c/demo/page?x=1'],
    ['//evil.example/', pathMode, '/'],
    ['/\\evil.example', pathMode, '/'],
    ['https://evil.example/', pathMode, '/'],
    ['https://demo.canvas.example.com/', pathMode, '/'],
    ['https://demo.canvas.example.com/a/b?c=d', subdomain, 'https://demo.canvas.example.com/a/b?c=d'],
    ['http://demo.canvas.example.com/', subdomain, '/'],
    ['https://user:pw@demo.canvas.example.com/', subdomain, '/'],
    ['https://a.b.canvas.example.com/', subdomain, '/'],
    ['https://canvas.example.com.evil.example/', subdomain, '/'],
    ['https://evilcanvas.example.com/', subdomain, '/'],
    ['javascript:alert(1)', subdomain, '/'],
    ['', subdomain, '/'],
  ])('%s (%o) → %s', (value, config, expected) => {
    expect(safeReturnTo(value, config)).toBe(expected);
  });

  describe('in subdomain mode, end to end', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startTestApp({
        env: {
          EASEL_URL_MODE: 'subdomain',
          EASEL_BASE_URL: 'http://easel.test:8080',
          EASEL_CANVAS_HOST: 'apps.easel.test:8080',
        },
      });
    });
    afterAll(() => app.close());

    test("the login form keeps a canvas page's absolute URL and drops another site's", async () => {
      const kept = await (await app.request(`/auth/login?returnTo=${encodeURIComponent('http://demo.apps.easel.test:8080/page')}`)).text();
      expect(kept).toContain('"http://demo.apps.easel.test:8080/page"');
      const dropped = await (await app.request(`/auth/login?returnTo=${encodeURIComponent('http://evil.test/page')}`)).text();
      expect(dropped).not.toContain('evil.test');
    });
  });
});
