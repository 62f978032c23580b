// SQL for versions and their file manifests (migration 002). Rules live in
// publish.ts and lifecycle.ts; this file only reads and writes rows.
import { tx, type Sql, type SqlValue, type TxSteps } from '../db/sql.ts';
import { findsNothing } from '../db/unstorable-text.ts';

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
  /** Deployed as a preview (not made live by its deploy); kept after it is made live. */
  preview: boolean;
  /** What its deploy warned of (empty: nothing, or a version from before warnings were kept). */
  warnings: string[];
}

export interface VersionFileRecord {
  path: string;
  hash: string;
  size: number;
  mime: string;
}

/**
 * A version's file rows go in this many per statement (4 parameters each,
 * far under either engine's limit): one statement per file was 2,000 trips
 * through the transaction for a full canvas.
 */
const FILE_ROWS_PER_INSERT = 100;
const fileRowsInserts = new Map<number, string>();

/** `INSERT … VALUES (?1, ?2, ?3, ?4, ?5), (?1, ?6, …)` for `rows` files of one version (?1). */
function fileRowsInsert(rows: number): string {
  let text = fileRowsInserts.get(rows);
  if (text === undefined) {
    const tuples = Array.from({ length: rows }, (_, i) => `(?1, ?${2 + 4 * i}, ?${3 + 4 * i}, ?${4 + 4 * i}, ?${5 + 4 * i})`);
    text = `INSERT INTO version_files (version_id, path, hash, size, mime) VALUES ${tuples.join(', ')}`;
    fileRowsInserts.set(rows, text);
  }
  return text;
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
  preview: number;
  warnings: string | null;
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
  preview: r.preview === 1,
  warnings: warningsOf(r.warnings),
});

/** The stored JSON array of strings; anything else reads as none. */
function warningsOf(stored: string | null): string[] {
  if (stored === null) return [];
  try {
    const parsed: unknown = JSON.parse(stored);
    return Array.isArray(parsed) ? parsed.filter((w): w is string => typeof w === 'string') : [];
  } catch {
    return [];
  }
}

const one = (r: VersionRow | undefined): VersionRecord | null => (r ? toVersion(r) : null);

