import type { Config } from '../config.ts';
import { cookieValues, serializeCookie } from '../http/cookies.ts';
import { ipInAny } from '../net/ip.ts';
import type { Maybe } from '../sync-first.ts';
import { guestCookieName, secureCookies, sessionCookieName } from './cookie-names.ts';
import type { GuestSessionResolver } from './guests.ts';
import { sessionTokenHash, type ResolvedSession, type SessionStore } from './sessions.ts';
import type { TokenStore } from './tokens.ts';
import { EMAIL, type User, type UserStore } from './users.ts';
import { pathEndOf, pathStartOf } from '../http/url-path.ts';

/**
 * Who is asking. Later kinds (personal access tokens) extend this union.
 * `guest`: a legacy guest session, scoped to one canvas (src/auth/guests.ts).
 * `anonymous`: a visitor without a session, admitted only by the runtime
 * pipeline for an active Public link canvas (never returned by authenticate).
 */
export type Principal =
  | { kind: 'user'; user: User; via: 'session' | 'proxy' }
  /** The editor's draft preview: its address's token, on this canvas's runtime API only (src/drafts/preview-principal.ts). */
  | { kind: 'user'; user: User; via: 'preview' }
  | { kind: 'user'; user: User; via: 'token'; tokenId: string }
  | { kind: 'guest'; inviteId: string; canvasId: string; name: string }
  | { kind: 'anonymous' };

export interface AuthResult {
  principal: Principal | null;
  /** A Set-Cookie to send back (a renewed session). */
  setCookie?: string;
}

/**
 * Whose sessions count on a request's host: `base` (the dashboard and API
 * hosts), or one canvas's host in subdomain mode (`canvasId` null when no
 * canvas holds its label: no session counts there).
 */
export type SessionScope = { kind: 'base' } | { kind: 'canvas'; canvasId: string | null };

const BASE_SCOPE: SessionScope = { kind: 'base' };

/**
 * Turns a request into a principal: trusted proxy headers (proxy mode), then
 * a session cookie that belongs to the request's host (a canvas host's own
 * session only there, the base session everywhere else), then a guest's.
 */
export class Authenticator {
  private readonly cookieNames: { session: string; guest: string };

  constructor(
    private readonly config: Config,
    private readonly users: UserStore,
    private readonly sessions: SessionStore,
    private readonly guests: GuestSessionResolver | null = null,
    private readonly scopeOf: (request: Request) => SessionScope | Promise<SessionScope> = () => BASE_SCOPE,
    private readonly tokens: TokenStore | null = null,
  ) {
    this.cookieNames = { session: sessionCookieName(config), guest: guestCookieName(config) };
  }

  /** Named by email in the configuration, or in an admin group at the provider when last signing in (while the setting still names that group). */
  isAdmin(user: User): boolean {
    return (
      this.config.adminEmails.includes(user.email.toLowerCase()) || user.adminGroups.some((g) => this.config.oidcAdminGroups.includes(g))
    );
  }

  /**
   * Most requests carry one session cookie whose session this node holds in
   * memory: those are answered at once, the rest after the lookups they need.
   */
  authenticate(request: Request, ip: string | null): Maybe<AuthResult> {
    return this.heldSession(request) ?? this.lookUp(request, ip);
  }

  /** The answer without waiting, when the request's one session cookie names a held session of this host; null otherwise. */
  private heldSession(request: Request): AuthResult | null {
    const key = this.heldSessionKey(request);
    const held = key === null ? undefined : this.sessions.cachedByHash(key);
    if (!held) return null;
    const scope = this.scopeOf(request);
    if (scope instanceof Promise || !ofHost(held, scope)) return null;
    return { principal: { kind: 'user', user: held.user, via: 'session' } };
  }

  /**
   * The hash of the request's one session token when a held session is the
   * only way this request could be answered for (not proxy mode, no bearer
   * token on a token route, exactly one session cookie), else null. What
   * heldSession looks the session up by, and what a caller remembering the
   * outcome of a held session keys it by (the page admission memo): the raw
   * token is never kept.
   */
  heldSessionKey(request: Request): string | null {
    if (this.config.authMode === 'proxy') return null;
    // The path first: it is read in place, where the header is a lookup (and page views are never token routes).
    if (this.tokens && tokenRoute(request.url) && bearerToken(request) !== null) return null;
    const sessionTokens = cookieValues(request.headers.get('cookie'), this.cookieNames.session);
    return sessionTokens.length === 1 ? sessionTokenHash(sessionTokens[0]!) : null;
  }

  /** Until when the held session under `key` (heldSessionKey) answers as it does now: its expiry or renewal; null when not held. */
  heldSessionUntil(key: string): number | null {
    return this.sessions.heldUntil(key);
  }

