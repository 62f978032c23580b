// passes: embedded, cluster
// OIDC sign-in (issue 17 item 4) against a real OpenID provider on a loopback
// port (oauth2-mock-server): discovery, code flow with PKCE, state and nonce,
// ID-token checks, claims, returnTo, logout, and each way it must refuse,
// forged tokens and a failing UserInfo included (a mock can forge them; the
// certified provider of oidc-provider.test.ts cannot).
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { Events, OAuth2Server } from 'oauth2-mock-server';
import { OidcStartError } from '../src/auth/oidc.ts';
import { body, startTestApp, type TestApp } from './harness.ts';

let provider: OAuth2Server;
let app: TestApp;
/** Claims the provider puts in the next ID tokens (changed per test). */
let claims: Record<string, unknown>;
const CLIENT = { id: 'easel-test', secret: 'not-a-real-secret' };

beforeAll(async () => {
  provider = new OAuth2Server();
  await provider.issuer.keys.generate('RS256');
  await provider.start(0, '127.0.0.1');
  provider.service.on(Events.BeforeTokenSigning, (token) => Object.assign(token.payload, claims));
  app = await startTestApp({
    env: {
      EASEL_AUTH_MODE: 'oidc',
      EASEL_PATH_MODE_TRUSTED_AUTHORS: 'on',
      EASEL_OIDC_ISSUER: provider.issuer.url!,
      EASEL_OIDC_CLIENT_ID: CLIENT.id,
      EASEL_OIDC_CLIENT_SECRET: CLIENT.secret,
      EASEL_ADMIN_EMAILS: 'ada@example.com',
    },
  });
});
afterAll(async () => {
  await app?.close();
  await provider?.stop();
});
beforeEach(() => {
  claims = { email: 'ada@example.com', email_verified: true, name: 'Ada Lovelace' };
});

const cookiePair = (res: Response, name: string) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .find((c) => c.startsWith(`${name}=`) && c.length > name.length + 1) ?? null;

/** What a browser does up to the callback: our /auth/login, the provider's authorize (which signs in at once). */
async function toCallback(returnTo = '/'): Promise<{ callback: string; browser: string }> {
  const login = await app.request(`/auth/login?returnTo=${encodeURIComponent(returnTo)}`);
  expect(login.status).toBe(302);
  const browser = cookiePair(login, 'easel_oidc')!;
  const authorize = new URL(login.headers.get('location')!);
  expect(authorize.origin).toBe(new URL(provider.issuer.url!).origin);
  expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authorize.searchParams.get('nonce')).toEqual(expect.any(String));
  expect(authorize.searchParams.get('redirect_uri')).toBe(`${app.ctx.config.baseUrl}/auth/callback`);
  const atProvider = await fetch(authorize, { redirect: 'manual' });
  const back = new URL(atProvider.headers.get('location')!);
  return { callback: back.pathname + back.search, browser };
}

async function refusedWith(res: Response, status: number, text: RegExp): Promise<void> {
  expect(res.status).toBe(status);
  const page = await res.text();
  expect(page).toContain('<meta name="easel-code" content="SIGN_IN_REFUSED">');
  expect(page).toMatch(text);
  expect(cookiePair(res, 'easel_session')).toBeNull();
}

