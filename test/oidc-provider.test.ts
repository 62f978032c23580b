// passes: embedded, cluster
// OIDC sign-in (issue 36 item 1) against panva's oidc-provider, an OpenID
// Certified provider: once on its defaults (the ID token carries `sub` only,
// the scope claims come from UserInfo) and once with the claims in the ID
// token, through Easel's real routes and the provider's real endpoints.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { body, startTestApp, type TestApp } from './harness.ts';
import { startOidcProvider, type OidcTestProvider, type ProviderAccount } from './support/oidc-provider.ts';

const BASE_URL = 'http://localhost:8080';

interface Setup {
  provider: OidcTestProvider;
  app: TestApp;
}

async function startSetup(options: { conformIdTokenClaims: boolean; env?: Record<string, string> }): Promise<Setup> {
  const provider = await startOidcProvider({
    redirectUri: `${BASE_URL}/auth/callback`,
    conformIdTokenClaims: options.conformIdTokenClaims,
  });
  const app = await startTestApp({
    env: {
      EASEL_AUTH_MODE: 'oidc',
      EASEL_BASE_URL: BASE_URL,
      EASEL_OIDC_ISSUER: provider.issuer,
      EASEL_OIDC_CLIENT_ID: provider.client.id,
      EASEL_OIDC_CLIENT_SECRET: provider.client.secret,
      EASEL_OIDC_ADMIN_GROUPS: 'easel-admins, /platform/ops',
      ...options.env,
    },
  });
  return { provider, app };
}

/** A provider and an app for the enclosing describe block, started before its tests and stopped after. */
function setupFor(options: Parameters<typeof startSetup>[0]): { readonly current: Setup } {
  const holder = {} as { current: Setup };
  beforeAll(async () => {
    holder.current = await startSetup(options);
  });
  afterAll(async () => {
    await holder.current?.app.close();
    await holder.current?.provider.stop();
  });
  return holder;
}

/** The provider's cookies, as a browser keeps them across its redirects. */
class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const [name, value] = [pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim()];
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([n, v]) => `${n}=${v}`).join('; ');
  }
}

/**
 * A browser's whole sign-in: Easel's /auth/login, the provider's authorize,
 * its login and consent step (answered for `account`), back to Easel's
 * callback. Answers the callback's response.
 */
async function signIn(setup: Setup, account: ProviderAccount, returnTo = '/'): Promise<Response> {
  const { app, provider } = setup;
  provider.signInAs(account);
  const login = await app.request(`/auth/login?returnTo=${encodeURIComponent(returnTo)}`);
  expect(login.status).toBe(302);
  const browser = login.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .find((c) => c.startsWith('easel_oidc='))!;
  const jar = new CookieJar();
  let next = new URL(login.headers.get('location')!);
  for (let hop = 0; next.origin === provider.issuer; hop++) {
    expect(hop).toBeLessThan(10);
    const res = await fetch(next, { redirect: 'manual', headers: { cookie: jar.header() } });
    jar.take(res);
    expect([302, 303]).toContain(res.status);
    next = new URL(res.headers.get('location')!, next);
  }
  expect(next.origin + next.pathname).toBe(`${BASE_URL}/auth/callback`);
  expect(next.searchParams.get('code')).toEqual(expect.any(String));
  return app.request(next.pathname + next.search, { cookie: browser });
}

async function sessionOf(res: Response): Promise<string> {
  expect(res.status).toBe(303);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .find((c) => c.startsWith('easel_session=') && c.length > 'easel_session='.length)!;
}

async function me(app: TestApp, session: string): Promise<Record<string, unknown>> {
  return body(await app.request('/api/me', { cookie: session }));
}

async function refusedWith(res: Response, text: RegExp): Promise<void> {
  expect(res.status).toBe(400);
  const page = await res.text();
  expect(page).toContain('<meta name="easel-code" content="SIGN_IN_REFUSED">');
  expect(page).toMatch(text);
  expect(res.headers.getSetCookie().some((c) => /^easel_session=[^;]/.test(c))).toBe(false);
}

const ADA = { sub: 'ada-1', email: 'ada@example.com', email_verified: true, name: 'Ada Lovelace' } satisfies ProviderAccount;