  private async lookUp(request: Request, ip: string | null): Promise<AuthResult> {
    const bearer = this.tokens ? bearerToken(request) : null;
    // A token counts on /api/* and /mcp only: there it is the whole answer (a bad one is nobody), elsewhere it is ignored.
    if (bearer !== null && tokenRoute(request.url)) {
      const found = await this.tokens!.resolve(bearer);
      return { principal: found ? { kind: 'user', user: found.user, via: 'token', tokenId: found.tokenId } : null };
    }
    if (this.config.authMode === 'proxy') {
      const fromProxy = await this.fromProxy(request, ip);
      if (fromProxy) return { principal: fromProxy };
    }
    const header = request.headers.get('cookie');
    const sessionTokens = cookieValues(header, this.cookieNames.session);
    // Which host's sessions count is looked up only once a session is found (most requests without a cookie never need it).
    let scope: SessionScope | Promise<SessionScope> | null = null;
    const scopeNow = () => (scope ??= this.scopeOf(request));
    const session = await unambiguous(
      sessionTokens,
      async (token) => {
        const s = await this.sessions.resolve(token);
        return s && ofHost(s, await scopeNow()) ? s : null;
      },
      (s) => s.user.id,
    );
    if (session) {
      return {
        principal: { kind: 'user', user: session.value.user, via: 'session' },
        setCookie: session.value.renewed ? this.sessionCookie(session.token) : undefined,
      };
    }
    // A signed-in user always acts as themselves; the guest cookie counts only without one.
    if (this.guests) {
      const guests = this.guests;
      const guest = await unambiguous(
        cookieValues(header, this.cookieNames.guest),
        (token) => guests.resolve(token),
        (g) => g.inviteId,
      );
      if (guest) return { principal: { kind: 'guest', ...guest.value } };
    }
    return { principal: null };
  }

  /** Proxy headers count only from trusted addresses; from anywhere else they are ignored. */
  private async fromProxy(request: Request, ip: string | null): Promise<Principal | null> {
    if (!ipInAny(ip, this.config.proxyTrustedCidrs)) return null;
    const email = request.headers.get(this.config.proxyEmailHeader)?.trim();
    if (!email || !EMAIL.test(email)) return null;
    const user = await this.users.ensure(email, request.headers.get(this.config.proxyNameHeader));
    return user.active ? { kind: 'user', user, via: 'proxy' } : null;
  }

  /** Host-only on whichever host sets it (base or canvas host): nothing is shared between hosts. */
  sessionCookie(token: string): string {
    return serializeCookie(this.cookieNames.session, token, {
      maxAgeSeconds: this.config.sessionTtlHours * 3600,
      secure: secureCookies(this.config),
    });
  }

  clearedSessionCookie(): string {
    return this.cleared(this.cookieNames.session);
  }

  clearedGuestCookie(): string {
    return this.cleared(this.cookieNames.guest);
  }

  /** The session and guest tokens a request carries (for signing out). */
  credentialTokens(request: Request): { sessions: string[]; guests: string[] } {
    const header = request.headers.get('cookie');
    return { sessions: cookieValues(header, this.cookieNames.session), guests: cookieValues(header, this.cookieNames.guest) };
  }

  private cleared(name: string): string {
    return serializeCookie(name, '', { maxAgeSeconds: 0, secure: secureCookies(this.config) });
  }
}

/** The `Authorization: Bearer …` value, or null. */
function bearerToken(request: Request): string | null {
  const header = request.headers.get('authorization');
  if (header === null) return null;
  const m = /^bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1]! : null;
}

/** Whether a request URL is one where personal access tokens act: the management API and the MCP endpoint. */
function tokenRoute(url: string): boolean {
  // Read in place (no substring): this runs on every signed-in request.
  const at = pathStartOf(url);
  if (url.startsWith('/api/', at)) return true;
  return url.startsWith('/mcp', at) && pathEndOf(url, at) === at + 4;
}

/**
 * The one identity behind a credential cookie sent once or several times.
 * Several valid values for different identities mean one was tossed by a
 * sibling canvas host to make its owner's calls run as the attacker: then
 * nobody is signed in (a stale duplicate of the same person is harmless).
 */
async function unambiguous<T>(
  tokens: string[],
  resolve: (token: string) => Promise<T | null>,
  identity: (value: T) => string,
): Promise<{ token: string; value: T } | null> {
  let found: { token: string; value: T } | null = null;
  for (const token of tokens) {
    const value = await resolve(token);
    if (value === null) continue;
    if (found && identity(found.value) !== identity(value)) return null;
    found ??= { token, value };
  }
  return found;
}

/** A session of another host (a canvas's on the base, the base's or another canvas's on a canvas host) counts for nothing. */
function ofHost(s: ResolvedSession, scope: SessionScope): boolean {
  return scope.kind === 'base' ? s.canvasId === null : s.canvasId !== null && s.canvasId === scope.canvasId;
}
