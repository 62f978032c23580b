// SQL for staged upload sessions and their blobs. Rules live in upload-service.ts.
import type { Database } from 'bun:sqlite';
import type { ManifestFile } from '../publish.ts';

export interface UploadSession {
  id: string;
  canvasId: string;
  actorId: string;
  files: ManifestFile[];
  fileCount: number;
  totalBytes: number;
  releaseId: string | null;
  expectedToken: string | null;
  createdAt: number;
  expiresAt: number;
  state: 'open' | 'consumed';
  leaseUntil: number;
  consumedAt: number | null;
  consumedVersionId: string | null;
}

interface SessionRow {
  id: string;
  canvas_id: string;
  actor_id: string;
  manifest: string;
  file_count: number;
  total_bytes: number;
  release_id: string | null;
  expected_token: string | null;
  created_at: number;
  expires_at: number;
  state: 'open' | 'consumed';
  lease_until: number;
  consumed_at: number | null;
  consumed_version_id: string | null;
}

function toSession(r: SessionRow): UploadSession {
  return {
    id: r.id,
    canvasId: r.canvas_id,
    actorId: r.actor_id,
    files: JSON.parse(r.manifest) as ManifestFile[],
    fileCount: r.file_count,
    totalBytes: r.total_bytes,
    releaseId: r.release_id,
    expectedToken: r.expected_token,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    state: r.state,
    leaseUntil: r.lease_until,
    consumedAt: r.consumed_at,
    consumedVersionId: r.consumed_version_id,
  };
}

export interface NewUploadSession {
  id: string;
  canvasId: string;
  actorId: string;
  files: ManifestFile[];
  totalBytes: number;
  releaseId: string | null;
  expectedToken: string | null;
  createdAt: number;
  expiresAt: number;
  /** Every distinct hash with its declared size and whether the canvas already holds it. */
  blobs: Array<{ hash: string; size: number; staged: boolean }>;
}

export class UploadStore {
  constructor(private readonly db: Database) {}

  insert(s: NewUploadSession): void {
    this.db.transaction(() => {
      this.db
        .query(
          `INSERT INTO upload_sessions (id, canvas_id, actor_id, manifest, file_count, total_bytes, release_id, expected_token, created_at, expires_at, state)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'open')`,
        )
        .run(
          s.id,
          s.canvasId,
          s.actorId,
          JSON.stringify(s.files),
          s.files.length,
          s.totalBytes,
          s.releaseId,
          s.expectedToken,
          s.createdAt,
          s.expiresAt,
        );
      const add = this.db.query('INSERT INTO upload_blobs (upload_id, hash, size, staged) VALUES (?, ?, ?, ?)');
      for (const b of s.blobs) add.run(s.id, b.hash, b.size, b.staged ? 1 : 0);
    })();
  }

  byId(id: string): UploadSession | null {
    const r = this.db.query<SessionRow, [string]>('SELECT * FROM upload_sessions WHERE id = ?').get(id);
    return r ? toSession(r) : null;
  }

  /** The declared size of `hash` in the session's manifest, or null when it is not listed. */
  declaredSize(uploadId: string, hash: string): number | null {
    return (
      this.db
        .query<{ size: number }, [string, string]>('SELECT size FROM upload_blobs WHERE upload_id = ? AND hash = ?')
        .get(uploadId, hash)?.size ?? null
    );
  }

  markStaged(uploadId: string, hash: string): void {
    this.db.query('UPDATE upload_blobs SET staged = 1 WHERE upload_id = ? AND hash = ?').run(uploadId, hash);
  }

  blobs(uploadId: string): Array<{ hash: string; size: number; staged: boolean }> {
    return this.db
      .query<{ hash: string; size: number; staged: number }, [string]>('SELECT hash, size, staged FROM upload_blobs WHERE upload_id = ?')
      .all(uploadId)
      .map((r) => ({ hash: r.hash, size: r.size, staged: r.staged === 1 }));
  }

