import type { Database } from 'bun:sqlite';
import { newId } from '../ids.ts';

export interface User {
  id: string;
  email: string;
  name: string;
  avatarUrl: string | null;
  active: boolean;
  canPublishPublic: boolean;
  orgId: string | null;
  createdAt: number;
}

interface UserRow {
  id: string;
  email: string;
  name: string;
  avatar_url: string | null;
  active: number;
  can_publish_public: number;
  org_id: string | null;
  created_at: number;
}

export const USER_COLUMNS = 'id, email, name, avatar_url, active, can_publish_public, org_id, created_at';

export function toUser(r: UserRow): User {
  return {
    id: r.id,
    email: r.email,
    name: r.name,
    avatarUrl: r.avatar_url,
    active: r.active === 1,
    canPublishPublic: r.can_publish_public === 1,
    orgId: r.org_id,
    createdAt: r.created_at,
  };
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

/** Users: created on first sign-in (or when added as a member by email). */
export class UserStore {
  constructor(
    private readonly db: Database,
    private readonly now: () => number,
  ) {}

  byId(id: string): User | null {
    const r = this.db.query<UserRow, [string]>(`SELECT ${USER_COLUMNS} FROM users WHERE id = ?`).get(id);
    return r ? toUser(r) : null;
  }

  byEmail(email: string): User | null {
    const r = this.db.query<UserRow, [string]>(`SELECT ${USER_COLUMNS} FROM users WHERE email = ?`).get(normalizeEmail(email));
    return r ? toUser(r) : null;
  }

  /**
   * Finds the user with this email or creates one. A name given at sign-in
   * replaces the placeholder a member invitation created.
   */
  ensure(email: string, name?: string | null): User {
    const normalized = normalizeEmail(email);
    const existing = this.byEmail(normalized);
    const cleanName = name?.trim().slice(0, 200) || null;
    if (existing) {
      if (cleanName && cleanName !== existing.name) {
        this.db.query('UPDATE users SET name = ? WHERE id = ?').run(cleanName, existing.id);
        return { ...existing, name: cleanName };
      }
      return existing;
    }
    const id = newId();
    this.db
      .query('INSERT INTO users (id, email, name, created_at) VALUES (?, ?, ?, ?) ON CONFLICT(email) DO NOTHING')
      .run(id, normalized, cleanName ?? normalized.split('@')[0]!, this.now());
    return this.byEmail(normalized)!;
  }

  list(): User[] {
    return this.db.query<UserRow, []>(`SELECT ${USER_COLUMNS} FROM users ORDER BY created_at, id`).all().map(toUser);
  }

  update(id: string, patch: { active?: boolean; canPublishPublic?: boolean; orgId?: string | null }): User | null {
    if (patch.active !== undefined) this.db.query('UPDATE users SET active = ? WHERE id = ?').run(patch.active ? 1 : 0, id);
    if (patch.canPublishPublic !== undefined)
      this.db.query('UPDATE users SET can_publish_public = ? WHERE id = ?').run(patch.canPublishPublic ? 1 : 0, id);
    if (patch.orgId !== undefined) this.db.query('UPDATE users SET org_id = ? WHERE id = ?').run(patch.orgId, id);
    return this.byId(id);
  }

  ensureOrg(id: string, name = id): void {
    this.db.query('INSERT INTO orgs (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT(id) DO NOTHING').run(id, name, this.now());
  }

  orgName(id: string): string | null {
    return this.db.query<{ name: string }, [string]>('SELECT name FROM orgs WHERE id = ?').get(id)?.name ?? null;
  }
}