describe('oidc-provider on its defaults: the ID token carries sub only, the claims come from UserInfo', () => {
  const setup = setupFor({ conformIdTokenClaims: true });

  test('sign-in succeeds with the email and name from UserInfo, and goes back to returnTo', async () => {
    const before = setup.current.provider.userinfoCalls();
    const done = await signIn(setup.current, ADA, '/dashboard?tab=1');
    expect(done.headers.get('location')).toBe('/dashboard?tab=1');
    expect(await me(setup.current.app, await sessionOf(done))).toMatchObject({
      email: 'ada@example.com',
      name: 'Ada Lovelace',
      isAdmin: false,
    });
    expect(setup.current.provider.userinfoCalls()).toBe(before + 1);
  });

  test('a member of an admin group is an instance admin, a non-member is not; leaving the group ends it at the next sign-in, for every session', async () => {
    const grace = { sub: 'grace-1', email: 'grace@example.com', email_verified: true, name: 'Grace', groups: ['staff', 'easel-admins'] };
    const first = await sessionOf(await signIn(setup.current, grace));
    expect(await me(setup.current.app, first)).toMatchObject({ email: 'grace@example.com', isAdmin: true });
    expect((await setup.current.app.request('/api/admin/users', { cookie: first })).status).toBe(200);

    const linus = { sub: 'linus-1', email: 'linus@example.com', email_verified: true, name: 'Linus', groups: ['staff'] };
    const other = await sessionOf(await signIn(setup.current, linus));
    expect(await me(setup.current.app, other)).toMatchObject({ isAdmin: false });
    expect((await setup.current.app.request('/api/admin/users', { cookie: other })).status).toBe(404);

    // Admin routes hide themselves from anyone else (404).
    // Grace leaves the group at the provider: her next sign-in takes the right away, from her older session too.
    const second = await sessionOf(await signIn(setup.current, { ...grace, groups: ['staff'] }));
    expect(await me(setup.current.app, second)).toMatchObject({ isAdmin: false });
    expect(await me(setup.current.app, first)).toMatchObject({ isAdmin: false });
    expect((await setup.current.app.request('/api/admin/users', { cookie: first })).status).toBe(404);
  });

  test('a groups claim that is one string counts as one group', async () => {
    const ops = { sub: 'ops-1', email: 'ops@example.com', email_verified: true, name: 'Ops', groups: '/platform/ops' };
    expect(await me(setup.current.app, await sessionOf(await signIn(setup.current, ops)))).toMatchObject({ isAdmin: true });
  });

  test('an absurd groups claim (too many, not strings, too long) is ignored: the sign-in succeeds, no admin', async () => {
    for (const groups of [
      [...Array.from({ length: 1000 }, (_, i) => `g${i}`), 'easel-admins'],
      { 'easel-admins': true },
      [42, null, { name: 'easel-admins' }],
      `easel-admins${'x'.repeat(300)}`,
    ]) {
      const hostile = { sub: 'hostile-1', email: 'hostile@example.com', email_verified: true, name: 'H', groups };
      expect(await me(setup.current.app, await sessionOf(await signIn(setup.current, hostile)))).toMatchObject({ isAdmin: false });
    }
  });

  test('an account without an email anywhere, or with an unverified one: the clear refusal page', async () => {
    await refusedWith(await signIn(setup.current, { sub: 'no-mail', name: 'No Mail' }), /no email address \(claim &#34;email&#34;\)/);
    await refusedWith(await signIn(setup.current, { sub: 'unverified', email: 'u@example.com', email_verified: false }), /not verified/);
  });
});

describe('oidc-provider with the claims in the ID token (conformIdTokenClaims: false)', () => {
  const setup = setupFor({ conformIdTokenClaims: false });

  test('sign-in succeeds from the ID token alone: UserInfo is not called', async () => {
    const before = setup.current.provider.userinfoCalls();
    const session = await sessionOf(await signIn(setup.current, { ...ADA, groups: ['easel-admins'] }));
    expect(await me(setup.current.app, session)).toMatchObject({ email: 'ada@example.com', name: 'Ada Lovelace', isAdmin: true });
    expect(setup.current.provider.userinfoCalls()).toBe(before);
  });

  test('a claim the ID token lacks (no groups) is still read from UserInfo', async () => {
    const before = setup.current.provider.userinfoCalls();
    await sessionOf(await signIn(setup.current, ADA));
    expect(setup.current.provider.userinfoCalls()).toBe(before + 1);
  });
});

describe('Entra ID-style claims (EASEL_OIDC_EMAIL_CLAIM=preferred_username, EASEL_OIDC_GROUPS_CLAIM=roles)', () => {
  const setup = setupFor({
    conformIdTokenClaims: true,
    env: { EASEL_OIDC_EMAIL_CLAIM: 'preferred_username', EASEL_OIDC_GROUPS_CLAIM: 'roles' },
  });

  test('the email comes from preferred_username', async () => {
    const session = await sessionOf(
      await signIn(setup.current, { sub: 'entra-1', preferred_username: 'Mary.Major@Contoso.example', name: 'Mary' }),
    );
    expect(await me(setup.current.app, session)).toMatchObject({ email: 'mary.major@contoso.example', name: 'Mary' });
  });

  test('a preferred_username that is not an email address is refused with a page that says which claim', async () => {
    await refusedWith(
      await signIn(setup.current, { sub: 'entra-2', preferred_username: 'mmajor', name: 'M' }),
      /claim &#34;preferred_username&#34;.*not an email address/,
    );
  });

  test('admin groups are read from the claim EASEL_OIDC_GROUPS_CLAIM names, not from `groups`', async () => {
    const byRole = { sub: 'entra-3', preferred_username: 'role@contoso.example', roles: ['easel-admins'] };
    expect(await me(setup.current.app, await sessionOf(await signIn(setup.current, byRole)))).toMatchObject({ isAdmin: true });
    const byGroup = { sub: 'entra-4', preferred_username: 'group@contoso.example', groups: ['easel-admins'] };
    expect(await me(setup.current.app, await sessionOf(await signIn(setup.current, byGroup)))).toMatchObject({ isAdmin: false });
  });
});