  /**
   * Which of `hashes` the canvas itself holds, with their size: files of its
   * versions, or blobs staged through its upload sessions. Other canvases'
   * blobs never count, so begin reveals nothing about them. One statement
   * for the whole list (a query per hash costs ten times more on a
   * 2000-file manifest). Finalize still checks the disk.
   */
  heldByCanvas(canvasId: string, hashes: string[]): Map<string, number> {
    const rows = this.db
      .query<{ hash: string; size: number | null }, [string, string]>(
        `SELECT j.value AS hash,
                COALESCE(
                  (SELECT f.size FROM version_files f JOIN versions v ON v.id = f.version_id WHERE f.hash = j.value AND v.canvas_id = ?2 LIMIT 1),
                  (SELECT b.size FROM upload_blobs b JOIN upload_sessions s ON s.id = b.upload_id WHERE b.hash = j.value AND b.staged = 1 AND s.canvas_id = ?2 LIMIT 1)
                ) AS size
         FROM json_each(?1) j`,
      )
      .all(JSON.stringify(hashes), canvasId);
    const held = new Map<string, number>();
    for (const r of rows) if (r.size !== null) held.set(r.hash, r.size);
    return held;
  }

  /** Takes the finalize lease unless another finalize holds an unexpired one. */
  takeLease(uploadId: string, now: number, until: number): boolean {
    return (
      this.db
        .query("UPDATE upload_sessions SET lease_until = ? WHERE id = ? AND state = 'open' AND lease_until <= ?")
        .run(until, uploadId, now).changes === 1
    );
  }

  /**
   * Frees every finalize lease: at start no finalize of this process is
   * running, so a lease still held belonged to a process that died mid-way
   * (one server per data directory).
   */
  releaseAllLeases(): number {
    return this.db.query("UPDATE upload_sessions SET lease_until = 0 WHERE state = 'open' AND lease_until > 0").run().changes;
  }

  releaseLease(uploadId: string): void {
    this.db.query("UPDATE upload_sessions SET lease_until = 0 WHERE id = ? AND state = 'open'").run(uploadId);
  }

  setExpectedToken(uploadId: string, token: string): void {
    this.db.query('UPDATE upload_sessions SET expected_token = ? WHERE id = ?').run(token, uploadId);
  }

  /** Marks the session used; false when it was no longer open. */
  consume(uploadId: string, versionId: string, now: number): boolean {
    return (
      this.db
        .query(
          "UPDATE upload_sessions SET state = 'consumed', consumed_at = ?, consumed_version_id = ?, lease_until = 0 WHERE id = ? AND state = 'open'",
        )
        .run(now, versionId, uploadId).changes === 1
    );
  }

  /** Deletes sessions consumed before `before`, and sessions whose lifetime ended before it. */
  deleteFinished(before: number): number {
    return this.db.query("DELETE FROM upload_sessions WHERE expires_at < ?1 OR (state = 'consumed' AND consumed_at < ?1)").run(before)
      .changes;
  }

  /**
   * Every hash an open session lists: these blobs must survive a sweep. Open
   * sessions past their lifetime count too until they are deleted (an hour
   * later), which errs on the side of keeping bytes.
   */
  openHashes(): Set<string> {
    const rows = this.db
      .query<{ hash: string }, []>(
        "SELECT DISTINCT b.hash FROM upload_blobs b JOIN upload_sessions s ON s.id = b.upload_id WHERE s.state = 'open'",
      )
      .all();
    return new Set(rows.map((r) => r.hash));
  }

  isOpenHash(hash: string): boolean {
    return (
      this.db
        .query<{ one: number }, [string]>(
          "SELECT 1 AS one FROM upload_blobs b JOIN upload_sessions s ON s.id = b.upload_id WHERE b.hash = ? AND s.state = 'open' LIMIT 1",
        )
        .get(hash) !== null
    );
  }
}
