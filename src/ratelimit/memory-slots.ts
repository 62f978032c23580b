// Concurrency slots held in this process's memory: the embedded adapter's,
// and what a node counts in while Redis cannot.
import type { SlotPool, SlotRelease } from './port.ts';

export class MemorySlots implements SlotPool {
  private readonly held = new Map<string, number>();

  take(key: string, limit: number): SlotRelease | null {
    const used = this.held.get(key) ?? 0;
    if (used >= limit) return null;
    this.held.set(key, used + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.held.get(key) ?? 1) - 1;
      if (left > 0) this.held.set(key, left);
      else this.held.delete(key);
    };
  }
}
