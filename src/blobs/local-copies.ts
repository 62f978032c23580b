// Which blobs this node holds a local copy of, and how many bytes, when the
// blob store's home is remote: the local folder is then a cache bounded in
// bytes, emptied least recently used first. A copy used in the last minute
// is never taken, since a response may be about to open it; the cache may
// run over its bound for that long rather than fail a page.

const RECENT_MS = 60_000;

export class LocalCopies {
  /** Map order is use order: oldest first. */
  private readonly entries = new Map<string, { size: number; usedAt: number }>();
  private total = 0;

  constructor(
    readonly limitBytes: number,
    private readonly now: () => number,
    /** Removes the copy; false when it must stay for now (trimming stops until the next use). */
    private readonly drop: (hash: string) => boolean,
  ) {}

  get bytes(): number {
    return this.total;
  }

  get count(): number {
    return this.entries.size;
  }

  /** A copy was written or used: it moves to the back of the line; older ones go once the bound is passed. */
  use(hash: string, size: number): void {
    const known = this.entries.get(hash);
    if (known) {
      this.entries.delete(hash);
      this.total -= known.size;
    }
    this.entries.set(hash, { size, usedAt: this.now() });
    this.total += size;
    this.trim();
  }

  /** A known copy was used again (no size to look up: the serving path's fast case). */
  touch(hash: string): void {
    const known = this.entries.get(hash);
    if (!known) return;
    this.entries.delete(hash);
    known.usedAt = this.now();
    this.entries.set(hash, known);
  }

  forget(hash: string): void {
    const known = this.entries.get(hash);
    if (!known) return;
    this.entries.delete(hash);
    this.total -= known.size;
  }

  has(hash: string): boolean {
    return this.entries.has(hash);
  }

  private trim(): void {
    if (this.total <= this.limitBytes) return;
    const cutoff = this.now() - RECENT_MS;
    for (const [hash, entry] of this.entries) {
      if (this.total <= this.limitBytes || entry.usedAt > cutoff || !this.drop(hash)) return;
      // The drop may have forgotten the copy itself (the store's does): counted off once.
      if (this.entries.delete(hash)) this.total -= entry.size;
    }
  }
}
