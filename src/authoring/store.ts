import type { Database } from 'bun:sqlite';

export type AuthoringAccess = 'private' | 'whole_org' | 'public_link' | 'password';

/** What authoring keeps beside an ordinary canvas row. */
export interface AuthoredRecord {
  canvasId: string;
  sourceCanvasId: string;
  createdBy: string;
  access: AuthoringAccess;
  tags: string[];
  metadata: Record<string, unknown>;
  revokedAt: number | null;
}

interface Row {
  canvas_id: string;
  source_canvas_id: string;
  created_by: string;
  access: AuthoringAccess;
  tags: string;
  metadata: string;
  revoked_at: number | null;
}

const toRecord = (r: Row): AuthoredRecord => ({
  canvasId: r.canvas_id,
  sourceCanvasId: r.source_canvas_id,
  createdBy: r.created_by,
  access: r.access,
  tags: JSON.parse(r.tags) as string[],
  metadata: JSON.parse(r.metadata) as Record<string, unknown>,
  revokedAt: r.revoked_at,
});

const DAY_MS = 24 * 60 * 60 * 1000;

export class AuthoringStore {
  constructor(private readonly db: Database) {}

  insert(r: AuthoredRecord): void {
    this.db
      .query(
        `INSERT INTO authored_canvases (canvas_id, source_canvas_id, created_by, access, tags, metadata, revoked_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(r.canvasId, r.sourceCanvasId, r.createdBy, r.access, JSON.stringify(r.tags), JSON.stringify(r.metadata), r.revokedAt);
  }

  byCanvas(canvasId: string): AuthoredRecord | null {
    const r = this.db.query<Row, [string]>('SELECT * FROM authored_canvases WHERE canvas_id = ?').get(canvasId);
    return r ? toRecord(r) : null;
  }

  update(
    canvasId: string,
    patch: { access?: AuthoringAccess; tags?: string[]; metadata?: Record<string, unknown>; revokedAt?: number | null },
  ): void {
    const columns = {
      access: patch.access,
      tags: patch.tags && JSON.stringify(patch.tags),
      metadata: patch.metadata && JSON.stringify(patch.metadata),
      revoked_at: patch.revokedAt,
    };
    const entries = Object.entries(columns).filter(([, v]) => v !== undefined) as Array<[string, string | number | null]>;
    if (entries.length === 0) return;
    this.db
      .query(`UPDATE authored_canvases SET ${entries.map(([k]) => `${k} = ?`).join(', ')} WHERE canvas_id = ?`)
      .run(...entries.map(([, v]) => v), canvasId);
  }

  /** Authored canvases (not deleted) that `userId` owns or edits, newest first. */
  managedBy(userId: string): AuthoredRecord[] {
    return this.db
      .query<Row, [string, string]>(
        `SELECT a.* FROM authored_canvases a JOIN canvases c ON c.id = a.canvas_id
         WHERE c.deleted_at IS NULL
           AND (c.owner_id = ?1 OR EXISTS (SELECT 1 FROM canvas_members m WHERE m.canvas_id = c.id AND m.user_id = ?1 AND m.role = 'editor'))
           AND a.created_by = ?2
         ORDER BY c.created_at DESC, c.id`,
      )
      .all(userId, userId)
      .map(toRecord);
  }

  /** A creation for the quota, counted at once (before any later step can fail). */
  countCreation(userId: string, canvasId: string, now: number): void {
    this.db.query('INSERT INTO authoring_creations (user_id, canvas_id, created_at) VALUES (?, ?, ?)').run(userId, canvasId, now);
  }

  /** Creations in the UTC day of `now`, and authored canvases the user still owns. */
  usage(userId: string, now: number): { today: number; total: number } {
    const dayStart = Math.floor(now / DAY_MS) * DAY_MS;
    const today = this.db
      .query<{ n: number }, [string, number]>('SELECT COUNT(*) AS n FROM authoring_creations WHERE user_id = ? AND created_at >= ?')
      .get(userId, dayStart)!.n;
    const total = this.db
      .query<{ n: number }, [string]>(
        `SELECT COUNT(*) AS n FROM authored_canvases a JOIN canvases c ON c.id = a.canvas_id
         WHERE a.created_by = ?1 AND c.owner_id = ?1 AND c.deleted_at IS NULL`,
      )
      .get(userId)!.n;
    return { today, total };
  }
}
