import type { Config } from '../config.ts';
import { tx, type Sql } from '../db/sql.ts';
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
  resolve(token: string): Promise<GuestIdentity | null>;
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
 * SQL: the invite `i` is live at `?now` and its creator may still manage its
 * canvas: an active user who owns the canvas, is an editor on its list, or is
 * an instance admin (admins are named by email in the configuration, `?admins`
 * their JSON list, or by a provider group the user was in at sign-in,
 * `?adminGroups` the configured groups' JSON list; read by each engine's JSON
 * function).
 */
function liveInvite(engine: Sql['engine'], now: string, admins: string, adminGroups: string): string {
  // The text cast first: Bun.sql would otherwise send the JavaScript string as a JSON string, not as JSON text.
  // Both engines name the element column `value`.
  const elements = (json: string) =>
    engine === 'postgres' ? `jsonb_array_elements_text(CAST(${json} AS TEXT)::jsonb)` : `json_each(${json})`;
  return `i.revoked_at IS NULL AND i.expires_at > ${now}
  AND EXISTS (
    SELECT 1 FROM users u JOIN canvases c ON c.id = i.canvas_id
    WHERE u.id = i.created_by AND u.active = 1 AND (
      c.owner_id = u.id
      OR EXISTS (SELECT 1 FROM canvas_members m WHERE m.canvas_id = c.id AND m.user_id = u.id AND m.role IN ('owner', 'editor'))
      OR lower(u.email) IN (SELECT value FROM ${elements(admins)})
      OR EXISTS (SELECT 1 FROM ${elements('u.admin_groups')} g WHERE g.value IN (SELECT value FROM ${elements(adminGroups)}))
    )
  )`;
}

const INVITE_COLUMNS = 'i.id, i.canvas_id, i.name, i.created_by, i.created_at, i.expires_at, i.revoked_at';

export class GuestStore implements GuestSessionResolver {
  private readonly admins: string;
  private readonly adminGroups: string;
  private readonly queries: { isLive: string; byToken: string; session: string };

  constructor(
    private readonly sql: Sql,
    private readonly sessionTtlMs: number,
    private readonly now: () => number,
    adminEmails: readonly string[] = [],
    adminGroups: readonly string[] = [],
  ) {
    this.admins = JSON.stringify(adminEmails.map((e) => e.toLowerCase()));
    this.adminGroups = JSON.stringify(adminGroups);
    const live = liveInvite(sql.engine, '?2', '?3', '?4');
    this.queries = {
      isLive: `SELECT 1 AS live FROM guest_invites i WHERE i.id = ?1 AND ${live}`,
      byToken: `SELECT ${INVITE_COLUMNS} FROM guest_invites i WHERE i.token_hash = ?1 AND ${live}`,
      session: `SELECT s.invite_id, i.canvas_id, i.name
        FROM guest_sessions s JOIN guest_invites i ON i.id = s.invite_id
        WHERE s.token_hash = ?1 AND s.expires_at > ?2 AND ${live}`,
    };
  }

  /** A new invite; the token is returned once and only its hash is kept. */
  async createInvite(
    canvasId: string,
    createdBy: string,
    name: string = DEFAULT_GUEST_NAME,
    days: number = DEFAULT_INVITE_DAYS,
  ): Promise<{ invite: GuestInvite; token: string }> {
    const id = newId();
    const token = newToken();
    const now = this.now();
    await this.sql.run(
      'INSERT INTO guest_invites (id, canvas_id, token_hash, name, created_by, created_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)',
      id,
      canvasId,
      sha256Hex(token),
      name,
      createdBy,
      now,
      now + days * DAY_MS,
    );
    return { invite: (await this.invite(canvasId, id))!, token };
  }

  /** Whether the invite still opens and keeps sessions: not revoked, not expired, its creator still a manager. */
  async isLive(inviteId: string): Promise<boolean> {
    return (await this.sql.get(this.queries.isLive, inviteId, this.now(), this.admins, this.adminGroups)) !== undefined;
  }

  async invite(canvasId: string, inviteId: string): Promise<GuestInvite | null> {
    const r = await this.sql.get<InviteRow>(
      `SELECT ${INVITE_COLUMNS} FROM guest_invites i WHERE i.id = ?1 AND i.canvas_id = ?2`,
      inviteId,
      canvasId,
    );
    return r ? toInvite(r) : null;
  }

  async invites(canvasId: string): Promise<GuestInvite[]> {
    const rows = await this.sql.all<InviteRow>(
      `SELECT ${INVITE_COLUMNS} FROM guest_invites i WHERE i.canvas_id = ?1 ORDER BY i.created_at, i.id`,
      canvasId,
    );
    return rows.map(toInvite);
  }

  /** The live invite behind a link token (not revoked, not expired, its creator still a manager). */
  async inviteByToken(token: string): Promise<GuestInvite | null> {
    const r = await this.sql.get<InviteRow>(this.queries.byToken, sha256Hex(token), this.now(), this.admins, this.adminGroups);
    return r ? toInvite(r) : null;
  }

  /** Marks the invite revoked and deletes its sessions; false when the canvas has no such invite. */
  revoke(canvasId: string, inviteId: string): Promise<boolean> {
    const now = this.now();
    return this.sql.write(function* () {
      const changed = yield* tx.run(
        'UPDATE guest_invites SET revoked_at = coalesce(revoked_at, ?1) WHERE id = ?2 AND canvas_id = ?3',
        now,
        inviteId,
        canvasId,
      );
      if (changed === 0) return false;
      yield* tx.run('DELETE FROM guest_sessions WHERE invite_id = ?1', inviteId);
      return true;
    });
  }

  /** A guest session; `parentHash` (a canvas host's, from the handoff) ends with the session it came from. */
  async createSession(invite: Pick<GuestInvite, 'inviteId'>, parentHash: string | null = null): Promise<string> {
    const token = newToken();
    const now = this.now();
    await this.sql.run(
      'INSERT INTO guest_sessions (token_hash, invite_id, created_at, expires_at, parent_hash) VALUES (?1, ?2, ?3, ?4, ?5)',
      sha256Hex(token),
      invite.inviteId,
      now,
      now + this.sessionTtlMs,
      parentHash,
    );
    return token;
  }

  /** Ends the session and the canvas host's sessions made from it. */
  async destroySession(token: string): Promise<void> {
    await this.sql.run('DELETE FROM guest_sessions WHERE token_hash = ?1 OR parent_hash = ?1', sha256Hex(token));
  }

  /** The guest behind a session token, or null (unknown or expired session, or an invite no longer live). */
  async resolve(token: string): Promise<GuestIdentity | null> {
    const r = await this.sql.get<{ invite_id: string; canvas_id: string; name: string }>(
      this.queries.session,
      sha256Hex(token),
      this.now(),
      this.admins,
      this.adminGroups,
    );
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
