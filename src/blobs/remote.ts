// The shared tier of the blob store when several nodes (or a disposable
// host) keep their blobs elsewhere: content-addressed objects named by their
// sha256. The local folder then only caches copies (src/blobs/store.ts).
// The interface speaks paths and hashes, never HTTP, so a second adapter
// (another object store) drops in beside the S3 one.

export interface RemoteBlob {
  hash: string;
  size: number;
  /** When the object was last written (its age for garbage collection). */
  modifiedMs: number;
}

export interface BlobRemote {
  /** Where the blobs live, for logs and /healthz (never a credential). */
  readonly location: string;
  /** Uploads a complete local file under `hash` (idempotent: the same hash always names the same bytes). */
  upload(hash: string, path: string): Promise<void>;
  /** The object's bytes, or null when there is no such object. */
  open(hash: string): Promise<ReadableStream<Uint8Array> | null>;
  stat(hash: string): Promise<RemoteBlob | null>;
  delete(hash: string): Promise<void>;
  /** Every stored blob, page by page. */
  list(): AsyncIterable<RemoteBlob>;
  /** Throws when the store cannot be reached or refuses our credentials (/healthz). */
  check(): Promise<void>;
}

/** `s3://bucket/prefix` (EASEL_BLOB_URL) → bucket and a key prefix ending in "/" (or empty). */
export function parseBlobUrl(raw: string): { bucket: string; prefix: string } | null {
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(raw.trim());
  if (!match) return null;
  const prefix = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix.split('/').some((part) => part === '.' || part === '..')) return null;
  return { bucket: match[1]!, prefix: prefix === '' ? '' : `${prefix}/` };
}
