import { containsPattern } from '../db/like.ts';
import { findsNothing } from '../db/unstorable-text.ts';
import { tx, type Sql, type SqlValue, type TxSteps } from '../db/sql.ts';
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

/** The canvases in person ?1's list: theirs, and those whose people list names them (never deleted ones). */
export const LISTED_FOR = 'deleted_at IS NULL AND (owner_id = ?1 OR id IN (SELECT canvas_id FROM canvas_members WHERE user_id = ?1))';
/** The ids of the canvases in user ?1's list, for `canvas_id IN (…)`: the home list's grouped reads (facts, AI spend, authoring). */
export const LISTED_IDS = `SELECT id FROM canvases WHERE ${LISTED_FOR}`;

export interface NewCanvas {
  id: string;
  slug: string;
  title: string;
  ownerId: string;
  keyHash: string;
  publicationToken: string;
  now: number;
}

export type CanvasColumns = Partial<Record<keyof CanvasRow | 'key_hash' | 'listed_for_access' | 'gallery_listed', SqlValue>>;

export interface MemberRow {
  userId: string;
  email: string;
  name: string;
  role: 'editor' | 'viewer';
}

const one = (r: CanvasRow | undefined): Canvas | null => (r ? toCanvas(r) : null);

/**
 * Canvas and member rows as transaction steps (`yield* canvasRows.byId(id)`),
 * for bodies that read and write them with other tables in one transaction.
 * Rules live in the services; this file only reads and writes rows.
 */
export const canvasRows = {
  /** By id, including archived and disabled, excluding deleted. */
  *byId(id: string): TxSteps<Canvas | null> {
    if (findsNothing(id)) return null;
    return one(yield* tx.get<CanvasRow>('SELECT * FROM canvases WHERE id = ?1 AND deleted_at IS NULL', id));
  },

  *bySlug(slug: string): TxSteps<Canvas | null> {
    if (findsNothing(slug)) return null;
    return one(yield* tx.get<CanvasRow>('SELECT * FROM canvases WHERE slug = ?1 AND deleted_at IS NULL', slug));
  },

  /** The canvas a deploy key hash belongs to (deleted ones included, so callers can tell "gone" from "unknown"). */
  *byKeyHash(keyHash: string): TxSteps<Canvas | null> {
    return one(yield* tx.get<CanvasRow>('SELECT * FROM canvases WHERE key_hash = ?1', keyHash));
  },

  *slugTaken(slug: string): TxSteps<boolean> {
    return (yield* tx.get('SELECT 1 AS taken FROM canvases WHERE slug = ?1 AND deleted_at IS NULL', slug)) !== undefined;
  },

  *ownedCount(ownerId: string): TxSteps<number> {
    return (yield* tx.get<{ n: number }>('SELECT count(*) AS n FROM canvases WHERE owner_id = ?1 AND deleted_at IS NULL', ownerId))!.n;
  },

  *insert(c: NewCanvas): TxSteps<Canvas> {
    yield* tx.run(
      `INSERT INTO canvases (id, slug, title, owner_id, key_hash, publication_token, created_at, updated_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)`,
      c.id,
      c.slug,
      c.title,
      c.ownerId,
      c.keyHash,
      c.publicationToken,
      c.now,
    );
    return (yield* canvasRows.byId(c.id))!;
  },

  *passwordHash(id: string): TxSteps<string | null> {
    return (yield* tx.get<{ password_hash: string | null }>('SELECT password_hash FROM canvases WHERE id = ?1', id))?.password_hash ?? null;
  },

  /** Writes the given columns (snake_case names from the schema) and bumps updated_at. */
  *update(id: string, columns: CanvasColumns, now: number): TxSteps<void> {
    const entries = Object.entries(columns).filter(([, v]) => v !== undefined) as Array<[string, SqlValue]>;
    const sets = [...entries.map(([k], i) => `${k} = ?${i + 1}`), `updated_at = ?${entries.length + 1}`].join(', ');
    yield* tx.run(`UPDATE canvases SET ${sets} WHERE id = ?${entries.length + 2}`, ...entries.map(([, v]) => v), now, id);
  },

  /** The user's role on the canvas: owner, a member role, or null. */
  *roleOf(canvas: Pick<Canvas, 'id' | 'ownerId'>, userId: string): TxSteps<CanvasRole | null> {
    if (canvas.ownerId === userId) return 'owner';
    const r = yield* tx.get<{ role: 'editor' | 'viewer' }>(
      'SELECT role FROM canvas_members WHERE canvas_id = ?1 AND user_id = ?2',
      canvas.id,
      userId,
    );
    return r?.role ?? null;
  },

  *members(canvasId: string): TxSteps<MemberRow[]> {
    const rows = yield* tx.all<{ user_id: string; email: string; name: string; role: 'editor' | 'viewer' }>(
      `SELECT m.user_id, u.email, u.name, m.role FROM canvas_members m JOIN users u ON u.id = m.user_id
       WHERE m.canvas_id = ?1 ORDER BY m.added_at, u.email`,
      canvasId,
    );
    return rows.map((r) => ({ userId: r.user_id, email: r.email, name: r.name, role: r.role }));
  },

  *setMember(canvasId: string, userId: string, role: 'editor' | 'viewer', now: number): TxSteps<void> {
    yield* tx.run(
      `INSERT INTO canvas_members (canvas_id, user_id, role, added_at) VALUES (?1, ?2, ?3, ?4)
       ON CONFLICT (canvas_id, user_id) DO UPDATE SET role = excluded.role`,
      canvasId,
      userId,
      role,
      now,
    );
  },

  *removeMember(canvasId: string, userId: string): TxSteps<boolean> {
    return (yield* tx.run('DELETE FROM canvas_members WHERE canvas_id = ?1 AND user_id = ?2', canvasId, userId)) > 0;
  },

  /**
   * Every canvas (not deleted), newest first, for instance admins: `query`
   * matches the title, slug or owner's email (case-insensitive), at most `limit`.
   */
  *search(query: string, limit: number): TxSteps<Canvas[]> {
    if (findsNothing(query)) return [];
    const like = containsPattern(query);
    const rows = yield* tx.all<CanvasRow>(
      `SELECT c.* FROM canvases c JOIN users u ON u.id = c.owner_id
       WHERE c.deleted_at IS NULL AND (easel_fold(c.title) LIKE ?1 ESCAPE '\\' OR c.slug LIKE ?1 ESCAPE '\\' OR easel_fold(u.email) LIKE ?1 ESCAPE '\\')
       ORDER BY c.created_at DESC, c.id LIMIT ?2`,
      like,
      limit,
    );
    return rows.map(toCanvas);
  },

  /** Canvases the user owns or is a member of (not deleted). */
  *listFor(userId: string): TxSteps<Canvas[]> {
    const rows = yield* tx.all<CanvasRow>(`SELECT * FROM canvases WHERE ${LISTED_FOR} ORDER BY created_at DESC, id`, userId);
    return rows.map(toCanvas);
  },
};

