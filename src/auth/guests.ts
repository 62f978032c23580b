import type { Database } from 'bun:sqlite';
import type { Config } from '../config.ts';
import { serializeCookie } from '../http/cookies.ts';
import { guestCookieName, secureCookies } from './cookie-names.ts';
import { newId, newToken, sha256Hex } from '../ids.ts';

/**
 * Legacy guests (CONTRACT §3): an owner or editor creates an invite link for
 * one canvas; opening it gives a guest session scoped to that canvas, whose
 * principal id is `guest:<inviteId>`. Invite tokens and session tokens are
 * stored as SHA-256 only. An invite (and every session it opened) stops
 * working when it is revoked, when it expires, and as soon as its creator
 * may no longer manage the canvas (removed from the list, demoted to viewer,
 * deactivated; CONTRACT §9).
 */

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
  expiresAt: number;
  revokedAt: number | null;
}

interface InviteRow {
  id: string;
  canvas_id: string;
  name: string;
  created_by: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}

const toInvite = (r: InviteRow): GuestInvite => ({
  inviteId: r.id,
  canvasId: r.canvas_id,
  name: r.name,
  createdBy: r.created_by,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
});

export const DEFAULT_GUEST_NAME = 'Guest';
/** How long an invite link works unless its creator says otherwise (CONTRACT §9). */
export const DEFAULT_INVITE_DAYS = 14;
export const MAX_INVITE_DAYS = 365;
const DAY_MS = 24 * 3600 * 1000;

/**
 * SQL: the invite `i` is live and its creator may still manage its canvas:
 * an active user who owns the canvas, is an editor on its list, or is an
 * instance admin (admins are named by email in the configuration: `?` is
 * their JSON list).
 */
const LIVE_INVITE = `i.revoked_at IS NULL AND i.expires_at > ?
  AND EXISTS (
    SELECT 1 FROM users u JOIN canvases c ON c.id = i.canvas_id
    WHERE u.id = i.created_by AND u.active = 1 AND (
      c.owner_id = u.id
      OR EXISTS (SELECT 1 FROM canvas_members m WHERE m.canvas_id = c.id AND m.user_id = u.id AND m.role IN ('owner', 'editor'))
      OR lower(u.email) IN (SELECT value FROM json_each(?))
    )
  )`;

export class GuestStore implements GuestSessionResolver {
  private readonly admins: string;

  constructor(
    private readonly db: Database,
    private readonly sessionTtlMs: number,
    private readonly now: () => number,
    adminEmails: readonly string[] = [],
  ) {
    this.admins = JSON.stringify(adminEmails.map((e) => e.toLowerCase()));
  }

  /** A new invite; the token is returned once and only its hash is kept. */
  createInvite(
    canvasId: string,
    createdBy: string,
    name: string = DEFAULT_GUEST_NAME,
    days: number = DEFAULT_INVITE_DAYS,
  ): { invite: GuestInvite; token: string } {
    const id = newId();
    const token = newToken();
    const now = this.now();
    this.db
      .query('INSERT INTO guest_invites (id, canvas_id, token_hash, name, created_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(id, canvasId, sha256Hex(token), name, createdBy, now, now + days * DAY_MS);
    return { invite: this.invite(canvasId, id)!, token };
  }

  /** Whether the invite still opens and keeps sessions: not revoked, not expired, its creator still a manager. */
  isLive(inviteId: string): boolean {
    return this.db.query(`SELECT 1 FROM guest_invites i WHERE i.id = ? AND ${LIVE_INVITE}`).get(inviteId, this.now(), this.admins) !== null;
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

  /** The live invite behind a link token (not revoked, not expired, its creator still a manager). */
  inviteByToken(token: string): GuestInvite | null {
    const r = this.db
      .query<InviteRow, [string, number, string]>(`SELECT i.* FROM guest_invites i WHERE i.token_hash = ? AND ${LIVE_INVITE}`)
      .get(sha256Hex(token), this.now(), this.admins);
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

  /** A guest session; `parentHash` (a canvas host's, from the handoff) ends with the session it came from. */
  createSession(invite: Pick<GuestInvite, 'inviteId'>, parentHash: string | null = null): string {
    const token = newToken();
    const now = this.now();
    this.db
      .query('INSERT INTO guest_sessions (token_hash, invite_id, created_at, expires_at, parent_hash) VALUES (?, ?, ?, ?, ?)')
      .run(sha256Hex(token), invite.inviteId, now, now + this.sessionTtlMs, parentHash);
    return token;
  }

  /** Ends the session and the canvas host's sessions made from it. */
  destroySession(token: string): void {
    this.db.query('DELETE FROM guest_sessions WHERE token_hash = ?1 OR parent_hash = ?1').run(sha256Hex(token));
  }

  /** The guest behind a session token, or null (unknown or expired session, or an invite no longer live). */
  resolve(token: string): GuestIdentity | null {
    const now = this.now();
    const r = this.db
      .query<{ invite_id: string; canvas_id: string; name: string }, [string, number, number, string]>(
        `SELECT s.invite_id, i.canvas_id, i.name
         FROM guest_sessions s JOIN guest_invites i ON i.id = s.invite_id
         WHERE s.token_hash = ? AND s.expires_at > ? AND ${LIVE_INVITE}`,
      )
      .get(sha256Hex(token), now, now, this.admins);
    return r ? { inviteId: r.invite_id, canvasId: r.canvas_id, name: r.name } : null;
  }
}

/** The guest session cookie: like the user session's (HttpOnly, Lax, Path=/, host-only), reaching pages and the runtime API. */
export function guestCookie(config: Pick<Config, 'baseUrl' | 'sessionTtlHours'>, token: string): string {
  return serializeCookie(guestCookieName(config), token, {
    maxAgeSeconds: config.sessionTtlHours * 3600,
    secure: secureCookies(config),
  });
}
