import type { Config } from '../config.ts';
import { parseCookies, serializeCookie } from '../http/cookies.ts';
import { ipInAny } from './cidr.ts';
import { SESSION_COOKIE, type SessionStore } from './sessions.ts';
import { EMAIL, type User, type UserStore } from './users.ts';

/**
 * Who is asking. Later kinds (legacy guests, the anonymous Public-link
 * visitor, personal access tokens) extend this union.
 */
export type Principal = { kind: 'user'; user: User; via: 'session' | 'proxy' };

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
  ) {}

  isAdmin(user: User): boolean {
    return this.config.adminEmails.includes(user.email.toLowerCase());
  }

  authenticate(request: Request, ip: string | null): AuthResult {
    if (this.config.authMode === 'proxy') {
      const fromProxy = this.fromProxy(request, ip);
      if (fromProxy) return { principal: fromProxy };
    }
    const token = parseCookies(request.headers.get('cookie')).get(SESSION_COOKIE);
    if (token) {
      const session = this.sessions.resolve(token);
      if (session) {
        return {
          principal: { kind: 'user', user: session.user, via: 'session' },
          setCookie: session.renewed ? this.sessionCookie(token) : undefined,
        };
      }
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
    return serializeCookie(SESSION_COOKIE, '', {
      maxAgeSeconds: 0,
      secure: this.config.baseUrl.startsWith('https:'),
      domain: this.config.cookieDomain,
    });
  }
}
