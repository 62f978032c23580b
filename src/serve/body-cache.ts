import type { BunFile } from 'bun';

/** A file's bytes in memory, or the file itself (Bun streams it with sendfile). */
export type Body = Uint8Array<ArrayBuffer> | BunFile;

export function sliceBody(body: Body, start: number, endExclusive: number): Body {
  return body instanceof Uint8Array ? body.subarray(start, endExclusive) : body.slice(start, endExclusive);
}

/**
 * Small immutable files (blobs and their compressed copies are
 * content-addressed, so an entry never goes stale) kept in memory: answering
 * from memory is about twice as fast as an open/sendfile/close per request.
 * Bounded by total bytes; the least recently used go first. Big files are
 * always streamed from disk.
 */
export class BodyCache {
  private readonly entries = new Map<string, Uint8Array<ArrayBuffer>>();
  private bytes = 0;

  constructor(private readonly maxBytes = 64 * 1024 * 1024, private readonly maxEntryBytes = 256 * 1024) {}

  async get(path: string, size: number): Promise<Body> {
    const hit = this.entries.get(path);
    if (hit) {
      // Re-insert: Map order is the recency order.
      this.entries.delete(path);
      this.entries.set(path, hit);
      return hit;
    }
    const file = Bun.file(path);
    if (size > this.maxEntryBytes || this.maxBytes === 0) return file;
    const bytes = await file.bytes();
    if (!this.entries.has(path)) {
      this.entries.set(path, bytes);
      this.bytes += bytes.byteLength;
      for (const [key, value] of this.entries) {
        if (this.bytes <= this.maxBytes) break;
        this.entries.delete(key);
        this.bytes -= value.byteLength;
      }
    }
    return bytes;
  }

  get size(): number {
    return this.bytes;
  }
}
