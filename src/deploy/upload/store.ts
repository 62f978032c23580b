// SQL for staged upload sessions and their blobs. Rules live in upload-service.ts.
import { tx, type Sql, type TxSteps } from '../../db/sql.ts';
import { findsNothing } from '../../db/unstorable-text.ts';
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

/** Upload rows written as a step of a larger transaction (the finalize's publish). */
export const uploadRows = {
  /** Marks the session used; false when it was no longer open. */
  *consume(uploadId: string, versionId: string, now: number): TxSteps<boolean> {
    const changed = yield* tx.run(
      "UPDATE upload_sessions SET state = 'consumed', consumed_at = ?1, consumed_version_id = ?2, lease_until = 0 WHERE id = ?3 AND state = 'open'",
      now,
      versionId,
      uploadId,
    );
    return changed === 1;
  },
};

export class UploadStore {
  constructor(private readonly sql: Sql) {}

  insert(s: NewUploadSession): Promise<void> {
    return this.sql.write(function* () {
      yield* tx.run(
        `INSERT INTO upload_sessions (id, canvas_id, actor_id, manifest, file_count, total_bytes, release_id, expected_token, created_at, expires_at, state)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 'open')`,
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
      for (const b of s.blobs) {
        yield* tx.run(
          'INSERT INTO upload_blobs (upload_id, hash, size, staged) VALUES (?1, ?2, ?3, ?4)',
          s.id,
          b.hash,
          b.size,
          b.staged ? 1 : 0,
        );
      }
    });
  }

  async byId(id: string): Promise<UploadSession | null> {
    if (findsNothing(id)) return null;
    const r = await this.sql.get<SessionRow>('SELECT * FROM upload_sessions WHERE id = ?1', id);
    return r ? toSession(r) : null;
  }

  /** The declared size of `hash` in the session's manifest, or null when it is not listed. */
  async declaredSize(uploadId: string, hash: string): Promise<number | null> {
    return (
      (await this.sql.get<{ size: number }>('SELECT size FROM upload_blobs WHERE upload_id = ?1 AND hash = ?2', uploadId, hash))?.size ??
      null
    );
  }

  async markStaged(uploadId: string, hash: string): Promise<void> {
    await this.sql.run('UPDATE upload_blobs SET staged = 1 WHERE upload_id = ?1 AND hash = ?2', uploadId, hash);
  }

  async blobs(uploadId: string): Promise<Array<{ hash: string; size: number; staged: boolean }>> {
    const rows = await this.sql.all<{ hash: string; size: number; staged: number }>(
      'SELECT hash, size, staged FROM upload_blobs WHERE upload_id = ?1',
      uploadId,
    );
    return rows.map((r) => ({ hash: r.hash, size: r.size, staged: r.staged === 1 }));
  }

  /**
   * Which of `hashes` the canvas itself holds, with their size: files of its
   * versions, or blobs staged through its upload sessions. Other canvases'
   * blobs never count, so begin reveals nothing about them. One statement
   * for the whole list (a query per hash costs ten times more on a
   * 2000-file manifest), the list passed as JSON to each engine's own JSON
   * function. Finalize still checks the disk.
   */
  async heldByCanvas(canvasId: string, hashes: string[]): Promise<Map<string, number>> {
    const listed = this.sql.engine === 'postgres' ? 'jsonb_array_elements_text(CAST(?1 AS TEXT)::jsonb) AS j(value)' : 'json_each(?1) j';
    const rows = await this.sql.all<{ hash: string; size: number | null }>(
      `SELECT j.value AS hash,
              COALESCE(
                (SELECT f.size FROM version_files f JOIN versions v ON v.id = f.version_id WHERE f.hash = j.value AND v.canvas_id = ?2 LIMIT 1),
                (SELECT b.size FROM upload_blobs b JOIN upload_sessions s ON s.id = b.upload_id WHERE b.hash = j.value AND b.staged = 1 AND s.canvas_id = ?2 LIMIT 1)
              ) AS size
       FROM ${listed}`,
      JSON.stringify(hashes),
      canvasId,
    );
    const held = new Map<string, number>();
    for (const r of rows) if (r.size !== null) held.set(r.hash, r.size);
    return held;
  }

  /** Takes the finalize lease for `node` (this process) unless another finalize holds an unexpired one. */
  async takeLease(uploadId: string, now: number, until: number, node: string): Promise<boolean> {
    const changed = await this.sql.run(
      "UPDATE upload_sessions SET lease_until = ?1, lease_node = ?4 WHERE id = ?2 AND state = 'open' AND lease_until <= ?3",
      until,
      uploadId,
      now,
      node,
    );
    return changed === 1;
  }

  /**
   * Frees every finalize lease: at start no finalize of this process is
   * running, so a lease still held belonged to a process that died mid-way
   * (one server per data directory).
   */
  releaseAllLeases(): Promise<number> {
    return this.sql.run("UPDATE upload_sessions SET lease_until = 0 WHERE state = 'open' AND lease_until > 0");
  }

  /** On a shared database: frees the leases of nodes with no live heartbeat since `liveSince` (never `self`'s). */
  releaseDeadNodesLeases(self: string, liveSince: number): Promise<number> {
    return this.sql.run(
      `UPDATE upload_sessions SET lease_until = 0 WHERE state = 'open' AND lease_until > 0 AND lease_node IS NOT NULL
         AND lease_node <> ?1 AND lease_node NOT IN (SELECT id FROM nodes WHERE heartbeat_at > ?2)`,
      self,
      liveSince,
    );
  }

  async releaseLease(uploadId: string): Promise<void> {
    await this.sql.run("UPDATE upload_sessions SET lease_until = 0 WHERE id = ?1 AND state = 'open'", uploadId);
  }

  async setExpectedToken(uploadId: string, token: string): Promise<void> {
    await this.sql.run('UPDATE upload_sessions SET expected_token = ?1 WHERE id = ?2', token, uploadId);
  }

  /** Deletes sessions consumed before `before`, and sessions whose lifetime ended before it. */
  deleteFinished(before: number): Promise<number> {
    return this.sql.run("DELETE FROM upload_sessions WHERE expires_at < ?1 OR (state = 'consumed' AND consumed_at < ?1)", before);
  }
}