/** The same rows read or written on their own (no surrounding transaction). */
export class CanvasStore {
  constructor(private readonly sql: Sql) {}

  byId(id: string): Promise<Canvas | null> {
    return this.sql.autocommit(() => canvasRows.byId(id));
  }

  bySlug(slug: string): Promise<Canvas | null> {
    return this.sql.autocommit(() => canvasRows.bySlug(slug));
  }

  byKeyHash(keyHash: string): Promise<Canvas | null> {
    return this.sql.autocommit(() => canvasRows.byKeyHash(keyHash));
  }

  insert(c: NewCanvas): Promise<Canvas> {
    return this.sql.autocommit(() => canvasRows.insert(c));
  }

  passwordHash(id: string): Promise<string | null> {
    return this.sql.autocommit(() => canvasRows.passwordHash(id));
  }

  update(id: string, columns: CanvasColumns, now: number): Promise<void> {
    return this.sql.autocommit(() => canvasRows.update(id, columns, now));
  }

  roleOf(canvas: Pick<Canvas, 'id' | 'ownerId'>, userId: string): Promise<CanvasRole | null> {
    return this.sql.autocommit(() => canvasRows.roleOf(canvas, userId));
  }

  members(canvasId: string): Promise<MemberRow[]> {
    return this.sql.autocommit(() => canvasRows.members(canvasId));
  }

  setMember(canvasId: string, userId: string, role: 'editor' | 'viewer', now: number): Promise<void> {
    return this.sql.autocommit(() => canvasRows.setMember(canvasId, userId, role, now));
  }

  removeMember(canvasId: string, userId: string): Promise<boolean> {
    return this.sql.autocommit(() => canvasRows.removeMember(canvasId, userId));
  }

  search(query: string, limit: number): Promise<Canvas[]> {
    return this.sql.autocommit(() => canvasRows.search(query, limit));
  }

  listFor(userId: string): Promise<Canvas[]> {
    return this.sql.autocommit(() => canvasRows.listFor(userId));
  }

  /** Live canvases whose access ends in [from, to) (share-expiry notices). */
  async expiringBetween(from: number, to: number): Promise<Canvas[]> {
    const rows = await this.sql.all<CanvasRow>(
      'SELECT * FROM canvases WHERE deleted_at IS NULL AND expires_at >= ?1 AND expires_at < ?2 ORDER BY expires_at, id LIMIT 1000',
      from,
      to,
    );
    return rows.map(toCanvas);
  }
}
