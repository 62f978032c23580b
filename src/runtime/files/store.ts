import type { Database } from 'bun:sqlite';
import { ownerStorageBytes } from '../../canvases/quotas.ts';
import type { FileScope } from '../../../sdk/wire.ts';

export type { FileScope } from '../../../sdk/wire.ts';

/** A runtime file row. The bytes live in the blob store under `hash`. */
export interface StoredFile {
  id: string;
  canvasId: string;
  name: string;
  size: number;
  mime: string;
  hash: string;
  scope: FileScope;
  uploadedBy: string;
  createdAt: number;
  /** What governs the file when it is bound: a file group, or a collection record (null otherwise). */
  binding: FileBinding | null;
}

export type FileBinding = { kind: 'group'; group: string } | { kind: 'record'; collection: string; recordId: string };

interface FileRow {
  id: string;
  canvas_id: string;
  name: string;
  size: number;
  mime: string;
  hash: string;
  scope: FileScope;
  uploaded_by: string;
  created_at: number;
  file_group: string | null;
  collection: string | null;
  record_id: string | null;
}

const toFile = (r: FileRow): StoredFile => ({
  id: r.id,
  canvasId: r.canvas_id,
  name: r.name,
  size: r.size,
  mime: r.mime,
  hash: r.hash,
  scope: r.scope,
  uploadedBy: r.uploaded_by,
  createdAt: r.created_at,
  binding:
    r.file_group !== null
      ? { kind: 'group', group: r.file_group }
      : r.collection !== null && r.record_id !== null
        ? { kind: 'record', collection: r.collection, recordId: r.record_id }
        : null,
});

export class FileStore {
  private readonly insertTx: (file: StoredFile, canvasCap: number) => boolean;

  constructor(private readonly db: Database) {
    // The canvas total is checked again here, atomically: two uploads that each
    // fit while streaming must not both land past the quota.
    const tx = db.transaction((file: StoredFile, canvasCap: number): boolean => {
      if (this.bytesUsed(file.canvasId) + file.size > canvasCap) return false;
      const b = file.binding;
      db.query(
        'INSERT INTO files (id, canvas_id, name, size, mime, hash, scope, uploaded_by, created_at, file_group, collection, record_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ).run(
        file.id,
        file.canvasId,
        file.name,
        file.size,
        file.mime,
        file.hash,
        file.scope,
        file.uploadedBy,
        file.createdAt,
        b?.kind === 'group' ? b.group : null,
        b?.kind === 'record' ? b.collection : null,
        b?.kind === 'record' ? b.recordId : null,
      );
      return true;
    });
    this.insertTx = (file, canvasCap) => tx.immediate(file, canvasCap);
  }

  /** False (nothing written) when the canvas total would pass `canvasCap`. */
  insert(file: StoredFile, canvasCap: number): boolean {
    return this.insertTx(file, canvasCap);
  }

  byId(canvasId: string, id: string): StoredFile | null {
    const r = this.db.query<FileRow, [string, string]>('SELECT * FROM files WHERE id = ? AND canvas_id = ?').get(id, canvasId);
    return r ? toFile(r) : null;
  }

  /** Shared files plus `uploadedBy`'s own submissions; every file when `uploadedBy` is null. */
  list(canvasId: string, uploadedBy: string | null): StoredFile[] {
    const rows =
      uploadedBy === null
        ? this.db.query<FileRow, [string]>('SELECT * FROM files WHERE canvas_id = ? ORDER BY created_at, id').all(canvasId)
        : this.db
            .query<FileRow, [string, string]>(
              "SELECT * FROM files WHERE canvas_id = ? AND (scope = 'shared' OR uploaded_by = ?) ORDER BY created_at, id",
            )
            .all(canvasId, uploadedBy);
    return rows.map(toFile);
  }

  /** Deletes the attachments of these records; the hashes they used (for the blob collector). */
  deleteAttachments(canvasId: string, collection: string, recordIds: string[]): string[] {
    const hashes: string[] = [];
    const q = this.db.query<{ hash: string }, [string, string, string]>(
      'DELETE FROM files WHERE canvas_id = ? AND collection = ? AND record_id = ? RETURNING hash',
    );
    this.db.transaction(() => {
      for (const id of recordIds) for (const r of q.all(canvasId, collection, id)) hashes.push(r.hash);
    })();
    return hashes;
  }

  rename(canvasId: string, id: string, name: string): void {
    this.db.query('UPDATE files SET name = ? WHERE id = ? AND canvas_id = ?').run(name, id, canvasId);
  }

  delete(canvasId: string, id: string): void {
    this.db.query('DELETE FROM files WHERE id = ? AND canvas_id = ?').run(id, canvasId);
  }

  /** What the canvas owner's canvases keep in all (versions and files), for the per-user storage quota. */
  ownerBytesUsed(ownerId: string): number {
    return ownerStorageBytes(this.db, ownerId);
  }

  bytesUsed(canvasId: string): number {
    return this.db.query<{ n: number }, [string]>('SELECT coalesce(sum(size), 0) AS n FROM files WHERE canvas_id = ?').get(canvasId)!.n;
  }
}
