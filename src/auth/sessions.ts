import type { Database } from 'bun:sqlite';
import { randomBase62, sha256Hex } from '../ids.ts';
import { USER_COLUMNS, toUser, type User } from './users.ts';

export const SESSION_COOKIE = 'easel_session';

/** Renew (slide the expiry) at most this often per session: one write per hour, not per request. */
const RENEW_EVERY_MS = 60 * 60 * 1000;

export interface ResolvedSession {
  user: User;
  /** Set when the expiry slid forward and the cookie should be re-sent. */
  renewed: boolean;
}

/** Sessions stored as SHA-256 of the cookie value, with a sliding expiry. */
export class SessionStore {
  constructor(
    private readonly db: Database,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  create(userId: string): string {
    const token = randomBase62(43);
    const now = this.now();
    this.db
      .query('INSERT INTO sessions (token_hash, user_id, created_at, expires_at, renewed_at) VALUES (?, ?, ?, ?, ?)')
      .run(sha256Hex(token), userId, now, now + this.ttlMs, now);
    return token;
  }

  /** The active user behind a session token, or null (unknown, expired, or user deactivated). */
  resolve(token: string): ResolvedSession | null {
    const hash = sha256Hex(token);
    const row = this.db
      .query<Record<string, never> & { expires_at: number; renewed_at: number } & Parameters<typeof toUser>[0], [string]>(
        `SELECT s.expires_at, s.renewed_at, ${USER_COLUMNS.split(', ').map((c) => 'u.' + c).join(', ')}
         FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = ?`,
      )
      .get(hash);
    const now = this.now();
    if (!row || row.active !== 1) return null;
    if (row.expires_at <= now) {
      this.db.query('DELETE FROM sessions WHERE token_hash = ?').run(hash);
      return null;
    }
    let renewed = false;
    if (now - row.renewed_at >= RENEW_EVERY_MS) {
      this.db.query('UPDATE sessions SET expires_at = ?, renewed_at = ? WHERE token_hash = ?').run(now + this.ttlMs, now, hash);
      renewed = true;
    }
    return { user: toUser(row), renewed };
  }

  destroy(token: string): void {
    this.db.query('DELETE FROM sessions WHERE token_hash = ?').run(sha256Hex(token));
  }

  destroyAllFor(userId: string): void {
    this.db.query('DELETE FROM sessions WHERE user_id = ?').run(userId);
  }

  purgeExpired(): number {
    return this.db.query('DELETE FROM sessions WHERE expires_at <= ?').run(this.now()).changes;
  }
}
