import type { Sql } from '../../db/sql.ts';
import { tableReferences, type BlobReferenceCheck } from '../../blobs/gc.ts';

/** Runtime files share the blob store with deployed versions: a collection must keep the blobs files point at. */
export function fileBlobReferences(sql: Sql): BlobReferenceCheck {
  return tableReferences(sql, 'files');
}
