// Deleting one item from the dashboard's data browser, through the runtime
// services' own delete paths with the caller's live role and the live policy:
// the same rights, usage, quotas and audit entries as the SDK's delete, and a
// refusal is the runtime API's refusal. Each delete is also audited as coming
// from the dashboard (`data.deleted`: what went, never its value).
import type { AuditLog } from '../audit/store.ts';
import type { CollectionService } from '../runtime/collections/service.ts';
import { fileId } from '../runtime/files/model.ts';
import type { FileService } from '../runtime/files/service.ts';
import type { KvService } from '../runtime/kv/service.ts';
import type { RuntimeCaller } from '../runtime/pipeline.ts';
import type { SubmissionService } from '../runtime/submissions/service.ts';
import type { BrowseKind } from './browse.ts';

export interface RemoveDeps {
  kv: KvService;
  collections: CollectionService;
  submissions: SubmissionService;
  files: FileService;
  audit: Pick<AuditLog, 'record'>;
}

export interface Removed {
  ok: true;
  /** A collection record's attachments could not all be removed (the record is gone regardless). */
  attachmentCleanupFailed?: boolean;
}

/**
 * Removes a shared key (owners and editors), a collection record (the
 * policy's delete rule), a submission (owners and editors: anyone's) or a
 * file (as the runtime API allows). `item` is the decoded path segment (null
 * when it was malformed). Shared keys and submissions are idempotent, as at
 * runtime; a record or file that is gone or hidden is 404.
 */
export async function removeItem(
  deps: RemoveDeps,
  caller: RuntimeCaller,
  kind: BrowseKind,
  name: string | null,
  item: string | null,
): Promise<Removed> {
  let removed: Removed = { ok: true };
  switch (kind) {
    case 'kv': {
      deps.kv.assertWritable(caller, 'shared');
      const key = deps.kv.checkKey(item, 'shared');
      await deps.kv.delete(caller, 'shared', key);
      item = key;
      break;
    }
    case 'collection':
      removed = await deps.collections.delete(deps.collections.open(caller, name), item);
      break;
    case 'submissions':
      await deps.submissions.remove(caller, deps.submissions.space(caller, name), item);
      break;
    case 'files':
      await deps.files.delete(caller, fileId(item ?? ''));
      break;
  }
  await deps.audit.record({
    actorId: caller.actorId,
    actorKind: 'user',
    canvasId: caller.canvas.id,
    action: 'data.deleted',
    detail: { kind, ...(name === null ? {} : { name }), item },
  });
  return removed;
}
