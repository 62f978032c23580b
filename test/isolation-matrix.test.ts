// passes: embedded, cluster
// The isolation matrix (issue 19 item 3), in both URL modes: every runtime
// route this server mounts (taken from its own route listing, so a new route
// joins by itself) and the realtime upgrade, tried by everyone who must not
// reach canvas B: a page of canvas A calling B with a signed-in member of B
// (Origin, Referer and Sec-Fetch-Site as a browser sends them from A), A's
// owner who is nobody on B, a guest of A, the Deploy API with A's key, and a
// personal access token of a person without rights on B. Every attempt is
// refused with the spec's status and code, and nothing is stored.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { body } from './harness.ts';
import { World, type WorldCanvas } from './world.ts';

interface Attempt {
  who: string;
  headers: () => Record<string, string>;
  status: number;
  code: string;
}

const MODES = [
  { mode: 'path', env: {} as Record<string, string> },
  { mode: 'subdomain', env: { EASEL_URL_MODE: 'subdomain', EASEL_BASE_URL: 'https://easel.test', EASEL_CANVAS_HOST: 'apps.easel.test' } },
];

for (const { mode, env } of MODES) {
  describe(`${mode} mode`, () => {
    let w: World;
    /** B: the target (its list holds editor, viewer, viewer2; the world's guest; its key). A: the stranger's own canvas. */
    let b: WorldCanvas;
    let a: WorldCanvas;
    let guestOfA: string;
    let strangerToken: string;

    beforeAll(async () => {
      w = await new World({ reset: 'none', env }).start();
      b = w.canvas;
      a = w.other;
      await w.capabilities({ backend: true, kv: true, files: true, realtime: true }, b);
      await w.deploy(b);
      await w.deploy(a);
      guestOfA = (await w.openGuestInvite(a.id, 'stranger')).guestCookie;
      strangerToken = (await body(await w.request('stranger', '/api/tokens', { method: 'POST', json: { name: 'no rights on B' } }))).token;
    });
    afterAll(() => w.close());

    /** What A's page sends along with a call to B from the visitor's browser. */
    const fromPageOfA = (): Record<string, string> =>
      mode === 'subdomain'
        ? { origin: `https://${a.slug}.apps.easel.test`, referer: `https://${a.slug}.apps.easel.test/`, 'sec-fetch-site': 'same-site' }
        : { referer: `http://localhost/c/${a.slug}/`, 'sec-fetch-site': 'same-origin' };

    const attempts = (): Attempt[] => [
      {
        who: "a page of A, visited by B's viewer",
        headers: () => ({ cookie: w.cookie.viewer, ...fromPageOfA() }),
        status: 403,
        code: 'CROSS_CANVAS_FORBIDDEN',
      },
      {
        who: "a page of A, visited by B's editor",
        headers: () => ({ cookie: w.cookie.editor, ...fromPageOfA() }),
        status: 403,
        code: 'CROSS_CANVAS_FORBIDDEN',
      },
      { who: "A's owner, nobody on B", headers: () => ({ cookie: w.cookie.stranger }), status: 404, code: 'OWNER_ONLY' },
      { who: 'a guest of A', headers: () => ({ cookie: guestOfA }), status: 404, code: 'NOT_INVITED' },
      {
        who: 'a personal access token without rights on B',
        headers: () => ({ authorization: `Bearer ${strangerToken}` }),
        status: 401,
        code: 'unauthorized',
      },
      { who: "A's deploy key", headers: () => ({ authorization: `Bearer ${a.apiKey}` }), status: 401, code: 'unauthorized' },
    ];

    /** Every runtime route of the listing, with B's slug and stand-in parameters. */
    const runtimeRoutes = () =>
      w.app.easel
        .listing()
        .filter((r) => r.via === 'router' && r.path.startsWith('/v1/c/:slug/') && r.method !== 'OPTIONS' && !r.path.endsWith('*'))
        .map((r) => ({ method: r.method, path: r.path.replace(':slug', b.slug).replace(/:[A-Za-z]+/g, 'x') }));

    const codeOf = (b: any) => b?.code ?? b?.error;

    test('every runtime route refuses everyone in the matrix with the spec code, and nothing is stored', async () => {
      const routes = runtimeRoutes();
      expect(routes.length).toBeGreaterThan(15);
      const before = await w.stored();
      const seen: string[] = [];
      for (const attempt of attempts()) {
        for (const route of routes) {
          const res = await w.app.request(route.path, {
            method: route.method,
            headers: {
              ...attempt.headers(),
              ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { 'content-type': 'application/json' }),
            },
            body: route.method === 'GET' || route.method === 'DELETE' ? undefined : '{"value":1,"by":1,"data":{}}',
          });
          const got = { who: attempt.who, route: `${route.method} ${route.path}`, status: res.status, code: codeOf(await body(res)) };
          expect(got).toEqual({ who: attempt.who, route: got.route, status: attempt.status, code: attempt.code });
          seen.push(got.route);
        }
      }
      expect(await w.stored()).toEqual(before);
      expect(new Set(seen).size).toBe(routes.length);
    });

    test('the realtime upgrade refuses the same people before any socket opens', async () => {
      for (const attempt of attempts()) {
        const res = await w.app.request(`/v1/c/${b.slug}/realtime`, {
          headers: {
            ...attempt.headers(),
            upgrade: 'websocket',
            connection: 'Upgrade',
            'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
            'sec-websocket-version': '13',
          },
        });
        expect({ who: attempt.who, status: res.status, code: codeOf(await body(res)) }).toEqual({
          who: attempt.who,
          status: attempt.status,
          code: attempt.code,
        });
      }
    });

    test("the Deploy API with A's key, and the management API with a token of someone without rights, change nothing on B", async () => {
      // A token's first use is audited (token.used); that is the stranger's own record, not a change to B.
      expect((await w.app.request('/api/me', { headers: { authorization: `Bearer ${strangerToken}` } })).status).toBe(200);
      const before = await w.stored();
      const deploy = [
        ['GET', `/v1/canvases/${b.id}`],
        ['GET', `/v1/canvases/${b.id}/versions`],
        ['GET', `/v1/canvases/${b.id}/files`],
        ['PUT', `/v1/canvases/${b.id}/deploy`],
        ['POST', `/v1/canvases/${b.id}/rollback`],
        ['POST', `/v1/canvases/${b.id}/unpublish`],
        ['POST', `/v1/canvases/${b.id}/uploads`],
      ] as const;
      // Spec (Deploy API auth): a key for a different canvas than {id} is 403 {error: unauthorized}.
      for (const [method, path] of deploy) {
        const res = await w.app.request(path, {
          method,
          headers: { authorization: `Bearer ${a.apiKey}` },
          body: method === 'GET' ? undefined : '{}',
        });
        expect({ route: `${method} ${path}`, status: res.status, body: await body(res) }).toEqual({
          route: `${method} ${path}`,
          status: 403,
          body: { error: 'unauthorized' },
        });
      }
      const management = [
        ['GET', `/api/canvases/${b.id}`],
        ['PATCH', `/api/canvases/${b.id}`],
        ['GET', `/api/canvases/${b.id}/members`],
        ['PUT', `/api/canvases/${b.id}/deploy`],
        ['GET', `/api/canvases/${b.id}/draft`],
        ['POST', `/api/canvases/${b.id}/regenerate-key`],
        ['DELETE', `/api/canvases/${b.id}`],
      ] as const;
      for (const [method, path] of management) {
        const res = await w.app.request(path, {
          method,
          headers: { authorization: `Bearer ${strangerToken}`, 'content-type': 'application/json' },
          body: method === 'GET' || method === 'DELETE' ? undefined : '{"title":"taken"}',
        });
        expect({ route: `${method} ${path}`, status: res.status, code: codeOf(await body(res)) }).toEqual({
          route: `${method} ${path}`,
          status: 404,
          code: 'NOT_FOUND',
        });
      }
      expect(await w.stored()).toEqual(before);
    });
  });
}
