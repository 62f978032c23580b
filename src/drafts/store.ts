// SQL for drafts and their files (migration 016). Rules live in service.ts
// and reconcile.ts; this file only reads and writes rows.
import { tx, type Sql, type TxSteps } from '../db/sql.ts';
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

const toFile = (r: DraftFileRow): DraftFileRecord => ({ path: r.path, hash: r.hash, baseHash: r.base_hash, size: r.size, mime: r.mime });

/** Draft rows as transaction steps (`yield* draftRows.get(canvasId, userId)`). */
export const draftRows = {
  *get(canvasId: string, userId: string): TxSteps<DraftRecord | null> {
    const r = yield* tx.get<DraftRow>('SELECT * FROM drafts WHERE canvas_id = ?1 AND user_id = ?2', canvasId, userId);
    return r ? toDraft(r) : null;
  },

  *ofCanvas(canvasId: string): TxSteps<DraftRecord[]> {
    return (yield* tx.all<DraftRow>('SELECT * FROM drafts WHERE canvas_id = ?1', canvasId)).map(toDraft);
  },

  *files(canvasId: string, userId: string): TxSteps<DraftFileRecord[]> {
    const rows = yield* tx.all<DraftFileRow>(
      'SELECT path, hash, base_hash, size, mime FROM draft_files WHERE canvas_id = ?1 AND user_id = ?2 ORDER BY path',
      canvasId,
      userId,
    );
    return rows.map(toFile);
  },

  *file(canvasId: string, userId: string, path: string): TxSteps<DraftFileRecord | null> {
    const r = yield* tx.get<DraftFileRow>(
      'SELECT path, hash, base_hash, size, mime FROM draft_files WHERE canvas_id = ?1 AND user_id = ?2 AND path = ?3',
      canvasId,
      userId,
      path,
    );
    return r ? toFile(r) : null;
  },

  *hasEdits(canvasId: string, userId: string): TxSteps<boolean> {
    const r = yield* tx.get(
      // IS DISTINCT FROM: a deleted file (hash null) against its base, or an added one (base null), is an edit.
      'SELECT 1 AS edited FROM draft_files WHERE canvas_id = ?1 AND user_id = ?2 AND hash IS DISTINCT FROM base_hash LIMIT 1',
      canvasId,
      userId,
    );
    return r !== undefined;
  },

  /** Creates or replaces the draft row (its files are written separately). */
  *put(d: DraftRecord): TxSteps<void> {
    yield* tx.run(
      `INSERT INTO drafts (canvas_id, user_id, base_version_id, base_version_number, stale_version_id, stale_version_number, updated_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
       ON CONFLICT (canvas_id, user_id) DO UPDATE SET base_version_id = excluded.base_version_id,
         base_version_number = excluded.base_version_number, stale_version_id = excluded.stale_version_id,
         stale_version_number = excluded.stale_version_number, updated_at = excluded.updated_at`,
      d.canvasId,
      d.userId,
      d.baseVersionId,
      d.baseVersionNumber,
      d.staleVersionId,
      d.staleVersionNumber,
      d.updatedAt,
    );
  },

  *markStale(canvasId: string, userId: string, versionId: string, versionNumber: number): TxSteps<void> {
    yield* tx.run(
      'UPDATE drafts SET stale_version_id = ?1, stale_version_number = ?2 WHERE canvas_id = ?3 AND user_id = ?4',
      versionId,
      versionNumber,
      canvasId,
      userId,
    );
  },

  *touch(canvasId: string, userId: string, now: number): TxSteps<void> {
    yield* tx.run('UPDATE drafts SET updated_at = ?1 WHERE canvas_id = ?2 AND user_id = ?3', now, canvasId, userId);
  },

  /** The draft's files become exactly the version's, none edited. */
  *copyVersionFiles(canvasId: string, userId: string, versionId: string): TxSteps<void> {
    yield* tx.run('DELETE FROM draft_files WHERE canvas_id = ?1 AND user_id = ?2', canvasId, userId);
    yield* tx.run(
      `INSERT INTO draft_files (canvas_id, user_id, path, hash, base_hash, size, mime)
       SELECT ?1, ?2, path, hash, hash, size, mime FROM version_files WHERE version_id = ?3`,
      canvasId,
      userId,
      versionId,
    );
  },

  *putFile(canvasId: string, userId: string, f: DraftFileRecord): TxSteps<void> {
    yield* tx.run(
      `INSERT INTO draft_files (canvas_id, user_id, path, hash, base_hash, size, mime) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
       ON CONFLICT (canvas_id, user_id, path) DO UPDATE SET hash = excluded.hash, base_hash = excluded.base_hash,
         size = excluded.size, mime = excluded.mime`,
      canvasId,
      userId,
      f.path,
      f.hash,
      f.baseHash,
      f.size,
      f.mime,
    );
  },

  *deleteFile(canvasId: string, userId: string, path: string): TxSteps<void> {
    yield* tx.run('DELETE FROM draft_files WHERE canvas_id = ?1 AND user_id = ?2 AND path = ?3', canvasId, userId, path);
  },

  *remove(canvasId: string, userId: string): TxSteps<void> {
    yield* tx.run('DELETE FROM drafts WHERE canvas_id = ?1 AND user_id = ?2', canvasId, userId);
  },
};

/** The same rows read or written on their own (no surrounding transaction). */
export class DraftStore {
  constructor(private readonly sql: Sql) {}

  get(canvasId: string, userId: string): Promise<DraftRecord | null> {
    return this.sql.autocommit(() => draftRows.get(canvasId, userId));
  }

  files(canvasId: string, userId: string): Promise<DraftFileRecord[]> {
    return this.sql.autocommit(() => draftRows.files(canvasId, userId));
  }

  file(canvasId: string, userId: string, path: string): Promise<DraftFileRecord | null> {
    return this.sql.autocommit(() => draftRows.file(canvasId, userId, path));
  }

  remove(canvasId: string, userId: string): Promise<void> {
    return this.sql.autocommit(() => draftRows.remove(canvasId, userId));
  }
}

/** A draft keeps both its own content and the base content it compares against. */
export function draftBlobReferences(sql: Sql): BlobReferenceCheck {
  return async (hash) => (await sql.get('SELECT 1 AS used FROM draft_files WHERE hash = ?1 OR base_hash = ?1 LIMIT 1', hash)) !== undefined;
}
