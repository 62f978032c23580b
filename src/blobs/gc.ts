// Blob garbage collection. Blobs are content-addressed and shared by every
// feature (versions, staged uploads, runtime files), so a hash is deleted
// only when no feature still names it, no in-flight write holds it, and it
// was not written or re-used within the grace period. The collector knows no
// feature's tables: each feature registers its own reference check when the
// app is wired (src/app.ts).
import type { Cancel, Scheduler } from '../clock.ts';
import type { EventBus } from '../events.ts';
import type { Lifecycle } from '../lifecycle.ts';
import type { Logger } from '../log.ts';
import type { Sql } from '../db/sql.ts';
import { blobsHeldForBackup } from './backup-hold.ts';
import type { BlobStore } from './store.ts';

/** A blob written or re-used this recently is never collected (an in-flight write may not have its row yet). */
export const BLOB_GRACE_MS = 10 * 60 * 1000;
const FIRST_SWEEP_MS = 60 * 1000;
const SWEEP_EVERY_MS = 6 * 60 * 60 * 1000;

/** "Does this feature still use the blob?" */
export type BlobReferenceCheck = (hash: string) => Promise<boolean>;

/** Hashes a write has in hand but not yet recorded in any table; `release` when it committed or failed. */
export interface BlobHold {
  add(hash: string): void;
  release(): void;
}

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
}

export class BlobCollector implements Lifecycle {
  private readonly held = new Map<string, number>();
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
    const held = this.held;
    const events = this.deps.events;
    return {
      add(hash) {
        mine.push(hash);
        held.set(hash, (held.get(hash) ?? 0) + 1);
        if (events.has('blobs.held')) events.emit('blobs.held', { hash });
      },
      release() {
        for (const hash of mine.splice(0)) {
          const n = (held.get(hash) ?? 1) - 1;
          if (n <= 0) held.delete(hash);
          else held.set(hash, n);
        }
      },
    };
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
    let removed = 0;
    for (const hash of [...candidates]) {
      if (await this.isReferenced(hash)) continue;
      // From here to the delete nothing awaits: a write taking the blob up now finds it gone and writes it again.
      // Without a local copy (never written here, or dropped from a node's cache) the sweep decides, by the remote age.
      const mtime = this.deps.blobs.mtimeOf(hash);
      if (mtime === null) continue;
      const ours = writtenAt?.get(hash);
      if (ours !== undefined ? mtime !== ours : now - mtime < BLOB_GRACE_MS) continue;
      this.deps.blobs.delete(hash);
      removed++;
    }
    return removed;
  }

  /** A whole-store sweep (orphans of a crash mid-deploy, of refused uploads); same rules as collect. */
  async sweep(): Promise<number> {
    this.assertWired();
    if (this.pausedForBackup()) return 0;
    return await this.deps.blobs.sweep((hash) => this.isReferenced(hash), BLOB_GRACE_MS, this.deps.now());
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
