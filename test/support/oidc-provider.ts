// panva's oidc-provider (OpenID Certified) in process on a loopback port: a
// standards-conforming identity provider for the sign-in suites. Its login
// and consent step is answered in code for the account the test names (no
// browser, no HTML forms), and it counts the calls to its UserInfo endpoint.
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Configuration } from 'oidc-provider';

/** An account at the provider: its `sub` and the claims it releases for the granted scopes. */
export interface ProviderAccount {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  preferred_username?: string;
  groups?: unknown;
  roles?: unknown;
}

export interface OidcTestProvider {
  issuer: string;
  client: { id: string; secret: string };
  /** Who signs in at the provider's next login step. */
  signInAs(account: ProviderAccount): void;
  /** Calls to the UserInfo endpoint so far. */
  userinfoCalls(): number;
  stop(): Promise<void>;
}

export interface OidcTestProviderOptions {
  /** The relying party's redirect URI (Easel's `{EASEL_BASE_URL}/auth/callback`). */
  redirectUri: string;
  /** false: the scope claims go in the ID token too (oidc-provider's `conformIdTokenClaims`); default true, its own default. */
  conformIdTokenClaims?: boolean;
}

const CLIENT = { id: 'easel-test', secret: 'not-a-real-secret-but-long-enough-for-hs256' };

export async function startOidcProvider(options: OidcTestProviderOptions): Promise<OidcTestProvider> {
  let current: ProviderAccount = { sub: 'nobody' };
  let userinfo = 0;
  const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const configuration: Configuration = {
    clients: [
      {
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        redirect_uris: [options.redirectUri],
        post_logout_redirect_uris: [new URL('/', options.redirectUri).href],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        // openid-client sends a string secret in the body.
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    jwks: { keys: [{ ...signingKey, kid: 'test', use: 'sig', alg: 'RS256' } as never] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'preferred_username', 'groups', 'roles'] },
    conformIdTokenClaims: options.conformIdTokenClaims ?? true,
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    // Accounts are whatever the test signs in as; the provider asks for their claims per use (ID token or UserInfo).
    findAccount: (_ctx, sub) => {
      const account = current.sub === sub ? current : { sub };
      return { accountId: sub, claims: () => ({ ...account }) as { sub: string } };
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  };
  // The issuer names the port, so the listener comes first and the provider behind it once it exists.
  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
  const server: Server = createServer((req, res) => handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, configuration);
  provider.use(async (ctx, next) => {
    if (ctx.path === '/me') userinfo++;
    await next();
  });
  const callback = provider.callback();
  handle = (req, res) => {
    if (req.url?.startsWith('/interaction/')) {
      finishInteraction(provider, req, res, current.sub).catch((err: unknown) => {
        res.statusCode = 500;
        res.end(String(err));
      });
      return;
    }
    void callback(req, res);
  };
  return {
    issuer,
    client: CLIENT,
    signInAs: (account) => {
      current = account;
    },
    userinfoCalls: () => userinfo,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The login and consent step: `sub` signs in and grants every scope and claim asked for. */
async function finishInteraction(provider: Provider, req: IncomingMessage, res: ServerResponse, sub: string): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  const grant = details.grantId
    ? (await provider.Grant.find(details.grantId))!
    : new provider.Grant({ accountId: sub, clientId: details.params.client_id as string });
  const scope = String(details.params.scope ?? '');
  grant.addOIDCScope(scope);
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { login: { accountId: sub }, consent: { grantId } }, { mergeWithLastSubmission: false });
}
