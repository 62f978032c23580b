// Blob garbage collection for deploys. Blobs are content-addressed and shared
// by every feature (versions, staged uploads, runtime files), so a hash is
// deleted only when no table names it, no in-flight deploy holds it, and it
// was not written or re-used within the grace period.
import { statSync } from 'node:fs';
import type { AppContext } from '../context.ts';

/** A blob written or re-used this recently is never collected (an in-flight write may not have its row yet). */
export const BLOB_GRACE_MS = 10 * 60 * 1000;

/** Extra "is this hash still used" answers other features can add. */
export type BlobReferenceCheck = (ctx: AppContext, hash: string) => boolean;
export const blobReferenceChecks: BlobReferenceCheck[] = [];

/** Tables whose `hash` column points at blobs; each is consulted only if it exists. */
const REFERENCING_TABLES = ['version_files', 'upload_blobs', 'files'] as const;

const holds = new WeakMap<AppContext, Map<string, number>>();

/** Marks hashes as used by a deploy that has not committed yet; call the returned function when done. */
export function holdBlobs(ctx: AppContext): { add(hash: string): void; release(): void } {
  let map = holds.get(ctx);
  if (!map) holds.set(ctx, (map = new Map()));
  const mine: string[] = [];
  return {
    add(hash) {
      mine.push(hash);
      map.set(hash, (map.get(hash) ?? 0) + 1);
      if (ctx.events.has('blobs.held')) ctx.events.emit('blobs.held', { hash });
    },
    release() {
      for (const hash of mine.splice(0)) {
        const n = (map.get(hash) ?? 1) - 1;
        if (n <= 0) map.delete(hash);
        else map.set(hash, n);
      }
    },
  };
}

/** A reference test over every known user of the blob store (built once per collection). */
export function referenceChecker(ctx: AppContext): (hash: string) => boolean {
  const tables = REFERENCING_TABLES.filter(
    (name) => ctx.db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== null,
  );
  const queries = tables.map((name) => ctx.db.query<unknown, [string]>(`SELECT 1 FROM ${name} WHERE hash = ? LIMIT 1`));
  const held = holds.get(ctx);
  return (hash) =>
    (held?.has(hash) ?? false) || queries.some((q) => q.get(hash) !== null) || blobReferenceChecks.some((check) => check(ctx, hash));
}

/**
 * Deletes the candidates nothing references any more. With `writtenAt` (a
 * failed deploy cleaning up blobs it created) a blob is spared only if its
 * modification time moved since; otherwise the grace period applies.
 */
export function collectBlobs(ctx: AppContext, candidates: Iterable<string>, writtenAt?: Map<string, number>): number {
  const referenced = referenceChecker(ctx);
  const now = ctx.now();
  let removed = 0;
  for (const hash of candidates) {
    if (referenced(hash)) continue;
    let mtime: number;
    try {
      mtime = statSync(ctx.blobs.pathOf(hash)).mtimeMs;
    } catch {
      continue;
    }
    const ours = writtenAt?.get(hash);
    if (ours !== undefined ? mtime !== ours : now - mtime < BLOB_GRACE_MS) continue;
    ctx.blobs.delete(hash);
    removed++;
  }
  return removed;
}

/** A whole-store sweep (orphans of a crash mid-deploy); same rules as collectBlobs. */
export function sweepAllBlobs(ctx: AppContext): number {
  return ctx.blobs.sweep(referenceChecker(ctx), BLOB_GRACE_MS, ctx.now());
}

const FIRST_SWEEP_MS = 60 * 1000;
const SWEEP_EVERY_MS = 6 * 60 * 60 * 1000;

/**
 * Whole-store sweeps: shortly after start (orphans of a crash mid-deploy, of
 * refused runtime uploads) and then every six hours (blobs a prune spared
 * because they were re-used within the grace period). Stopped at shutdown.
 */
export function scheduleBlobSweeps(ctx: AppContext): void {
  const run = () => {
    try {
      const removed = sweepAllBlobs(ctx);
      if (removed > 0) ctx.log.info('blob sweep', { removed });
      ctx.events.emit('blobs.swept', { removed });
    } catch (err) {
      ctx.log.warn('blob sweep failed', { error: String(err) });
    }
  };
  let cancel = ctx.scheduler.timeout(FIRST_SWEEP_MS, () => {
    run();
    cancel = ctx.scheduler.interval(SWEEP_EVERY_MS, run);
  });
  ctx.onShutdown.push(() => cancel());
}