describe('oidc sign-in', () => {
  test('the code flow signs in with the ID token’s email and name, goes back to returnTo, and makes admins as configured', async () => {
    const { callback, browser } = await toCallback('/dashboard?tab=1');
    const done = await app.request(callback, { cookie: browser });
    expect([done.status, done.headers.get('location')]).toEqual([303, '/dashboard?tab=1']);
    const session = cookiePair(done, 'easel_session')!;
    const me = await body(await app.request('/api/me', { cookie: session }));
    expect(me).toMatchObject({ email: 'ada@example.com', name: 'Ada Lovelace', isAdmin: true, authMode: 'oidc' });
  });

  test('returnTo is same-origin only', async () => {
    const { callback, browser } = await toCallback('https://evil.example/steal');
    expect((await app.request(callback, { cookie: browser })).headers.get('location')).toBe('/');
  });

  test('a tampered state, a replayed callback or another browser: refused, no session', async () => {
    const first = await toCallback();
    const tampered = first.callback.replace(/state=[^&]+/, 'state=forged');
    await refusedWith(await app.request(tampered, { cookie: first.browser }), 400, /expired or was already used/);

    const second = await toCallback();
    expect((await app.request(second.callback, { cookie: second.browser })).status).toBe(303);
    await refusedWith(await app.request(second.callback, { cookie: second.browser }), 400, /expired or was already used/);

    const third = await toCallback();
    await refusedWith(await app.request(third.callback), 400, /another browser/);
  });

  test('a wrong audience, an expired ID token, another issuer: refused', async () => {
    for (const bad of [
      { aud: 'someone-else' },
      { exp: Math.floor(Date.now() / 1000) - 3600 },
      { iss: 'https://issuer.elsewhere.example' },
    ]) {
      claims = { ...claims, ...bad };
      const { callback, browser } = await toCallback();
      await refusedWith(await app.request(callback, { cookie: browser }), 400, /could not be verified/);
    }
  });

  test('no email, or an unverified one: refused with a page that says so', async () => {
    claims = { name: 'No Mail' };
    let flow = await toCallback();
    await refusedWith(await app.request(flow.callback, { cookie: flow.browser }), 400, /no email address/);
    claims = { email: 'unverified@example.com', email_verified: false };
    flow = await toCallback();
    await refusedWith(await app.request(flow.callback, { cookie: flow.browser }), 400, /not verified/);
  });

  test('UserInfo whose sub is not the ID token’s, or that fails: refused with a page, never a 500', async () => {
    claims = { name: 'Ada Lovelace' }; // no email in the ID token: Easel asks UserInfo
    provider.service.once(Events.BeforeUserinfo, (res) => {
      res.body = { sub: 'someone-else', email: 'ada@example.com', email_verified: true };
    });
    let flow = await toCallback();
    await refusedWith(await app.request(flow.callback, { cookie: flow.browser }), 400, /user information could not be read/);
    provider.service.once(Events.BeforeUserinfo, (res) => {
      res.statusCode = 500;
      res.body = { error: 'server_error' };
    });
    flow = await toCallback();
    await refusedWith(await app.request(flow.callback, { cookie: flow.browser }), 400, /user information could not be read/);
  });

  test('without a session: runtime routes 302 to /auth/login, the management API 401 JSON; logout points at the provider’s end-session endpoint', async () => {
    expect((await app.request('/v1/c/some-canvas/me')).headers.get('location')).toBe('/auth/login');
    const api = await app.request('/api/me');
    expect([api.status, await body(api)]).toEqual([401, { error: 'unauthorized' }]);
    const { callback, browser } = await toCallback();
    const session = cookiePair(await app.request(callback, { cookie: browser }), 'easel_session')!;
    const out = await body(await app.request('/auth/logout', { method: 'POST', cookie: session }));
    expect(out.ok).toBe(true);
    const end = new URL(out.endSessionUrl);
    expect(end.origin + end.pathname).toBe(`${new URL(provider.issuer.url!).origin}/endsession`);
    expect(end.searchParams.get('post_logout_redirect_uri')).toBe(`${app.ctx.config.baseUrl}/`);
    expect((await app.request('/api/me', { cookie: session })).status).toBe(401);
  });

  test('/openapi.json here describes the routes only oidc mode mounts: the callback and the redirecting /auth/login', async () => {
    const doc = await body(await app.request('/openapi.json'));
    const callback = doc.paths['/auth/callback']?.get;
    expect(callback).toMatchObject({ tags: ['Sign-in'], 'x-easel-auth-mode': 'oidc' });
    expect(callback.parameters.map((p: { name: string }) => p.name)).toEqual(['code', 'state', 'iss', 'error']);
    expect(Object.keys(callback.responses['400'].content)).toEqual(['text/html']);
    const login = doc.paths['/auth/login'].get;
    expect([login['x-easel-auth-mode'], login.responses['302'].description]).toEqual(['oidc', 'to the identity provider']);
    expect(login.parameters.map((p: { name: string }) => p.name)).toEqual(['returnTo', 'switch']);
    // Dev sign-in is not mounted here, so not described.
    expect(doc.paths['/auth/dev/login']).toBeUndefined();
  });
});

describe('the provider away', () => {
  test('an issuer that does not answer stops the start', async () => {
    const refused = startTestApp({
      env: {
        EASEL_AUTH_MODE: 'oidc',
        EASEL_PATH_MODE_TRUSTED_AUTHORS: 'on',
        EASEL_OIDC_ISSUER: 'http://127.0.0.1:9/',
        EASEL_OIDC_CLIENT_ID: 'x',
        EASEL_OIDC_CLIENT_SECRET: 'y',
      },
    });
    await expect(refused).rejects.toBeInstanceOf(OidcStartError);
  });

  test('down at sign-in time: a 502 page, not a 500', async () => {
    const other = new OAuth2Server();
    await other.issuer.keys.generate('RS256');
    await other.start(0, '127.0.0.1');
    const flaky = await startTestApp({
      env: {
        EASEL_AUTH_MODE: 'oidc',
        EASEL_PATH_MODE_TRUSTED_AUTHORS: 'on',
        EASEL_OIDC_ISSUER: other.issuer.url!,
        EASEL_OIDC_CLIENT_ID: CLIENT.id,
        EASEL_OIDC_CLIENT_SECRET: CLIENT.secret,
      },
    });
    try {
      const login = await flaky.request('/auth/login');
      const browser = cookiePair(login, 'easel_oidc')!;
      const back = new URL((await fetch(login.headers.get('location')!, { redirect: 'manual' })).headers.get('location')!);
      await other.stop();
      const res = await flaky.request(back.pathname + back.search, { cookie: browser });
      expect(res.status).toBe(502);
      expect(await res.text()).toContain('could not be reached');
    } finally {
      await flaky.close();
    }
  });
});