/** Version and manifest rows as transaction steps (`yield* versionRows.byId(id)`). */
export const versionRows = {
  *byId(id: string): TxSteps<VersionRecord | null> {
    return one(yield* tx.get<VersionRow>('SELECT * FROM versions WHERE id = ?1', id));
  },

  *readyByNumber(canvasId: string, number: number): TxSteps<VersionRecord | null> {
    return one(
      yield* tx.get<VersionRow>("SELECT * FROM versions WHERE canvas_id = ?1 AND number = ?2 AND status = 'ready'", canvasId, number),
    );
  },

  /** The kept ready version carrying this release identity (at most one by construction). */
  *readyByRelease(canvasId: string, releaseId: string): TxSteps<VersionRecord | null> {
    return one(
      yield* tx.get<VersionRow>(
        "SELECT * FROM versions WHERE canvas_id = ?1 AND release_id = ?2 AND status = 'ready' ORDER BY number DESC LIMIT 1",
        canvasId,
        releaseId,
      ),
    );
  },

  /** Newest first. */
  *list(canvasId: string): TxSteps<VersionRecord[]> {
    return (yield* tx.all<VersionRow>('SELECT * FROM versions WHERE canvas_id = ?1 ORDER BY number DESC', canvasId)).map(toVersion);
  },

  /** Whether the canvas was ever published (pruning always keeps the newest ready versions). */
  *hasReady(canvasId: string): TxSteps<boolean> {
    return (yield* tx.get("SELECT 1 AS ready FROM versions WHERE canvas_id = ?1 AND status = 'ready' LIMIT 1", canvasId)) !== undefined;
  },

  *nextNumber(canvasId: string): TxSteps<number> {
    const r = yield* tx.get<{ n: number | null }>('SELECT MAX(number) AS n FROM versions WHERE canvas_id = ?1', canvasId);
    return (r?.n ?? 0) + 1;
  },

  *insert(v: VersionRecord, files: VersionFileRecord[]): TxSteps<void> {
    yield* tx.run(
      `INSERT INTO versions (id, canvas_id, number, source, status, created_by, created_at, file_count, total_bytes, release_id, preview, warnings)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)`,
      v.id,
      v.canvasId,
      v.number,
      v.source,
      v.status,
      v.createdBy,
      v.createdAt,
      v.fileCount,
      v.totalBytes,
      v.releaseId,
      v.preview ? 1 : 0,
      v.warnings.length > 0 ? JSON.stringify(v.warnings) : null,
    );
    for (let at = 0; at < files.length; at += FILE_ROWS_PER_INSERT) {
      const batch = files.slice(at, at + FILE_ROWS_PER_INSERT);
      const params: SqlValue[] = [v.id];
      for (const f of batch) params.push(f.path, f.hash, f.size, f.mime);
      yield* tx.run(fileRowsInsert(batch.length), ...params);
    }
  },

  /** Sorted by path (byte order of the UTF-8 text: SQLite's BINARY collation, COLLATE "C" on Postgres). */
  *files(versionId: string): TxSteps<VersionFileRecord[]> {
    return yield* tx.all<VersionFileRecord>(
      'SELECT path, hash, size, mime FROM version_files WHERE version_id = ?1 ORDER BY path',
      versionId,
    );
  },

  *file(versionId: string, path: string): TxSteps<VersionFileRecord | null> {
    if (findsNothing(path)) return null;
    return (
      (yield* tx.get<VersionFileRecord>(
        'SELECT path, hash, size, mime FROM version_files WHERE version_id = ?1 AND path = ?2',
        versionId,
        path,
      )) ?? null
    );
  },

  /**
   * Deletes ready versions beyond `keep` (never one in `spare`: the live one,
   * the one just made) with their file rows, and answers the hashes those rows
   * pointed at. Previews go first, oldest first; then published versions,
   * oldest first (issue 40).
   */
  *prune(canvasId: string, keep: number, spare: (string | null)[]): TxSteps<string[]> {
    const ready = yield* tx.all<{ id: string; preview: number }>(
      "SELECT id, preview FROM versions WHERE canvas_id = ?1 AND status = 'ready' ORDER BY number ASC",
      canvasId,
    );
    const excess = ready.length - keep;
    if (excess <= 0) return [];
    const candidates = ready.filter((r) => !spare.includes(r.id));
    const doomed = [...candidates.filter((r) => r.preview === 1), ...candidates.filter((r) => r.preview !== 1)]
      .slice(0, excess)
      .map((r) => r.id);
    const hashes = new Set<string>();
    for (const id of doomed) {
      for (const r of yield* tx.all<{ hash: string }>('SELECT DISTINCT hash FROM version_files WHERE version_id = ?1', id))
        hashes.add(r.hash);
      yield* tx.run('DELETE FROM version_files WHERE version_id = ?1', id);
      yield* tx.run('DELETE FROM versions WHERE id = ?1', id);
    }
    return [...hashes];
  },
};

/** The same rows read on their own (no surrounding transaction). */
export class VersionStore {
  constructor(private readonly sql: Sql) {}

  byId(id: string): Promise<VersionRecord | null> {
    return this.sql.autocommit(() => versionRows.byId(id));
  }

  list(canvasId: string): Promise<VersionRecord[]> {
    return this.sql.autocommit(() => versionRows.list(canvasId));
  }

  files(versionId: string): Promise<VersionFileRecord[]> {
    return this.sql.autocommit(() => versionRows.files(versionId));
  }

  file(versionId: string, path: string): Promise<VersionFileRecord | null> {
    return this.sql.autocommit(() => versionRows.file(versionId, path));
  }
}
