import type { Database } from 'bun:sqlite';
import type { Config } from '../config.ts';
import { serializeCookie } from '../http/cookies.ts';
import { newId, newToken, sha256Hex } from '../ids.ts';

/**
 * Legacy guests (CONTRACT §3): an owner or editor creates an invite link for
 * one canvas; opening it gives a guest session scoped to that canvas, whose
 * principal id is `guest:<inviteId>`. Invite tokens and session tokens are
 * stored as SHA-256 only. Revoking an invite ends its sessions at once.
 */
export const GUEST_COOKIE = 'easel_guest';

export interface GuestIdentity {
  inviteId: string;
  canvasId: string;
  name: string;
}

/** What the Authenticator needs: a session token in, the guest (or null) out. */
export interface GuestSessionResolver {
  resolve(token: string): GuestIdentity | null;
}

export interface GuestInvite {
  inviteId: string;
  canvasId: string;
  name: string;
  createdBy: string;
  createdAt: number;
  revokedAt: number | null;
}

interface InviteRow {
  id: string;
  canvas_id: string;
  name: string;
  created_by: string;
  created_at: number;
  revoked_at: number | null;
}

const toInvite = (r: InviteRow): GuestInvite => ({
  inviteId: r.id,
  canvasId: r.canvas_id,
  name: r.name,
  createdBy: r.created_by,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

export const DEFAULT_GUEST_NAME = 'Guest';

export class GuestStore implements GuestSessionResolver {
  constructor(
    private readonly db: Database,
    private readonly sessionTtlMs: number,
    private readonly now: () => number,
  ) {}

  /** A new invite; the token is returned once and only its hash is kept. */
  createInvite(canvasId: string, createdBy: string, name: string = DEFAULT_GUEST_NAME): { invite: GuestInvite; token: string } {
    const id = newId();
    const token = newToken();
    this.db
      .query('INSERT INTO guest_invites (id, canvas_id, token_hash, name, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(id, canvasId, sha256Hex(token), name, createdBy, this.now());
    return { invite: this.invite(canvasId, id)!, token };
  }

  invite(canvasId: string, inviteId: string): GuestInvite | null {
    const r = this.db
      .query<InviteRow, [string, string]>('SELECT * FROM guest_invites WHERE id = ? AND canvas_id = ?')
      .get(inviteId, canvasId);
    return r ? toInvite(r) : null;
  }

  invites(canvasId: string): GuestInvite[] {
    return this.db
      .query<InviteRow, [string]>('SELECT * FROM guest_invites WHERE canvas_id = ? ORDER BY created_at, id')
      .all(canvasId)
      .map(toInvite);
  }

  /** The live (not revoked) invite behind a link token. */
  inviteByToken(token: string): GuestInvite | null {
    const r = this.db
      .query<InviteRow, [string]>('SELECT * FROM guest_invites WHERE token_hash = ? AND revoked_at IS NULL')
      .get(sha256Hex(token));
    return r ? toInvite(r) : null;
  }

  /** Marks the invite revoked and deletes its sessions; false when the canvas has no such invite. */
  revoke(canvasId: string, inviteId: string): boolean {
    return this.db.transaction(() => {
      const changed = this.db
        .query('UPDATE guest_invites SET revoked_at = coalesce(revoked_at, ?) WHERE id = ? AND canvas_id = ?')
        .run(this.now(), inviteId, canvasId).changes;
      if (changed === 0) return false;
      this.db.query('DELETE FROM guest_sessions WHERE invite_id = ?').run(inviteId);
      return true;
    })();
  }

  createSession(invite: GuestInvite): string {
    const token = newToken();
    const now = this.now();
    this.db
      .query('INSERT INTO guest_sessions (token_hash, invite_id, created_at, expires_at) VALUES (?, ?, ?, ?)')
      .run(sha256Hex(token), invite.inviteId, now, now + this.sessionTtlMs);
    return token;
  }

  destroySession(token: string): void {
    this.db.query('DELETE FROM guest_sessions WHERE token_hash = ?').run(sha256Hex(token));
  }

  /** The guest behind a session token, or null (unknown, expired, or invite revoked). */
  resolve(token: string): GuestIdentity | null {
    const r = this.db
      .query<{ invite_id: string; canvas_id: string; name: string; expires_at: number; revoked_at: number | null }, [string]>(
        `SELECT s.invite_id, s.expires_at, i.canvas_id, i.name, i.revoked_at
         FROM guest_sessions s JOIN guest_invites i ON i.id = s.invite_id WHERE s.token_hash = ?`,
      )
      .get(sha256Hex(token));
    if (!r || r.revoked_at !== null || r.expires_at <= this.now()) return null;
    return { inviteId: r.invite_id, canvasId: r.canvas_id, name: r.name };
  }
}

/** The guest session cookie: like the user session's (HttpOnly, Lax, Path=/), reaching pages and the runtime API. */
export function guestCookie(config: Pick<Config, 'baseUrl' | 'cookieDomain' | 'sessionTtlHours'>, token: string): string {
  return serializeCookie(GUEST_COOKIE, token, {
    maxAgeSeconds: config.sessionTtlHours * 3600,
    secure: config.baseUrl.startsWith('https:'),
    domain: config.cookieDomain,
  });
}
