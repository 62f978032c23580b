// SQL for versions and their file manifests (migration 002). Rules live in
// publish.ts and lifecycle.ts; this file only reads and writes rows.
import type { Database } from 'bun:sqlite';

export type VersionSource = 'api' | 'upload' | 'editor' | 'zip' | 'folder' | 'paste';

export interface VersionRecord {
  id: string;
  canvasId: string;
  number: number;
  source: VersionSource;
  status: 'pending' | 'ready';
  createdBy: string;
  createdAt: number;
  fileCount: number;
  totalBytes: number;
  releaseId: string | null;
}

export interface VersionFileRecord {
  path: string;
  hash: string;
  size: number;
  mime: string;
}

interface VersionRow {
  id: string;
  canvas_id: string;
  number: number;
  source: VersionSource;
  status: 'pending' | 'ready';
  created_by: string;
  created_at: number;
  file_count: number;
  total_bytes: number;
  release_id: string | null;
}

const toVersion = (r: VersionRow): VersionRecord => ({
  id: r.id,
  canvasId: r.canvas_id,
  number: r.number,
  source: r.source,
  status: r.status,
  createdBy: r.created_by,
  createdAt: r.created_at,
  fileCount: r.file_count,
  totalBytes: r.total_bytes,
  releaseId: r.release_id,
});

export class VersionStore {
  constructor(private readonly db: Database) {}

  byId(id: string): VersionRecord | null {
    const r = this.db.query<VersionRow, [string]>('SELECT * FROM versions WHERE id = ?').get(id);
    return r ? toVersion(r) : null;
  }

  readyByNumber(canvasId: string, number: number): VersionRecord | null {
    const r = this.db
      .query<VersionRow, [string, number]>("SELECT * FROM versions WHERE canvas_id = ? AND number = ? AND status = 'ready'")
      .get(canvasId, number);
    return r ? toVersion(r) : null;
  }

  /** The kept ready version carrying this release identity (at most one by construction). */
  readyByRelease(canvasId: string, releaseId: string): VersionRecord | null {
    const r = this.db
      .query<VersionRow, [string, string]>(
        "SELECT * FROM versions WHERE canvas_id = ? AND release_id = ? AND status = 'ready' ORDER BY number DESC LIMIT 1",
      )
      .get(canvasId, releaseId);
    return r ? toVersion(r) : null;
  }

  /** Newest first. */
  list(canvasId: string): VersionRecord[] {
    return this.db
      .query<VersionRow, [string]>('SELECT * FROM versions WHERE canvas_id = ? ORDER BY number DESC')
      .all(canvasId)
      .map(toVersion);
  }

  /** Whether the canvas was ever published (pruning always keeps the newest ready versions). */
  hasReady(canvasId: string): boolean {
    return this.db.query("SELECT 1 FROM versions WHERE canvas_id = ? AND status = 'ready' LIMIT 1").get(canvasId) !== null;
  }

  nextNumber(canvasId: string): number {
    const r = this.db.query<{ n: number | null }, [string]>('SELECT MAX(number) AS n FROM versions WHERE canvas_id = ?').get(canvasId);
    return (r?.n ?? 0) + 1;
  }

  insert(v: VersionRecord, files: VersionFileRecord[]): void {
    this.db
      .query(
        `INSERT INTO versions (id, canvas_id, number, source, status, created_by, created_at, file_count, total_bytes, release_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(v.id, v.canvasId, v.number, v.source, v.status, v.createdBy, v.createdAt, v.fileCount, v.totalBytes, v.releaseId);
    const insertFile = this.db.query('INSERT INTO version_files (version_id, path, hash, size, mime) VALUES (?, ?, ?, ?, ?)');
    for (const f of files) insertFile.run(v.id, f.path, f.hash, f.size, f.mime);
  }

  /** Sorted by path (byte order of the UTF-8 text, SQLite's BINARY collation). */
  files(versionId: string): VersionFileRecord[] {
    return this.db
      .query<VersionFileRecord, [string]>('SELECT path, hash, size, mime FROM version_files WHERE version_id = ? ORDER BY path')
      .all(versionId);
  }

  file(versionId: string, path: string): VersionFileRecord | null {
    return this.db
      .query<VersionFileRecord, [string, string]>('SELECT path, hash, size, mime FROM version_files WHERE version_id = ? AND path = ?')
      .get(versionId, path);
  }

  /**
   * Deletes ready versions beyond the `keep` newest (never `liveId`) with
   * their file rows, and answers the hashes those rows pointed at.
   */
  prune(canvasId: string, keep: number, liveId: string | null): string[] {
    const doomed = this.db
      .query<{ id: string }, [string, number]>(
        "SELECT id FROM versions WHERE canvas_id = ? AND status = 'ready' ORDER BY number DESC LIMIT -1 OFFSET ?",
      )
      .all(canvasId, keep)
      .map((r) => r.id)
      .filter((id) => id !== liveId);
    const hashes = new Set<string>();
    const filesOf = this.db.query<{ hash: string }, [string]>('SELECT DISTINCT hash FROM version_files WHERE version_id = ?');
    const deleteFiles = this.db.query('DELETE FROM version_files WHERE version_id = ?');
    const deleteVersion = this.db.query('DELETE FROM versions WHERE id = ?');
    for (const id of doomed) {
      for (const r of filesOf.all(id)) hashes.add(r.hash);
      deleteFiles.run(id);
      deleteVersion.run(id);
    }
    return [...hashes];
  }
}
