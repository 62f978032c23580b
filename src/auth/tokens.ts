import type { Database } from 'bun:sqlite';
import type { AuditLog } from '../audit/store.ts';
import { newId, randomBase62, sha256Hex } from '../ids.ts';
import { USER_COLUMNS, toUser, type User } from './users.ts';

export const TOKEN_PREFIX = 'easel_pat_';
const TOKEN = /^easel_pat_[0-9A-Za-z]{40}$/;
/** lastUsedAt moves at most this often: one write a minute per token, not one per request. */
const USE_RECORDED_EVERY_MS = 60_000;

/** A token as listed: never its secret. */
export interface TokenView {
  id: string;
  name: string;
  createdAt: number;
  expiresAt: number | null;
  lastUsedAt: number | null;
}

interface Row {
  id: string;
  user_id: string;
  name: string;
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
}

const view = (r: Row): TokenView => ({
  id: r.id,
  name: r.name,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  lastUsedAt: r.last_used_at,
});

/**
 * Personal access tokens: a script's or an agent's way to act as its user on
 * /api/* and /mcp (never on canvas pages or the runtime API). The secret is
 * shown once at creation and stored as SHA-256.
 */
export class TokenStore {
  constructor(
    private readonly db: Database,
    private readonly now: () => number,
    private readonly audit: AuditLog,
  ) {}

  create(userId: string, name: string, expiresAt: number | null): TokenView & { token: string } {
    const token = TOKEN_PREFIX + randomBase62(40);
    const row: Row = { id: newId(), user_id: userId, name, created_at: this.now(), expires_at: expiresAt, last_used_at: null };
    this.db
      .query('INSERT INTO personal_tokens (id, user_id, name, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(row.id, userId, name, sha256Hex(token), row.created_at, expiresAt);
    return { ...view(row), token };
  }

  list(userId: string): TokenView[] {
    return this.db
      .query<Row, [string]>(
        'SELECT id, user_id, name, created_at, expires_at, last_used_at FROM personal_tokens WHERE user_id = ? ORDER BY created_at, id',
      )
      .all(userId)
      .map(view);
  }

  /** Whether the user had such a token (it is gone now). */
  delete(userId: string, id: string): boolean {
    return this.db.query('DELETE FROM personal_tokens WHERE id = ? AND user_id = ?').run(id, userId).changes > 0;
  }

  /**
   * The active user behind a bearer token and the token's id, or null
   * (malformed, unknown, expired, or the user deactivated). Records the use
   * (lastUsedAt and the audit log) at most once a minute.
   */
  async resolve(token: string): Promise<{ user: User; tokenId: string } | null> {
    if (!TOKEN.test(token)) return null;
    const now = this.now();
    const row = this.db
      .query<Row, [string]>('SELECT id, user_id, name, created_at, expires_at, last_used_at FROM personal_tokens WHERE token_hash = ?')
      .get(sha256Hex(token));
    if (!row || (row.expires_at !== null && row.expires_at <= now)) return null;
    const userRow = this.db
      .query<Parameters<typeof toUser>[0], [string]>(`SELECT ${USER_COLUMNS} FROM users WHERE id = ?`)
      .get(row.user_id);
    if (!userRow || userRow.active !== 1) return null;
    const stale = row.last_used_at === null || now - row.last_used_at >= USE_RECORDED_EVERY_MS;
    if (stale) {
      this.db.query('UPDATE personal_tokens SET last_used_at = ? WHERE id = ?').run(now, row.id);
      // Audited at the pace lastUsedAt moves: who used which token, never the secret.
      await this.audit.record({
        actorId: row.user_id,
        actorKind: 'token',
        canvasId: null,
        action: 'token.used',
        detail: { tokenId: row.id },
      });
    }
    return { user: toUser(userRow), tokenId: row.id };
  }
}
