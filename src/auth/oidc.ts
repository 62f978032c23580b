// OIDC sign-in (EASEL_AUTH_MODE=oidc) with openid-client: discovery at
// start, the authorization-code flow with PKCE, `state` and `nonce`, and the
// ID token checked by the library (issuer, audience, expiry, signature,
// nonce). Each authorization request is a row bound to the browser that made
// it and used once. The HTTP side is oidc-routes.ts.
import * as client from 'openid-client';
import type { Config } from '../config.ts';
import type { Sql } from '../db/sql.ts';
import { randomBase62, sha256Hex } from '../ids.ts';
import { missingFromIdToken, readIdentity, type ClaimNames, type Claims } from './oidc-claims.ts';

/** Long enough to type a password and answer an MFA prompt at the provider. */
const LOGIN_TTL_MS = 10 * 60 * 1000;

/** The provider could not be reached or refused to describe itself at start: the server must not run without sign-in. */
export class OidcStartError extends Error {}

/** A sign-in the provider or the callback refused; `message` is for the person (no secrets, no tokens). */
export class OidcSignInError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 502 = 400,
  ) {
    super(message);
  }
}

export interface SignedInIdentity {
  email: string;
  name: string | null;
  /** The groups of EASEL_OIDC_ADMIN_GROUPS the person is in at the provider now. */
  adminGroups: string[];
}

interface LoginRow {
  browser_hash: string;
  code_verifier: string;
  nonce: string;
  return_to: string;
  expires_at: number;
}

export class OidcSignIn {
  private configuration: client.Configuration | null = null;
  private readonly claimNames: ClaimNames;

  constructor(
    private readonly config: Config,
    private readonly sql: Sql,
    private readonly now: () => number,
  ) {
    this.claimNames = {
      email: config.oidcEmailClaim,
      name: config.oidcNameClaim,
      groups: config.oidcGroupsClaim,
      adminGroups: config.oidcAdminGroups,
    };
  }

  /** Discovery: the provider's endpoints and keys; a bad or silent issuer stops the start. */
  async start(): Promise<void> {
    const issuer = new URL(this.config.oidcIssuer!);
    const loopback = issuer.protocol === 'http:';
    try {
      this.configuration = await client.discovery(
        issuer,
        this.config.oidcClientId!,
        this.config.oidcClientSecret!,
        undefined,
        loopback ? { execute: [client.allowInsecureRequests] } : undefined,
      );
    } catch (err) {
      throw new OidcStartError(`EASEL_OIDC_ISSUER ${issuer.href} could not be discovered: ${reason(err)}`);
    }
  }

  private get redirectUri(): string {
    return `${this.config.baseUrl.replace(/\/+$/, '')}/auth/callback`;
  }

