// passes: embedded — the router's map, the same on every storage
// app.ts is the whole map: the listing it generates holds every route the
// router has mounted and every dispatcher in front of it, each reachable.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { DISPATCHERS } from '../src/app.ts';
import { body, startTestApp, type TestApp } from './harness.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

/** The router's answer for a path nothing handles. */
const isRouterMiss = async (res: Response) => res.status === 404 && (await body(res.clone())).message === 'no such route';

describe('the route listing', () => {
  test('lists every mounted route once, after the dispatchers, in the order they are tried', () => {
    const listing = app.easel.listing();
    const mounted = app.easel.routes.routes.map((r) => `${r.method} ${r.path}`);
    const listed = listing.filter((r) => r.via === 'router').map((r) => `${r.method} ${r.path}`);
    expect(listed).toEqual(mounted);
    expect(new Set(listed).size).toBe(listed.length);
    expect(listing.slice(0, DISPATCHERS.length).map((r) => r.via)).toEqual(DISPATCHERS.map(() => 'dispatcher'));
  });

  test('no mounted route is shadowed by a dispatcher (it could never be reached)', () => {
    const shadowed = app.easel
      .listing()
      .filter((r) => r.via === 'router')
      .filter((r) => r.path.startsWith('/c/') || (r.path === '/v1/c/:slug/realtime' && ['GET', 'ALL'].includes(r.method)));
    expect(shadowed).toEqual([]);
  });

  test('every listed router route is answered by its own handler, not the router miss', async () => {
    const unreachable: string[] = [];
    for (const r of app.easel.listing().filter((r) => r.via === 'router')) {
      const method = r.method === 'ALL' ? 'GET' : r.method;
      const path = r.path.replace(/:[A-Za-z]+/g, 'x').replace(/\*$/, 'y');
      // The runtime fallback answers "no such route" on purpose, after the pipeline: an anonymous caller gets 401 there.
      const res = await app.request(path, { method, headers: { 'sec-fetch-site': 'same-origin' } });
      if (await isRouterMiss(res)) unreachable.push(`${r.method} ${r.path}`);
    }
    expect(unreachable).toEqual([]);
  });

  test('the dispatchers answer before the router', async () => {
    // Canvas pages: an anonymous visitor is sent to sign in (a router miss would be JSON 404).
    const page = await app.request('/c/some-canvas/');
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toStartWith('/auth/login?returnTo=');
    // The realtime upgrade runs the runtime pipeline first: no session, 401.
    const socket = await app.request('/v1/c/some-canvas/realtime');
    expect(socket.status).toBe(401);
  });

  test('a path in no listing is the router miss', async () => {
    expect(await isRouterMiss(await app.request('/api/no-such-thing'))).toBe(true);
  });
});
