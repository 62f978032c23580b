// Draft reconciliation, a deploy side effect (spec "Canvas publication state":
// on a new deploy a draft without unpublished edits is synced to the new
// version; one with edits is flagged stale and never overwritten). Runs
// inside the publishing transaction, so a version never goes live with its
// drafts left unreconciled.
import type { TxSteps } from '../db/sql.ts';
import { draftRows } from './store.ts';

/**
 * `publishedFrom`: the person whose draft this version was published from;
 * their draft now matches the live version, so it is synced whatever it held.
 */
export function* reconcileDrafts(
  canvasId: string,
  version: { id: string; number: number },
  publishedFrom: string | null,
  now: number,
): TxSteps<void> {
  for (const draft of yield* draftRows.ofCanvas(canvasId)) {
    if (draft.userId !== publishedFrom && (yield* draftRows.hasEdits(canvasId, draft.userId))) {
      yield* draftRows.markStale(canvasId, draft.userId, version.id, version.number);
      continue;
    }
    yield* draftRows.put({
      ...draft,
      baseVersionId: version.id,
      baseVersionNumber: version.number,
      staleVersionId: null,
      staleVersionNumber: null,
      updatedAt: now,
    });
    yield* draftRows.copyVersionFiles(canvasId, draft.userId, version.id);
  }
}
