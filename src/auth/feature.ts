// Who people are: accounts, sessions, legacy guests, personal access tokens,
// sign-in handoffs, and the authenticator that reads them from a request.
// Built once (src/foundation.ts); routes and services receive the parts they name.
import type { AuditLog } from '../audit/store.ts';
import type { AppContext } from '../context.ts';
import { GuestStore } from './guests.ts';
import { SignInHandoffs } from './handoff.ts';
import { Authenticator, type SessionScope } from './principal.ts';
import { SessionStore } from './sessions.ts';
import { TokenStore } from './tokens.ts';
import { UserStore } from './users.ts';

export type IdentityDeps = Pick<AppContext, 'sql' | 'now' | 'config'> & {
  /** Token creation and revocation are audited. */
  audit: AuditLog;
  /** Which host a request's session belongs to (auth/session-scope.ts: the base host, or one canvas's host). */
  sessionScope: (request: Request) => SessionScope | Promise<SessionScope>;
};

export class IdentityFeature {
  readonly users: UserStore;
  readonly sessions: SessionStore;
  /** Legacy guest invites and their sessions (CONTRACT §3). */
  readonly guests: GuestStore;
  /** Personal access tokens (scripts and agents on /api/* and /mcp). */
  readonly tokens: TokenStore;
  /** Sign-in handoffs from the base host to canvas hosts (subdomain mode). */
  readonly handoffs: SignInHandoffs;
  readonly auth: Authenticator;

  constructor({ sql, now, config, audit, sessionScope }: IdentityDeps) {
    const sessionMs = config.sessionTtlHours * 3600 * 1000;
    this.users = new UserStore(sql, now);
    this.sessions = new SessionStore(sql, sessionMs, now);
    this.guests = new GuestStore(sql, sessionMs, now, config.adminEmails, config.oidcAdminGroups);
    this.tokens = new TokenStore(sql, now, audit);
    this.handoffs = new SignInHandoffs(sql, now);
    this.auth = new Authenticator(config, this.users, this.sessions, this.guests, sessionScope, this.tokens);
  }
}