  /** The provider's authorization URL for a new sign-in, and the browser-binding value to keep in a cookie. */
  async begin(returnTo: string, options: { selectAccount?: boolean } = {}): Promise<{ url: string; browser: string }> {
    const configuration = this.ready();
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const browser = randomBase62(32);
    const now = this.now();
    await this.sql.run(
      'INSERT INTO oidc_logins (state_hash, browser_hash, code_verifier, nonce, return_to, expires_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)',
      sha256Hex(state),
      sha256Hex(browser),
      verifier,
      nonce,
      returnTo,
      now + LOGIN_TTL_MS,
    );
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: this.redirectUri,
      scope: this.config.oidcScopes,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
      ...(options.selectAccount ? { prompt: 'select_account' } : {}),
    });
    return { url: url.href, browser };
  }

  /**
   * The callback: the sign-in row for `state` (used up now), made by this
   * browser, then the code exchanged and the ID token checked. Answers who
   * signed in and where they were going.
   */
  async finish(query: URLSearchParams, browsers: string[]): Promise<SignedInIdentity & { returnTo: string }> {
    const configuration = this.ready();
    const providerError = query.get('error');
    if (providerError) throw new OidcSignInError(`The sign-in provider refused: ${providerError}`);
    const state = query.get('state') ?? '';
    const row = await this.sql.get<LoginRow>(
      'DELETE FROM oidc_logins WHERE state_hash = ?1 RETURNING browser_hash, code_verifier, nonce, return_to, expires_at',
      sha256Hex(state),
    );
    if (!row || row.expires_at <= this.now()) throw new OidcSignInError('This sign-in link has expired or was already used. Start again.');
    if (!browsers.some((b) => sha256Hex(b) === row.browser_hash)) {
      throw new OidcSignInError('This sign-in was started in another browser. Start again here.');
    }
    const callback = new URL(this.redirectUri);
    callback.search = query.toString();
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(configuration, callback, {
        pkceCodeVerifier: row.code_verifier,
        expectedState: state,
        expectedNonce: row.nonce,
        idTokenExpected: true,
      });
    } catch (err) {
      if (isNetworkFailure(err)) throw new OidcSignInError('The sign-in provider could not be reached. Try again in a moment.', 502);
      throw new OidcSignInError(`The sign-in could not be verified: ${reason(err)}`);
    }
    const idToken: Claims = tokens.claims() ?? {};
    const userinfo = missingFromIdToken(idToken, this.claimNames)
      ? await this.userInfo(configuration, tokens.access_token, String(idToken.sub))
      : null;
    const reading = readIdentity(idToken, userinfo, this.claimNames);
    if (!reading.ok) throw new OidcSignInError(this.refusal(reading.problem));
    return { email: reading.email, name: reading.name, adminGroups: reading.adminGroups, returnTo: row.return_to };
  }

  /** The UserInfo claims for this sign-in's access token; their `sub` must be the ID token's, or the sign-in is refused. */
  private async userInfo(configuration: client.Configuration, accessToken: string, sub: string): Promise<Claims | null> {
    // A provider without the endpoint has given all it will in the ID token.
    if (!configuration.serverMetadata().userinfo_endpoint) return null;
    try {
      return await client.fetchUserInfo(configuration, accessToken, sub);
    } catch (err) {
      if (isNetworkFailure(err)) throw new OidcSignInError('The sign-in provider could not be reached. Try again in a moment.', 502);
      throw new OidcSignInError(`The sign-in provider's user information could not be read: ${reason(err)}`);
    }
  }

  private refusal(problem: 'no-email' | 'not-an-email' | 'unverified'): string {
    const claim = this.config.oidcEmailClaim;
    switch (problem) {
      case 'no-email':
        return `Your account at the sign-in provider has no email address (claim "${claim}"), which Easel needs.`;
      case 'not-an-email':
        return `Your account's claim "${claim}" at the sign-in provider is not an email address, which Easel needs. Ask an administrator to set EASEL_OIDC_EMAIL_CLAIM.`;
      case 'unverified':
        return 'Your email address is not verified at the sign-in provider. Verify it there, then sign in again.';
    }
  }

  /** Where to send a browser after signing out here, when the provider ends its own session too. */
  endSessionUrl(): string | null {
    const configuration = this.ready();
    if (!configuration.serverMetadata().end_session_endpoint) return null;
    return client.buildEndSessionUrl(configuration, {
      client_id: this.config.oidcClientId!,
      post_logout_redirect_uri: `${this.config.baseUrl.replace(/\/+$/, '')}/`,
    }).href;
  }

  private ready(): client.Configuration {
    if (!this.configuration) throw new OidcStartError('OIDC sign-in is not started');
    return this.configuration;
  }
}

function isNetworkFailure(err: unknown): boolean {
  const text = `${(err as { name?: string })?.name ?? ''} ${(err as { message?: string })?.message ?? ''} ${String((err as { cause?: unknown })?.cause ?? '')}`;
  return /ECONNREFUSED|ConnectionRefused|fetch failed|Unable to connect|ENOTFOUND|socket|network/i.test(text);
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
