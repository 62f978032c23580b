// A signed-in page view's admission, remembered per session and canvas for a
// moment: a page load's assets then skip the ladder (the session, the
// canvas with its owner, the member role, the instance switches), one Map
// lookup instead of four. It is trusted exactly as the caches it was decided
// from are: only while the change signal (src/db/change-signal.ts: every
// write to sessions, users, canvases, members or settings, on any node)
// reads what it read when the decision began, and only until the first
// moment a time rule could answer otherwise (the session's expiry or hourly
// renewal, the canvas's share expiry), rechecked on every hit.
import { LruCache } from '../cache/lru.ts';
import type { ChangeSignal } from '../db/change-signal.ts';

/**
 * The longest an admission is reused without deciding it again. Short: it
 * only has to cover a page load's burst of assets, and what it was decided
 * from is itself trusted for at most VERSIONED_TTL_MS (writes the signal
 * cannot see, by another process) — so such a write shows within that bound
 * plus this one.
 */
export const ADMISSION_MEMO_MS = 1_000;

interface Entry<V> {
  value: V;
  version: number;
  until: number;
}

export class AdmissionMemo<V> {
  private readonly entries: LruCache<string, Entry<V>>;

  constructor(
    private readonly changes: ChangeSignal,
    private readonly now: () => number,
    maxEntries = 10_000,
  ) {
    this.entries = new LruCache({ maxEntries });
  }

  /** The value remembered under `key`, while nothing it was decided from can have changed; else undefined. */
  get(key: string): V | undefined {
    const hit = this.entries.peek(key);
    if (hit === undefined) return undefined;
    if (hit.version === this.changes.current() && this.now() < hit.until) return hit.value;
    this.entries.delete(key);
    return undefined;
  }

  /** The signal's reading as a decision begins; null when nothing decided now may be kept (a transaction, a signal not yet listening). */
  mark(): number | null {
    return this.changes.storable() ? this.changes.current() : null;
  }

  /** Remembers `value`, decided since `mark`, until `deadline` at the latest (a time rule's, or sooner). */
  put(mark: number | null, key: string, value: V, deadline: number): void {
    if (mark === null) return;
    const until = Math.min(deadline, this.now() + ADMISSION_MEMO_MS);
    if (until > this.now()) this.entries.set(key, { value, version: mark, until });
  }

  get size(): number {
    return this.entries.size;
  }
}
