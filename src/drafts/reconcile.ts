// Draft reconciliation, a deploy side effect (spec "Canvas publication state":
// on a new deploy a draft without unpublished edits is synced to the new
// version; one with edits is flagged stale and never overwritten). Runs
// inside the publishing transaction, so a version never goes live with its
// drafts left unreconciled.
import type { Database } from 'bun:sqlite';
import { DraftStore } from './store.ts';

/**
 * `publishedFrom`: the person whose draft this version was published from;
 * their draft now matches the live version, so it is synced whatever it held.
 */
export function reconcileDrafts(
  db: Database,
  canvasId: string,
  version: { id: string; number: number },
  publishedFrom: string | null,
  now: number,
): void {
  const drafts = new DraftStore(db);
  for (const draft of drafts.ofCanvas(canvasId)) {
    if (draft.userId !== publishedFrom && drafts.hasEdits(canvasId, draft.userId)) {
      drafts.markStale(canvasId, draft.userId, version.id, version.number);
      continue;
    }
    drafts.put({
      ...draft,
      baseVersionId: version.id,
      baseVersionNumber: version.number,
      staleVersionId: null,
      staleVersionNumber: null,
      updatedAt: now,
    });
    drafts.copyVersionFiles(canvasId, draft.userId, version.id);
  }
}
