import { LruCache } from '../cache/lru.ts';

/**
 * A file's bytes: an in-memory Blob (small files) or the file itself (Bun
 * streams a BunFile with sendfile). Both are Blobs, so a range is a slice.
 */
export type Body = Blob;

export function sliceBody(body: Body, start: number, endExclusive: number): Body {
  return body.slice(start, endExclusive);
}

/**
 * Small immutable files (blobs and their compressed copies are
 * content-addressed, so an entry never goes stale) kept in memory: answering
 * from memory is about twice as fast as an open/sendfile/close per request.
 * Held as Blobs, not Uint8Arrays: a Response shares a Blob's bytes, while it
 * copies a Uint8Array on every request (a 10 KB copy per page view, and the
 * garbage-collector pressure that comes with it). Bounded by total bytes; the
 * least recently used go first. Big files are always streamed from disk.
 */
export class BodyCache {
  private readonly entries: LruCache<string, Blob>;

  constructor(
    private readonly maxBytes = 64 * 1024 * 1024,
    private readonly maxEntryBytes = 256 * 1024,
  ) {
    this.entries = new LruCache({ maxEntries: Infinity, maxWeight: maxBytes, weigh: (blob) => blob.size });
  }

  /**
   * By a stable key (a blob hash, a compressed copy's path: the same string
   * object on every request, so the Map lookup does not rehash it). A hit is
   * answered without a promise; `path()` is only asked on a miss.
   */
  get(key: string, size: number, path: () => string): Body | Promise<Body> {
    const hit = this.entries.get(key);
    if (hit) return hit;
    const file = Bun.file(path());
    if (size > this.maxEntryBytes || this.maxBytes === 0) return file;
    return this.load(key, file);
  }

  private async load(key: string, file: Blob): Promise<Body> {
    const blob = new Blob([await file.bytes()]);
    if (!this.entries.has(key)) this.entries.set(key, blob);
    return blob;
  }

  get size(): number {
    return this.entries.weight;
  }
}
