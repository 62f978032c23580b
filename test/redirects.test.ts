// passes: embedded, s3, cluster
// Open redirects (issue 23, item 9): after sign-in (`returnTo`) and after the
// password gate (`next`), a browser must land on this instance, never on
// another host. `/%09/evil.example` passed the old prefix checks: the browser
// drops the tab and goes to `//evil.example`.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { safeReturnTo } from '../src/auth/login-page.ts';
import { canvasHostCookies } from './canvas-host-session.ts';
import { startTestApp, type TestApp } from './harness.ts';
import { World, type WorldCanvas } from './world.ts';

/** Decoded values that lead a browser to evil.example when used as a Location or `location.href`. */
const ATTACKS = [
  '//evil.example/',
  '/\t/evil.example',
  '/\r/evil.example',
  '/\n/evil.example',
  '\t//evil.example',
  ' //evil.example',
  '/\\evil.example',
  '\\\\evil.example',
  '/\\/evil.example',
  '/.//evil.example',
  '/%2e//evil.example',
  '/./..//evil.example',
  'http://evil.example/',
  'https:evil.example',
  'HTTP://EVIL.EXAMPLE',
  'javascript:alert(1)',
  'data:text/html,hi',
];

/** Where a browser on `from` goes for this Location. */
const landsOn = (location: string, from: string) => new URL(location, from).origin;

describe('sign-in returns to this instance only', () => {
  const pathMode = { urlMode: 'path' as const, baseUrl: 'http://easel.test:8080', canvasHost: 'easel.test:8080' };
  const subdomain = { urlMode: 'subdomain' as const, baseUrl: 'http://easel.test:8080', canvasHost: 'apps.easel.test:8080' };

  test.each(ATTACKS)('returnTo %j → "/"', (value) => {
    expect(safeReturnTo(value, pathMode)).toBe('/');
    expect(safeReturnTo(value, subdomain)).toBe('/');
  });

  test('paths of this instance are kept, normalized by the URL parser', () => {
    expect(safeReturnTo('/c/demo/page?x=1#top', pathMode)).toBe('/c/demo/page?x=1#top');
    expect(safeReturnTo('http://easel.test:8080/c/demo/', pathMode)).toBe('/c/demo/');
    expect(safeReturnTo('/a b', pathMode)).toBe('/a%20b');
    // Encoded once more, a tab is a harmless path on this host.
    expect(safeReturnTo('/%09/evil.example', pathMode)).toBe('/%09/evil.example');
    expect(safeReturnTo('http://demo.apps.easel.test:8080/page', subdomain)).toBe('http://demo.apps.easel.test:8080/page');
    expect(safeReturnTo('http://demo.apps.easel.test:8080/\t/page', subdomain)).toBe('/');
  });

  describe('end to end: the sign-in page', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startTestApp();
    });
    afterAll(() => app.close());

    const returnTo = async (query: string): Promise<string> => {
      const page = await (await app.request(`/auth/login?${query}`)).text();
      return JSON.parse(/const returnTo = (".*?");/.exec(page)![1]!.replaceAll('\\u003c', '<'));
    };

    test('the query of the report (`returnTo=/%09/host`) and every other spelling go to "/"', async () => {
      expect(await returnTo('returnTo=/%09/evil.example')).toBe('/');
      expect(await returnTo('returnTo=%2F%0D%0A%2Fevil.example')).toBe('/');
      expect(await returnTo('returnTo=/%5Cevil.example')).toBe('/');
      for (const attack of ATTACKS) {
        const target = await returnTo(`returnTo=${encodeURIComponent(attack)}`);
        expect({ attack, target }).toEqual({ attack, target: '/' });
      }
      expect(await returnTo(`returnTo=${encodeURIComponent('/c/demo/x?y=1')}`)).toBe('/c/demo/x?y=1');
    });
  });
});

describe("the password gate's `next` stays on the canvas", () => {
  let sub: TestApp;
  let cast: World;
  let canvas: WorldCanvas;
  let onHost: Record<'owner' | 'viewer', string>;
  const HOST = 'easel.test:8080';

  beforeAll(async () => {
    sub = await startTestApp({ env: { EASEL_URL_MODE: 'subdomain', EASEL_BASE_URL: `http://${HOST}` } });
    cast = await new World().attach(sub);
    canvas = await cast.newCanvas({
      guest: false,
      settings: { password: 'pw' },
      files: { 'index.html': 'home', 'docs/index.html': 'docs' },
    });
    onHost = await canvasHostCookies(sub, HOST, canvas.slug, { owner: cast.cookie.owner, viewer: cast.cookie.viewer });
  });
  afterAll(() => sub.close());

  // The owner needs no password: the gate sends them on at once (no attempt counted), through the same `next`.
  const gate = (next: string, who: 'owner' | 'viewer' = 'owner') =>
    sub.request('/__easel/gate', {
      method: 'POST',
      cookie: onHost[who],
      headers: { host: `${canvas.slug}.${HOST}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ password: 'pw', next }).toString(),
    });

  test('subdomain mode (the canvas root is "/"): every spelling of another host goes back to "/"', async () => {
    const page = `http://${canvas.slug}.${HOST}/`;
    for (const next of ATTACKS) {
      const res = await gate(next);
      expect({ next, status: res.status, location: res.headers.get('location') }).toEqual({ next, status: 303, location: '/' });
      expect(landsOn(res.headers.get('location')!, page)).toBe(new URL(page).origin);
    }
    const kept = await gate('/docs/?x=1');
    expect(kept.headers.get('location')).toBe('/docs/?x=1');
    // A viewer typing the password goes the same way.
    const viewer = await gate('/\t/evil.example', 'viewer');
    expect([viewer.status, viewer.headers.get('location')]).toEqual([303, '/']);
    expect(viewer.headers.get('set-cookie')).toStartWith('__easel_gate=');
  });
});
