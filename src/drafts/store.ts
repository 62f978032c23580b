// SQL for drafts and their files (migration 016). Rules live in service.ts
// and reconcile.ts; this file only reads and writes rows.
import type { Database } from 'bun:sqlite';
import type { BlobReferenceCheck } from '../blobs/gc.ts';

export interface DraftRecord {
  canvasId: string;
  userId: string;
  baseVersionId: string | null;
  baseVersionNumber: number | null;
  staleVersionId: string | null;
  staleVersionNumber: number | null;
  updatedAt: number;
}

export interface DraftFileRecord {
  path: string;
  /** The draft's content; null: deleted in the draft. */
  hash: string | null;
  /** The content in the base version; null: added in the draft. */
  baseHash: string | null;
  size: number;
  mime: string;
}

interface DraftRow {
  canvas_id: string;
  user_id: string;
  base_version_id: string | null;
  base_version_number: number | null;
  stale_version_id: string | null;
  stale_version_number: number | null;
  updated_at: number;
}

interface DraftFileRow {
  path: string;
  hash: string | null;
  base_hash: string | null;
  size: number;
  mime: string;
}

const toDraft = (r: DraftRow): DraftRecord => ({
  canvasId: r.canvas_id,
  userId: r.user_id,
  baseVersionId: r.base_version_id,
  baseVersionNumber: r.base_version_number,
  staleVersionId: r.stale_version_id,
  staleVersionNumber: r.stale_version_number,
  updatedAt: r.updated_at,
});

export const isEdited = (f: Pick<DraftFileRecord, 'hash' | 'baseHash'>): boolean => f.hash !== f.baseHash;

export class DraftStore {
  constructor(readonly db: Database) {}

  get(canvasId: string, userId: string): DraftRecord | null {
    const r = this.db.query<DraftRow, [string, string]>('SELECT * FROM drafts WHERE canvas_id = ? AND user_id = ?').get(canvasId, userId);
    return r ? toDraft(r) : null;
  }

  ofCanvas(canvasId: string): DraftRecord[] {
    return this.db.query<DraftRow, [string]>('SELECT * FROM drafts WHERE canvas_id = ?').all(canvasId).map(toDraft);
  }

  files(canvasId: string, userId: string): DraftFileRecord[] {
    return this.db
      .query<DraftFileRow, [string, string]>(
        'SELECT path, hash, base_hash, size, mime FROM draft_files WHERE canvas_id = ? AND user_id = ? ORDER BY path',
      )
      .all(canvasId, userId)
      .map((r) => ({ path: r.path, hash: r.hash, baseHash: r.base_hash, size: r.size, mime: r.mime }));
  }

  file(canvasId: string, userId: string, path: string): DraftFileRecord | null {
    const r = this.db
      .query<DraftFileRow, [string, string, string]>(
        'SELECT path, hash, base_hash, size, mime FROM draft_files WHERE canvas_id = ? AND user_id = ? AND path = ?',
      )
      .get(canvasId, userId, path);
    return r ? { path: r.path, hash: r.hash, baseHash: r.base_hash, size: r.size, mime: r.mime } : null;
  }

  hasEdits(canvasId: string, userId: string): boolean {
    return (
      this.db
        .query('SELECT 1 FROM draft_files WHERE canvas_id = ? AND user_id = ? AND hash IS NOT base_hash LIMIT 1')
        .get(canvasId, userId) !== null
    );
  }

  /** Creates or replaces the draft row (its files are written separately). */
  put(d: DraftRecord): void {
    this.db
      .query(
        `INSERT INTO drafts (canvas_id, user_id, base_version_id, base_version_number, stale_version_id, stale_version_number, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (canvas_id, user_id) DO UPDATE SET base_version_id = excluded.base_version_id,
           base_version_number = excluded.base_version_number, stale_version_id = excluded.stale_version_id,
           stale_version_number = excluded.stale_version_number, updated_at = excluded.updated_at`,
      )
      .run(d.canvasId, d.userId, d.baseVersionId, d.baseVersionNumber, d.staleVersionId, d.staleVersionNumber, d.updatedAt);
  }

  markStale(canvasId: string, userId: string, versionId: string, versionNumber: number): void {
    this.db
      .query('UPDATE drafts SET stale_version_id = ?, stale_version_number = ? WHERE canvas_id = ? AND user_id = ?')
      .run(versionId, versionNumber, canvasId, userId);
  }

  touch(canvasId: string, userId: string, now: number): void {
    this.db.query('UPDATE drafts SET updated_at = ? WHERE canvas_id = ? AND user_id = ?').run(now, canvasId, userId);
  }

  /** The draft's files become exactly the version's, none edited. */
  copyVersionFiles(canvasId: string, userId: string, versionId: string): void {
    this.db.query('DELETE FROM draft_files WHERE canvas_id = ? AND user_id = ?').run(canvasId, userId);
    this.db
      .query(
        `INSERT INTO draft_files (canvas_id, user_id, path, hash, base_hash, size, mime)
         SELECT ?, ?, path, hash, hash, size, mime FROM version_files WHERE version_id = ?`,
      )
      .run(canvasId, userId, versionId);
  }

  putFile(canvasId: string, userId: string, f: DraftFileRecord): void {
    this.db
      .query(
        `INSERT INTO draft_files (canvas_id, user_id, path, hash, base_hash, size, mime) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (canvas_id, user_id, path) DO UPDATE SET hash = excluded.hash, base_hash = excluded.base_hash,
           size = excluded.size, mime = excluded.mime`,
      )
      .run(canvasId, userId, f.path, f.hash, f.baseHash, f.size, f.mime);
  }

  deleteFile(canvasId: string, userId: string, path: string): void {
    this.db.query('DELETE FROM draft_files WHERE canvas_id = ? AND user_id = ? AND path = ?').run(canvasId, userId, path);
  }

  remove(canvasId: string, userId: string): void {
    this.db.query('DELETE FROM drafts WHERE canvas_id = ? AND user_id = ?').run(canvasId, userId);
  }
}

/** A draft keeps both its own content and the base content it compares against. */
export function draftBlobReferences(db: Database): BlobReferenceCheck {
  const query = db.query<unknown, [string, string]>('SELECT 1 FROM draft_files WHERE hash = ? OR base_hash = ? LIMIT 1');
  return (hash) => query.get(hash, hash) !== null;
}
