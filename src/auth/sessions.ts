import type { Database } from 'bun:sqlite';
import { DataVersion } from '../db/data-version.ts';
import { VersionedCache } from '../db/versioned-cache.ts';
import { randomBase62 } from '../ids.ts';
import { USER_COLUMNS, toUser, type User } from './users.ts';

/** Renew (slide the expiry) at most this often per session: one write per hour, not per request. */
const RENEW_EVERY_MS = 60 * 60 * 1000;
const CACHE_MAX_ENTRIES = 10_000;

export interface ResolvedSession {
  user: User;
  /** The canvas whose host this session belongs to; null for the base host's. */
  canvasId: string | null;
  /** Set when the expiry slid forward and the cookie should be re-sent. */
  renewed: boolean;
}

interface Cached {
  user: User;
  canvasId: string | null;
  expiresAt: number;
  renewedAt: number;
}

type SessionRow = { user_id: string; expires_at: number; renewed_at: number; canvas_id: string | null };

/**
 * The stored form of a token: hex SHA-256, the same digest as ids.ts's
 * sha256Hex. Bun's one-shot hasher takes a third of the time of a
 * CryptoHasher object, and this runs on every request with a session.
 */
export function sessionTokenHash(token: string): string {
  return Bun.SHA256.hash(token, 'hex');
}

// Built once: a query string made per call costs a statement-cache lookup on a fresh string.
const SESSION_BY_HASH = 'SELECT user_id, expires_at, renewed_at, canvas_id FROM sessions WHERE token_hash = ?';
const USER_BY_ID = `SELECT ${USER_COLUMNS} FROM users WHERE id = ?`;

/**
 * Sessions stored as SHA-256 of the cookie value, with a sliding expiry.
 * Resolved sessions stay in memory while DataVersion says neither sessions
 * nor users changed: a request then costs a hash and a Map lookup instead of
 * two reads. Logout, deactivation and renewal are writes, so each one makes
 * every entry stale at once.
 */
export class SessionStore {
  /** By token hash: the raw token is never kept. */
  private readonly cache: VersionedCache<Cached>;

  constructor(
    private readonly db: Database,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {
    this.cache = new VersionedCache(DataVersion.of(db), now, CACHE_MAX_ENTRIES);
  }

  /**
   * A new session token. With `canvas`, a canvas host's session: valid on
   * that canvas's host only, and ended with the base session it came from.
   */
  create(userId: string, canvas?: { canvasId: string; parentHash: string }): string {
    const token = randomBase62(43);
    const now = this.now();
    this.db
      .query(
        'INSERT INTO sessions (token_hash, user_id, created_at, expires_at, renewed_at, canvas_id, parent_hash) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(sessionTokenHash(token), userId, now, now + this.ttlMs, now, canvas?.canvasId ?? null, canvas?.parentHash ?? null);
    return token;
  }

  /** The active user behind a session token, or null (unknown, expired, or user deactivated). */
  resolve(token: string): ResolvedSession | null {
    const hash = sessionTokenHash(token);
    const now = this.now();
    const hit = this.cache.peek(hash);
    // Near expiry or renewal, fall through: those are decided on the rows, like an uncached lookup.
    if (hit && hit.expiresAt > now && now - hit.renewedAt < RENEW_EVERY_MS)
      return { user: hit.user, canvasId: hit.canvasId, renewed: false };
    // Two primary-key reads: measured about 3x faster than the equivalent JOIN in bun:sqlite.
    const row = this.db.query<SessionRow, [string]>(SESSION_BY_HASH).get(hash);
    if (!row) return null;
    if (row.expires_at <= now) {
      this.db.query('DELETE FROM sessions WHERE token_hash = ?').run(hash);
      return null;
    }
    const userRow = this.db.query<Parameters<typeof toUser>[0], [string]>(USER_BY_ID).get(row.user_id);
    if (!userRow || userRow.active !== 1) return null;
    let { expires_at: expiresAt, renewed_at: renewedAt } = row;
    let renewed = false;
    if (now - renewedAt >= RENEW_EVERY_MS) {
      expiresAt = now + this.ttlMs;
      renewedAt = now;
      this.db.query('UPDATE sessions SET expires_at = ?, renewed_at = ? WHERE token_hash = ?').run(expiresAt, renewedAt, hash);
      renewed = true;
    }
    const user = toUser(userRow);
    // Tagged with the version after the renewal's own write.
    this.cache.put(hash, { user, canvasId: row.canvas_id, expiresAt, renewedAt });
    return { user, canvasId: row.canvas_id, renewed };
  }

  /** Ends the session and the canvas hosts' sessions made from it. */
  destroy(token: string): void {
    const hash = sessionTokenHash(token);
    this.db.query('DELETE FROM sessions WHERE token_hash = ?1 OR parent_hash = ?1').run(hash);
  }

  destroyAllFor(userId: string): void {
    this.db.query('DELETE FROM sessions WHERE user_id = ?').run(userId);
  }

  purgeExpired(): number {
    return this.db.query('DELETE FROM sessions WHERE expires_at <= ?').run(this.now()).changes;
  }
}
