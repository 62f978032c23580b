import { readdirSync, statSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import type { AppContext } from '../context.ts';

/** Walking the blob store costs a stat per blob: the figure is kept this long. */
const BLOB_WALK_EVERY_MS = 60_000;

export interface DiskUsage {
  database: { bytes: number; walBytes: number };
  /** What the data directory holds; with `remote` (EASEL_BLOB_URL) these are the local cache's copies, bounded by `cacheBytes`. */
  blobs: { bytes: number; files: number; measuredAt: number; remote: string | null; cacheBytes: number | null };
  disk: { freeBytes: number; totalBytes: number; minFreeBytes: number };
}

/**
 * What the data directory holds and how much room is left, for admins
 * (GET /api/admin/usage): the database and its WAL, the blob store (walked
 * at most once a minute), and the disk with the floor below which writes
 * answer 507.
 */
export class DiskUsageReport {
  private blobs: Pick<DiskUsage['blobs'], 'bytes' | 'files' | 'measuredAt'> | null = null;

  constructor(private readonly ctx: Pick<AppContext, 'config' | 'blobs' | 'now'>) {}

  read(): DiskUsage {
    const dir = this.ctx.config.dataDir;
    const size = (path: string) => {
      try {
        return statSync(path).size;
      } catch {
        return 0;
      }
    };
    const now = this.ctx.now();
    if (!this.blobs || now - this.blobs.measuredAt >= BLOB_WALK_EVERY_MS) this.blobs = { ...walk(this.ctx.blobs.root), measuredAt: now };
    let disk = { freeBytes: 0, totalBytes: 0 };
    try {
      const s = statfsSync(dir);
      disk = { freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize };
    } catch {
      // Reported as zeros: the server still answers.
    }
    return {
      database: { bytes: size(join(dir, 'easel.db')), walBytes: size(join(dir, 'easel.db-wal')) },
      blobs: {
        ...this.blobs,
        remote: this.ctx.blobs.remote?.location ?? null,
        cacheBytes: this.ctx.blobs.cache()?.limitBytes ?? null,
      },
      disk: { ...disk, minFreeBytes: this.ctx.config.minFreeDiskBytes },
    };
  }
}

const BLOB_NAME = /(?:^|\/)[0-9a-f]{64}$/;

function walk(root: string): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  let names: string[] = [];
  try {
    names = readdirSync(root, { recursive: true }) as string[];
  } catch {
    return { bytes, files };
  }
  for (const name of names) {
    // Blobs only: not a write in progress (tmp/) or the remote tier's marker.
    if (!BLOB_NAME.test(name)) continue;
    try {
      const s = statSync(join(root, name));
      if (!s.isFile()) continue;
      bytes += s.size;
      files++;
    } catch {
      // Removed by a sweep meanwhile.
    }
  }
  return { bytes, files };
}
