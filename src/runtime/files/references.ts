import type { Database } from 'bun:sqlite';
import { tableReferences, type BlobReferenceCheck } from '../../blobs/gc.ts';

/** Runtime files share the blob store with deployed versions: a collection must keep the blobs files point at. */
export function fileBlobReferences(db: Database): BlobReferenceCheck {
  return tableReferences(db, 'files');
}
