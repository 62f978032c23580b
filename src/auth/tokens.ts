import type { AuditLog } from '../audit/store.ts';
import type { Sql } from '../db/sql.ts';
import { findsNothing } from '../db/unstorable-text.ts';
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

const COLUMNS = 'id, user_id, name, created_at, expires_at, last_used_at';

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
    private readonly sql: Sql,
    private readonly now: () => number,
    private readonly audit: AuditLog,
  ) {}

  async create(userId: string, name: string, expiresAt: number | null): Promise<TokenView & { token: string }> {
    const token = TOKEN_PREFIX + randomBase62(40);
    const row: Row = { id: newId(), user_id: userId, name, created_at: this.now(), expires_at: expiresAt, last_used_at: null };
    await this.sql.run(
      'INSERT INTO personal_tokens (id, user_id, name, token_hash, created_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)',
      row.id,
      userId,
      name,
      sha256Hex(token),
      row.created_at,
      expiresAt,
    );
    return { ...view(row), token };
  }

  async list(userId: string): Promise<TokenView[]> {
    return (await this.sql.all<Row>(`SELECT ${COLUMNS} FROM personal_tokens WHERE user_id = ?1 ORDER BY created_at, id`, userId)).map(view);
  }

  /** Whether the user had such a token (it is gone now). */
  async delete(userId: string, id: string): Promise<boolean> {
    if (findsNothing(id)) return false;
    return (await this.sql.run('DELETE FROM personal_tokens WHERE id = ?1 AND user_id = ?2', id, userId)) > 0;
  }

  /**
   * The active user behind a bearer token and the token's id, or null
   * (malformed, unknown, expired, or the user deactivated). Records the use
   * (lastUsedAt and the audit log) at most once a minute.
   */
  async resolve(token: string): Promise<{ user: User; tokenId: string } | null> {
    if (!TOKEN.test(token)) return null;
    const now = this.now();
    const row = await this.sql.get<Row>(`SELECT ${COLUMNS} FROM personal_tokens WHERE token_hash = ?1`, sha256Hex(token));
    if (!row || (row.expires_at !== null && row.expires_at <= now)) return null;
    const userRow = await this.sql.get<Parameters<typeof toUser>[0]>(`SELECT ${USER_COLUMNS} FROM users WHERE id = ?1`, row.user_id);
    if (!userRow || userRow.active !== 1) return null;
    // Whoever moves lastUsedAt (one request of many at once, on any node) records the use.
    const recorded =
      (await this.sql.run(
        'UPDATE personal_tokens SET last_used_at = ?1 WHERE id = ?2 AND (last_used_at IS NULL OR last_used_at <= ?3)',
        now,
        row.id,
        now - USE_RECORDED_EVERY_MS,
      )) > 0;
    if (recorded) {
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
