// How many ZIP deploys read their body at once. A deploy holds up to one
// entry (25 MB) and its inflated copy in memory while it extracts: ten 95 MB
// deploys of 20 MB entries at once peaked at 470 MB of server memory. Past
// the limit a deploy waits before reading a byte and its client waits on TCP
// backpressure (Bun keeps only ~10 MB of an unread body). Measured on 2 cores
// (test/stress/load.test.ts, 10 × 95 MB at once): 1 at a time 247 MB peak and
// 161 MB/s, 2 at a time 312 MB and 147 MB/s, 4 at a time 397 MB: the disk and
// the CPU are the limit, not the number of deploys in flight. A bound on
// this process's memory, so it stays per process on a cluster (with
// EASEL_REDIS_URL too): each node protects its own memory.

/** Two at once keep ten concurrent 100 MB deploys well under 400 MB at the same throughput. */
export const ZIP_DEPLOYS_AT_ONCE = 2;

export class DeploySlots {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number = ZIP_DEPLOYS_AT_ONCE) {}

  /** Resolves once a slot is free; call the returned function exactly once to give it back. */
  async acquire(): Promise<() => void> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next deploy in line.
      if (next) next();
      else this.active--;
    };
  }
}
