import type { Config } from '../config.ts';
import { cookieValues, serializeCookie } from '../http/cookies.ts';
import { ipInAny } from '../net/ip.ts';
import { GUEST_COOKIE, type GuestSessionResolver } from './guests.ts';
import { SESSION_COOKIE, type SessionStore } from './sessions.ts';
import { EMAIL, type User, type UserStore } from './users.ts';

/**
 * Who is asking. Later kinds (personal access tokens) extend this union.
 * `guest`: a legacy guest session, scoped to one canvas (src/auth/guests.ts).
 * `anonymous`: a visitor without a session, admitted only by the runtime
 * pipeline for an active Public link canvas (never returned by authenticate).
 */
export type Principal =
  | { kind: 'user'; user: User; via: 'session' | 'proxy' }
  | { kind: 'guest'; inviteId: string; canvasId: string; name: string }
  | { kind: 'anonymous' };

export interface AuthResult {
  principal: Principal | null;
  /** A Set-Cookie to send back (a renewed session). */
  setCookie?: string;
}

/** Turns a request into a principal: session cookie first, then trusted proxy headers. */
export class Authenticator {
  constructor(
    private readonly config: Config,
    private readonly users: UserStore,
    private readonly sessions: SessionStore,
    private readonly guests: GuestSessionResolver | null = null,
  ) {}

  isAdmin(user: User): boolean {
    return this.config.adminEmails.includes(user.email.toLowerCase());
  }

  authenticate(request: Request, ip: string | null): AuthResult {
    if (this.config.authMode === 'proxy') {
      const fromProxy = this.fromProxy(request, ip);
      if (fromProxy) return { principal: fromProxy };
    }
    const header = request.headers.get('cookie');
    const session = unambiguous(
      cookieValues(header, SESSION_COOKIE),
      (token) => this.sessions.resolve(token),
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
      const guest = unambiguous(
        cookieValues(header, GUEST_COOKIE),
        (token) => guests.resolve(token),
        (g) => g.inviteId,
      );
      if (guest) return { principal: { kind: 'guest', ...guest.value } };
    }
    return { principal: null };
  }

  /** Proxy headers count only from trusted addresses; from anywhere else they are ignored. */
  private fromProxy(request: Request, ip: string | null): Principal | null {
    if (!ipInAny(ip, this.config.proxyTrustedCidrs)) return null;
    const email = request.headers.get(this.config.proxyEmailHeader)?.trim();
    if (!email || !EMAIL.test(email)) return null;
    const user = this.users.ensure(email, request.headers.get(this.config.proxyNameHeader));
    return user.active ? { kind: 'user', user, via: 'proxy' } : null;
  }

  sessionCookie(token: string): string {
    return serializeCookie(SESSION_COOKIE, token, {
      maxAgeSeconds: this.config.sessionTtlHours * 3600,
      secure: this.config.baseUrl.startsWith('https:'),
      domain: this.config.cookieDomain,
    });
  }

  clearedSessionCookie(): string {
    return this.cleared(SESSION_COOKIE);
  }

  clearedGuestCookie(): string {
    return this.cleared(GUEST_COOKIE);
  }

  private cleared(name: string): string {
    return serializeCookie(name, '', {
      maxAgeSeconds: 0,
      secure: this.config.baseUrl.startsWith('https:'),
      domain: this.config.cookieDomain,
    });
  }
}

/**
 * The one identity behind a credential cookie sent once or several times.
 * Several valid values for different identities mean one was tossed by a
 * sibling canvas host to make its owner's calls run as the attacker: then
 * nobody is signed in (a stale duplicate of the same person is harmless).
 */
function unambiguous<T>(
  tokens: string[],
  resolve: (token: string) => T | null,
  identity: (value: T) => string,
): { token: string; value: T } | null {
  let found: { token: string; value: T } | null = null;
  for (const token of tokens) {
    const value = resolve(token);
    if (value === null) continue;
    if (found && identity(found.value) !== identity(value)) return null;
    found ??= { token, value };
  }
  return found;
}
