import type { Database } from 'bun:sqlite';
import { likeLiteral } from '../db/like.ts';
import type { AccessMode, Audience, Canvas, CanvasRole } from './record.ts';

interface CanvasRow {
  id: string;
  slug: string;
  title: string;
  owner_id: string;
  access_mode: AccessMode;
  password_hash: string | null;
  password_version: number;
  expires_at: number | null;
  publication_token: string;
  current_version_id: string | null;
  cap_backend: number;
  cap_kv: number;
  cap_files: number;
  cap_ai: number;
  cap_realtime: number;
  cap_authoring: number;
  ai_audience: Audience;
  connections_audience: Audience;
  guest_ai: number;
  guest_ai_monthly_usd: number;
  service_workers: number;
  runtime_policy: string | null;
  runtime_policy_revision: string | null;
  archived_at: number | null;
  disabled_at: number | null;
  disabled_reason: string | null;
  deleted_at: number | null;
  created_at: number;
  updated_at: number;
}

function toCanvas(r: CanvasRow): Canvas {
  return {
    id: r.id,
    slug: r.slug,
    title: r.title,
    ownerId: r.owner_id,
    accessMode: r.access_mode,
    hasPassword: r.password_hash !== null,
    passwordVersion: r.password_version,
    expiresAt: r.expires_at,
    publicationToken: r.publication_token,
    currentVersionId: r.current_version_id,
    capabilities: {
      backend: r.cap_backend === 1,
      kv: r.cap_kv === 1,
      files: r.cap_files === 1,
      ai: r.cap_ai === 1,
      realtime: r.cap_realtime === 1,
      authoring: r.cap_authoring === 1,
    },
    aiAudience: r.ai_audience,
    connectionsAudience: r.connections_audience,
    guestAi: r.guest_ai === 1,
    guestAiMonthlyUsd: r.guest_ai_monthly_usd,
    serviceWorkers: r.service_workers === 1,
    runtimePolicy: r.runtime_policy === null ? null : JSON.parse(r.runtime_policy),
    runtimePolicyRevision: r.runtime_policy_revision,
    archivedAt: r.archived_at,
    disabledAt: r.disabled_at,
    disabledReason: r.disabled_reason,
    deletedAt: r.deleted_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export interface NewCanvas {
  id: string;
  slug: string;
  title: string;
  ownerId: string;
  keyHash: string;
  publicationToken: string;
  now: number;
}

/** SQL for canvases and their members. Rules live in the services; this file only reads and writes rows. */
export class CanvasStore {
  constructor(private readonly db: Database) {}

  /** By id, including archived and disabled, excluding deleted. */
  byId(id: string): Canvas | null {
    const r = this.db.query<CanvasRow, [string]>('SELECT * FROM canvases WHERE id = ? AND deleted_at IS NULL').get(id);
    return r ? toCanvas(r) : null;
  }

  bySlug(slug: string): Canvas | null {
    const r = this.db.query<CanvasRow, [string]>('SELECT * FROM canvases WHERE slug = ? AND deleted_at IS NULL').get(slug);
    return r ? toCanvas(r) : null;
  }

  /** The canvas a deploy key hash belongs to (deleted ones included, so callers can tell "gone" from "unknown"). */
  byKeyHash(keyHash: string): Canvas | null {
    const r = this.db.query<CanvasRow, [string]>('SELECT * FROM canvases WHERE key_hash = ?').get(keyHash);
    return r ? toCanvas(r) : null;
  }

  slugTaken(slug: string): boolean {
    return this.db.query('SELECT 1 FROM canvases WHERE slug = ? AND deleted_at IS NULL').get(slug) !== null;
  }

  insert(c: NewCanvas): Canvas {
    this.db
      .query(
        `INSERT INTO canvases (id, slug, title, owner_id, key_hash, publication_token, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(c.id, c.slug, c.title, c.ownerId, c.keyHash, c.publicationToken, c.now, c.now);
    return this.byId(c.id)!;
  }

  passwordHash(id: string): string | null {
    return (
      this.db.query<{ password_hash: string | null }, [string]>('SELECT password_hash FROM canvases WHERE id = ?').get(id)?.password_hash ??
      null
    );
  }

  /** Writes the given columns (snake_case names from the schema) and bumps updated_at. */
  update(id: string, columns: Partial<Record<keyof CanvasRow | 'key_hash', string | number | null>>, now: number): void {
    const entries = Object.entries(columns).filter(([, v]) => v !== undefined);
    const sets = [...entries.map(([k]) => `${k} = ?`), 'updated_at = ?'].join(', ');
    this.db.query(`UPDATE canvases SET ${sets} WHERE id = ?`).run(...(entries.map(([, v]) => v) as Array<string | number | null>), now, id);
  }

  /** The user's role on the canvas: owner, a member role, or null. */
  roleOf(canvas: Pick<Canvas, 'id' | 'ownerId'>, userId: string): CanvasRole | null {
    if (canvas.ownerId === userId) return 'owner';
    const r = this.db
      .query<{ role: 'editor' | 'viewer' }, [string, string]>('SELECT role FROM canvas_members WHERE canvas_id = ? AND user_id = ?')
      .get(canvas.id, userId);
    return r?.role ?? null;
  }

  members(canvasId: string): Array<{ userId: string; email: string; name: string; role: 'editor' | 'viewer' }> {
    return this.db
      .query<{ user_id: string; email: string; name: string; role: 'editor' | 'viewer' }, [string]>(
        `SELECT m.user_id, u.email, u.name, m.role FROM canvas_members m JOIN users u ON u.id = m.user_id
         WHERE m.canvas_id = ? ORDER BY m.added_at, u.email`,
      )
      .all(canvasId)
      .map((r) => ({ userId: r.user_id, email: r.email, name: r.name, role: r.role }));
  }

  setMember(canvasId: string, userId: string, role: 'editor' | 'viewer', now: number): void {
    this.db
      .query(
        'INSERT INTO canvas_members (canvas_id, user_id, role, added_at) VALUES (?, ?, ?, ?) ON CONFLICT(canvas_id, user_id) DO UPDATE SET role = excluded.role',
      )
      .run(canvasId, userId, role, now);
  }

  removeMember(canvasId: string, userId: string): boolean {
    return this.db.query('DELETE FROM canvas_members WHERE canvas_id = ? AND user_id = ?').run(canvasId, userId).changes > 0;
  }

  /**
   * Every canvas (not deleted), newest first, for instance admins: `query`
   * matches the title, slug or owner's email (case-insensitive), at most `limit`.
   */
  search(query: string, limit: number): Canvas[] {
    const like = `%${likeLiteral(query.toLowerCase())}%`;
    return this.db
      .query<CanvasRow, [string, string, string, number]>(
        `SELECT c.* FROM canvases c JOIN users u ON u.id = c.owner_id
         WHERE c.deleted_at IS NULL AND (lower(c.title) LIKE ?1 ESCAPE '\\' OR c.slug LIKE ?2 ESCAPE '\\' OR lower(u.email) LIKE ?3 ESCAPE '\\')
         ORDER BY c.created_at DESC, c.id LIMIT ?4`,
      )
      .all(like, like, like, limit)
      .map(toCanvas);
  }

  /** Canvases the user owns or is a member of (not deleted). */
  listFor(userId: string): Canvas[] {
    return this.db
      .query<CanvasRow, [string, string]>(
        `SELECT * FROM canvases WHERE deleted_at IS NULL AND (owner_id = ? OR id IN (SELECT canvas_id FROM canvas_members WHERE user_id = ?))
         ORDER BY created_at DESC, id`,
      )
      .all(userId, userId)
      .map(toCanvas);
  }
}
