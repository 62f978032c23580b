// Blob garbage collection. Blobs are content-addressed and shared by every
// feature (versions, staged uploads, runtime files), so a hash is deleted
// only when no feature still names it, no in-flight write holds it (on any
// node sharing the database and bucket: src/blobs/shared-claims.ts), and it
// was not written or re-used within the grace period. The collector knows no
// feature's tables: each feature registers its own reference check when the
// app is wired (src/app.ts).
import type { Cancel, Scheduler } from '../clock.ts';
import type { EventBus } from '../events.ts';
import type { Lifecycle } from '../lifecycle.ts';
import type { Logger } from '../log.ts';
import type { Sql } from '../db/sql.ts';
import { newId } from '../ids.ts';
import { blobsHeldForBackup } from './backup-hold.ts';
import type { BlobHold } from './hold.ts';
import { inParallel } from './in-parallel.ts';
import type { SharedBlobClaims } from './shared-claims.ts';
import type { BlobStore } from './store.ts';

/** A blob written or re-used this recently is never collected (an in-flight write may not have its row yet). */
export const BLOB_GRACE_MS = 10 * 60 * 1000;
const FIRST_SWEEP_MS = 60 * 1000;
const SWEEP_EVERY_MS = 6 * 60 * 60 * 1000;
/** Deletions from a remote store in flight at once when a prune collects its blobs. */
const REMOTE_DELETES_AT_ONCE = 8;

/** "Does this feature still use the blob?" */
export type BlobReferenceCheck = (hash: string) => Promise<boolean>;

/** The usual reference check: a table with a `hash` column. */
export function tableReferences(sql: Sql, table: string): BlobReferenceCheck {
  const text = `SELECT 1 AS used FROM ${table} WHERE hash = ?1 LIMIT 1`;
  return async (hash) => (await sql.get(text, hash)) !== undefined;
}

export interface BlobCollectorDeps {
  blobs: BlobStore;
  now: () => number;
  log: Logger;
  scheduler: Scheduler;
  events: EventBus;
  /** Holds and deletions across nodes (a shared database and bucket); null on one node. */
  claims?: SharedBlobClaims | null;
}

export class BlobCollector implements Lifecycle {
  private readonly held = new Map<string, number>();
  /** Deletions from the remote store this node has under way (from its last checks until the bucket answered). */
  private readonly deleting = new Map<string, Promise<void>>();
  private readonly checks: BlobReferenceCheck[] = [];
  private cancelSweeps: Cancel = () => {};

  constructor(private readonly deps: BlobCollectorDeps) {}

  /** Called by each feature that stores blob hashes, when the app is wired. */
  addReferenceCheck(check: BlobReferenceCheck): void {
    this.checks.push(check);
  }

  /** Marks hashes as used by a write that has not committed yet. */
  hold(): BlobHold {
    const mine: string[] = [];
    let secured = 0;
    let holder: string | null = null;
    const { held, deleting } = this;
    const { events, claims, log } = this.deps;
    return {
      add(hash) {
        mine.push(hash);
        held.set(hash, (held.get(hash) ?? 0) + 1);
        if (events.has('blobs.held')) events.emit('blobs.held', { hash });
      },
      async secure() {
        const fresh = mine.slice(secured);
        secured = mine.length;
        if (fresh.length === 0) return;
        if (claims) {
          holder ??= newId();
          await claims.hold(holder, fresh, () => events.emit('blobs.deletion-awaited', { hashes: fresh.length }));
        }
        if (deleting.size > 0) await Promise.all(fresh.map((hash) => deleting.get(hash)));
      },
      async release() {
        for (const hash of mine.splice(0)) {
          const n = (held.get(hash) ?? 1) - 1;
          if (n <= 0) held.delete(hash);
          else held.set(hash, n);
        }
        // The write is done either way; a hold left behind only keeps its blobs until it runs out (housekeeping).
        if (holder) await claims!.release(holder).catch((err) => log.warn('blob holds not released', { error: String(err) }));
      },
    };
  }

  /** A deletion of the blob from the remote store is under way here: a write must not count on this node's copy. */
  beingDeleted(hash: string): boolean {
    return this.deleting.has(hash);
  }

  /**
   * Held by a write in flight, or named by a feature's rows. A caller that
   * deletes on a false answer asks `held` again right before it does: a write
   * may have taken the blob up while the rows were being asked.
   */
  async isReferenced(hash: string): Promise<boolean> {
    if (this.held.has(hash)) return true;
    for (const check of this.checks) if (await check(hash)) return true;
    return this.held.has(hash);
  }

