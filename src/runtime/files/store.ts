import { containsPattern } from '../../db/like.ts';
import { tx, type Sql } from '../../db/sql.ts';
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

/** Where a page of files starts: after this file in (createdAt, id) order. */
export interface FilePosition {
  createdAt: number;
  id: string;
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

const INSERT =
  'INSERT INTO files (id, canvas_id, name, size, mime, hash, scope, uploaded_by, created_at, file_group, collection, record_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)';
const BYTES_USED = 'SELECT coalesce(sum(size), 0) AS n FROM files WHERE canvas_id = ?1';

export class FileStore {
  constructor(private readonly sql: Sql) {}

  /**
   * False (nothing written) when the canvas total would pass `canvasCap`. The
   * total is checked again here under the canvas's lock: two uploads that
   * each fit while streaming must not both land past the quota.
   */
  insert(file: StoredFile, canvasCap: number): Promise<boolean> {
    const b = file.binding;
    return this.sql.write(function* () {
      yield* tx.lock('files', file.canvasId);
      const used = (yield* tx.get<{ n: number }>(BYTES_USED, file.canvasId))!.n;
      if (used + file.size > canvasCap) return false;
      yield* tx.run(
        INSERT,
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
  }

  async byId(canvasId: string, id: string): Promise<StoredFile | null> {
    const r = await this.sql.get<FileRow>('SELECT * FROM files WHERE id = ?1 AND canvas_id = ?2', id, canvasId);
    return r ? toFile(r) : null;
  }

  /** Shared files plus `uploadedBy`'s own submissions; every file when `uploadedBy` is null. */
  async list(canvasId: string, uploadedBy: string | null): Promise<StoredFile[]> {
    const rows =
      uploadedBy === null
        ? await this.sql.all<FileRow>('SELECT * FROM files WHERE canvas_id = ?1 ORDER BY created_at, id', canvasId)
        : await this.sql.all<FileRow>(
            "SELECT * FROM files WHERE canvas_id = ?1 AND (scope = 'shared' OR uploaded_by = ?2) ORDER BY created_at, id",
            canvasId,
            uploadedBy,
          );
    return rows.map(toFile);
  }

  /**
   * Every file after `after` (exclusive) in (createdAt, id) order, at most
   * `limit`; with `contains`, only those whose id or name holds it (as KvStore.list).
   */
  async page(canvasId: string, after: FilePosition | null, limit: number, contains: string | null): Promise<StoredFile[]> {
    const holds = contains ? "AND (easel_fold(id) LIKE ?5 ESCAPE '\\' OR easel_fold(name) LIKE ?5 ESCAPE '\\')" : '';
    const rows = await this.sql.all<FileRow>(
      `SELECT * FROM files WHERE canvas_id = ?1 AND (created_at > ?2 OR (created_at = ?2 AND id > ?3)) ${holds}
       ORDER BY created_at, id LIMIT ?4`,
      canvasId,
      after?.createdAt ?? -1,
      after?.id ?? '',
      limit,
      ...(contains ? [containsPattern(contains)] : []),
    );
    return rows.map(toFile);
  }

  /** Deletes the attachments of these records; the hashes they used (for the blob collector). */
  deleteAttachments(canvasId: string, collection: string, recordIds: string[]): Promise<string[]> {
    return this.sql.write(function* () {
      const hashes: string[] = [];
      for (const id of recordIds) {
        const rows = yield* tx.all<{ hash: string }>(
          'DELETE FROM files WHERE canvas_id = ?1 AND collection = ?2 AND record_id = ?3 RETURNING hash',
          canvasId,
          collection,
          id,
        );
        for (const r of rows) hashes.push(r.hash);
      }
      return hashes;
    });
  }

  async rename(canvasId: string, id: string, name: string): Promise<void> {
    await this.sql.run('UPDATE files SET name = ?1 WHERE id = ?2 AND canvas_id = ?3', name, id, canvasId);
  }

  async delete(canvasId: string, id: string): Promise<void> {
    await this.sql.run('DELETE FROM files WHERE id = ?1 AND canvas_id = ?2', id, canvasId);
  }

  /** What the canvas owner's canvases keep in all (versions and files), for the per-user storage quota. */
  ownerBytesUsed(ownerId: string): Promise<number> {
    return ownerStorageBytes(this.sql, ownerId);
  }

  async bytesUsed(canvasId: string): Promise<number> {
    return (await this.sql.get<{ n: number }>(BYTES_USED, canvasId))!.n;
  }
}
