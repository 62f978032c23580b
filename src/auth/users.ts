import { tx, type Sql } from '../db/sql.ts';
import { findsNothing } from '../db/unstorable-text.ts';
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
  /** Admin groups (EASEL_OIDC_ADMIN_GROUPS) the person was in at their last OIDC sign-in. */
  adminGroups: string[];
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
  admin_groups: string;
}

export const USER_COLUMNS = 'id, email, name, avatar_url, active, can_publish_public, org_id, created_at, admin_groups';

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
    adminGroups: JSON.parse(r.admin_groups) as string[],
  };
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

const BY_ID = `SELECT ${USER_COLUMNS} FROM users WHERE id = ?1`;
// The unique index is case-blind on both engines (NOCASE on SQLite, lower(email) on Postgres); emails are stored lower-case.
const BY_EMAIL = `SELECT ${USER_COLUMNS} FROM users WHERE email = ?1`;

/** Users: created on first sign-in (or when added as a member by email). */
export class UserStore {
  constructor(
    private readonly sql: Sql,
    private readonly now: () => number,
  ) {}

  async byId(id: string): Promise<User | null> {
    if (findsNothing(id)) return null;
    const r = await this.sql.get<UserRow>(BY_ID, id);
    return r ? toUser(r) : null;
  }

  async byEmail(email: string): Promise<User | null> {
    const r = await this.sql.get<UserRow>(BY_EMAIL, normalizeEmail(email));
    return r ? toUser(r) : null;
  }

  /**
   * Finds the user with this email or creates one. A name given at sign-in
   * replaces the placeholder a member invitation created. Two first sign-ins
   * at once (on any nodes) make one user: the insert yields to the other.
   */
  async ensure(email: string, name?: string | null): Promise<User> {
    const normalized = normalizeEmail(email);
    const existing = await this.byEmail(normalized);
    const cleanName = name?.trim().slice(0, 200) || null;
    if (existing) {
      if (cleanName && cleanName !== existing.name) {
        await this.sql.run('UPDATE users SET name = ?1 WHERE id = ?2', cleanName, existing.id);
        return { ...existing, name: cleanName };
      }
      return existing;
    }
    await this.sql.run(
      'INSERT INTO users (id, email, name, created_at) VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING',
      newId(),
      normalized,
      cleanName ?? normalized.split('@')[0]!,
      this.now(),
    );
    return (await this.byEmail(normalized))!;
  }

  /** Records the admin groups the provider named at this sign-in (a write only when they changed: it refreshes every node's sessions). */
  async setAdminGroups(user: User, groups: string[]): Promise<User> {
    const sorted = [...new Set(groups)].sort();
    if (JSON.stringify(sorted) === JSON.stringify(user.adminGroups)) return user;
    await this.sql.run('UPDATE users SET admin_groups = ?1 WHERE id = ?2', JSON.stringify(sorted), user.id);
    return { ...user, adminGroups: sorted };
  }

  async list(): Promise<User[]> {
    return (await this.sql.all<UserRow>(`SELECT ${USER_COLUMNS} FROM users ORDER BY created_at, id`)).map(toUser);
  }

  async update(id: string, patch: { active?: boolean; canPublishPublic?: boolean; orgId?: string | null }): Promise<User | null> {
    const { active, canPublishPublic, orgId } = patch;
    await this.sql.write(function* () {
      if (active !== undefined) yield* tx.run('UPDATE users SET active = ?1 WHERE id = ?2', active ? 1 : 0, id);
      if (canPublishPublic !== undefined)
        yield* tx.run('UPDATE users SET can_publish_public = ?1 WHERE id = ?2', canPublishPublic ? 1 : 0, id);
      if (orgId !== undefined) yield* tx.run('UPDATE users SET org_id = ?1 WHERE id = ?2', orgId, id);
    });
    return this.byId(id);
  }

  async ensureOrg(id: string, name = id): Promise<void> {
    await this.sql.run('INSERT INTO orgs (id, name, created_at) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING', id, name, this.now());
  }

  async orgName(id: string): Promise<string | null> {
    return (await this.sql.get<{ name: string }>('SELECT name FROM orgs WHERE id = ?1', id))?.name ?? null;
  }
}