  /**
   * Deletes the candidates nothing references any more. With `writtenAt` (a
   * failed write cleaning up blobs it created) a blob is spared only if its
   * modification time moved since; otherwise the grace period applies.
   */
  async collect(candidates: Iterable<string>, writtenAt?: Map<string, number>): Promise<number> {
    this.assertWired();
    if (this.pausedForBackup()) return 0;
    const now = this.deps.now();
    // Without a local copy (never written here, or dropped from a node's cache) the sweep decides, by the remote age.
    const spared = (hash: string) => {
      const mtime = this.deps.blobs.mtimeOf(hash);
      if (mtime === null) return true;
      const ours = writtenAt?.get(hash);
      return ours !== undefined ? mtime !== ours : now - mtime < BLOB_GRACE_MS;
    };
    let removed = 0;
    const one = async (hash: string) => {
      if (await this.removeIfUnused(hash, spared)) removed++;
    };
    const hashes = [...new Set(candidates)];
    if (this.deps.blobs.remote) await inParallel(hashes, REMOTE_DELETES_AT_ONCE, one);
    else for (const hash of hashes) await one(hash);
    return removed;
  }

  /** A whole-store sweep (orphans of a crash mid-deploy, of refused uploads); same rules as collect. */
  async sweep(): Promise<number> {
    this.assertWired();
    if (this.pausedForBackup()) return 0;
    const now = this.deps.now();
    const { blobs } = this.deps;
    let removed = 0;
    // One at a time: a sweep may find thousands. A blob's age is its local copy's (refreshed on every re-use here), else the store's.
    for await (const { hash, modifiedMs } of blobs.stored()) {
      if (await this.removeIfUnused(hash, () => now - (blobs.mtimeOf(hash) ?? modifiedMs) < BLOB_GRACE_MS)) removed++;
    }
    blobs.sweepOrphanCopies();
    return removed;
  }

  /**
   * Deletes the blob unless something references or holds it, or `spared`
   * says it is too young. True when it was deleted.
   */
  private async removeIfUnused(hash: string, spared: (hash: string) => boolean): Promise<boolean> {
    const { blobs, claims } = this.deps;
    if (!blobs.remote) {
      if ((await this.isReferenced(hash)) || spared(hash)) return false;
      // From the last hold check to the delete nothing awaits: a write taking the blob up now finds it gone and writes it again.
      blobs.delete(hash);
      return true;
    }
    // With a remote store the deletion takes a round trip: marked first, so a write of these bytes
    // meanwhile waits for it (secure) instead of finding a blob about to go.
    if (this.deleting.has(hash)) return false;
    const over = Promise.withResolvers<void>();
    this.deleting.set(hash, over.promise);
    let marked = false;
    try {
      if ((await this.isReferenced(hash)) || spared(hash)) return false;
      if (claims) {
        marked = await claims.beginDelete(hash);
        // A write on another node may have committed its rows (and let go) since the first look.
        if (!marked || (await this.isReferenced(hash))) return false;
      }
      await blobs.remove(hash);
      return true;
    } finally {
      if (marked)
        await claims!.endDelete(hash).catch((err) => this.deps.log.warn('blob deletion mark not cleared', { error: String(err) }));
      this.deleting.delete(hash);
      over.resolve();
    }
  }

  /** Sweeps shortly after start, then every six hours (blobs a prune spared because they were re-used within the grace period). */
  start(): void {
    const run = async () => {
      try {
        const removed = await this.sweep();
        if (removed > 0) this.deps.log.info('blob sweep', { removed });
        this.deps.events.emit('blobs.swept', { removed });
      } catch (err) {
        this.deps.log.warn('blob sweep failed', { error: String(err) });
      }
    };
    const { scheduler } = this.deps;
    this.cancelSweeps = scheduler.timeout(FIRST_SWEEP_MS, () => {
      void run();
      this.cancelSweeps = scheduler.interval(SWEEP_EVERY_MS, run);
    });
  }

  stop(): void {
    this.cancelSweeps();
  }

  /** A running `easel backup` is copying blobs; what it leaves is collected by a later sweep. */
  private pausedForBackup(): boolean {
    if (!blobsHeldForBackup(this.deps.blobs.dataDir)) return false;
    this.deps.log.info('blob collection skipped: a backup is running');
    return true;
  }

  /** With no feature registered, every blob would look unused: refuse rather than empty the store. */
  private assertWired(): void {
    if (this.checks.length === 0) throw new Error('blob collector: no reference checks registered (the app is not wired)');
  }
}
