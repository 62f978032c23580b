import type { Database } from 'bun:sqlite';

// Runtime files share the content-addressed blob store with deployed
// versions: a deploy garbage collection must keep these blobs.

/** Every blob hash a runtime file points at. */
export function runtimeFileReferences(db: Database): Set<string> {
  return new Set(
    db
      .query<{ hash: string }, []>('SELECT DISTINCT hash FROM files')
      .all()
      .map((r) => r.hash),
  );
}

export function isReferencedByRuntimeFile(db: Database, hash: string): boolean {
  return db.query('SELECT 1 FROM files WHERE hash = ? LIMIT 1').get(hash) !== null;
}
