// Holds and deletions of blobs that every node sharing one Postgres database
// and one bucket can see. A write records its holds before it asks the bucket
// about its blobs, then waits out any deletion already marked; a collection
// marks a blob before it looks for holds and references, then deletes. Each
// side writes its own row before it reads the other's, so when a collection
// misses a write's hold, that write sees the collection's mark (and asks the
// bucket only once the deletion is over, putting the bytes back).
import type { Sql } from '../db/sql.ts';

/** A mark older than this is a collection that died (or hung) mid-delete: writes stop waiting for it and it may be taken over. */
export const DELETION_STALE_MS = 60_000;
/** A hold outlives its write only when the node died; it then keeps the blob at most this much longer. */
const HOLD_MS = 60 * 60 * 1000;
/** How often a write asks again while a deletion of one of its blobs is marked (a deletion is one request to the bucket). */
const RECHECK_MS = 20;

export class SharedBlobClaims {
  constructor(
    private readonly sql: Sql,
    private readonly nodeId: string,
    private readonly now: () => number,
  ) {}

  /** Records the holds, then resolves once no live deletion of any of the hashes is marked (`onWait` when one is). */
  async hold(holder: string, hashes: readonly string[], onWait: () => void = () => {}): Promise<void> {
    const list = hashes.join(',');
    await this.sql.run(
      `INSERT INTO blob_holds (hash, holder, expires_at)
       SELECT h, ?2, ?3 FROM unnest(string_to_array(?1, ',')) AS h ON CONFLICT DO NOTHING`,
      list,
      holder,
      this.now() + HOLD_MS,
    );
    for (let waited = false; ; waited = true) {
      const marked = await this.sql.get(
        `SELECT 1 AS marked FROM blob_deletions WHERE hash = ANY(string_to_array(?1, ',')) AND started_at > ?2 LIMIT 1`,
        list,
        this.now() - DELETION_STALE_MS,
      );
      if (!marked) return;
      if (!waited) onWait();
      await Bun.sleep(RECHECK_MS);
    }
  }

  async release(holder: string): Promise<void> {
    await this.sql.run('DELETE FROM blob_holds WHERE holder = ?1', holder);
  }

  /**
   * Marks the blob as being deleted by this node: false when a write holds it
   * or another live collection has it marked (nothing is marked then).
   */
  async beginDelete(hash: string): Promise<boolean> {
    const now = this.now();
    const marked = await this.sql.run(
      `INSERT INTO blob_deletions (hash, node, started_at) VALUES (?1, ?2, ?3)
       ON CONFLICT (hash) DO UPDATE SET node = excluded.node, started_at = excluded.started_at
       WHERE blob_deletions.started_at <= ?4`,
      hash,
      this.nodeId,
      now,
      now - DELETION_STALE_MS,
    );
    if (marked === 0) return false;
    const held = await this.sql.get('SELECT 1 AS held FROM blob_holds WHERE hash = ?1 AND expires_at > ?2 LIMIT 1', hash, now);
    if (!held) return true;
    await this.endDelete(hash);
    return false;
  }

  /** The deletion is over (done, failed or given up): writes waiting on it go on. */
  async endDelete(hash: string): Promise<void> {
    await this.sql.run('DELETE FROM blob_deletions WHERE hash = ?1 AND node = ?2', hash, this.nodeId);
  }
}
