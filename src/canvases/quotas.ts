// Per-user limits on what a person's canvases may hold (issue 23): how many
// canvases they own, how many they create per hour, and the bytes their
// canvases keep (deployed versions, which are kept for rollback, plus
// runtime files). Admin-tunable instance settings; defaults in the README.
import type { Sql } from '../db/sql.ts';
import { AppError } from '../errors.ts';

/** Bytes kept by the canvases `ownerId` owns: every ready version's files (kept for rollback) and runtime files. */
export const OWNER_STORAGE_BYTES = `SELECT
     (SELECT coalesce(sum(v.total_bytes), 0) FROM versions v JOIN canvases c ON c.id = v.canvas_id
      WHERE c.owner_id = ?1 AND c.deleted_at IS NULL AND v.status = 'ready')
   + (SELECT coalesce(sum(f.size), 0) FROM files f JOIN canvases c ON c.id = f.canvas_id
      WHERE c.owner_id = ?1 AND c.deleted_at IS NULL) AS n`;

export const OWNED_CANVAS_COUNT = 'SELECT count(*) AS n FROM canvases WHERE owner_id = ?1 AND deleted_at IS NULL';

export async function ownerStorageBytes(sql: Sql, ownerId: string): Promise<number> {
  return (await sql.get<{ n: number }>(OWNER_STORAGE_BYTES, ownerId))!.n;
}

export const storageQuotaExceeded = (limit: number) =>
  new AppError('QUOTA_EXCEEDED', `the canvas owner's canvases may keep at most ${limit} bytes (versions and files)`, {
    quota: 'storage.user',
    limit,
  });

export const canvasQuotaExceeded = (limit: number) =>
  new AppError('QUOTA_EXCEEDED', `you may own at most ${limit} canvases; delete one first`, { quota: 'canvases.user', limit });
