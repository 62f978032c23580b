import type { Cancel } from '../clock.ts';
import type { AppContext } from '../context.ts';
import type { Lifecycle } from '../lifecycle.ts';

/** The part of the app context this feature uses. */
export type UsageDeps = Pick<AppContext, 'db' | 'events' | 'log' | 'now' | 'scheduler'>;

export type UsageCounter = 'requests' | 'kvReads' | 'kvWrites' | 'fileBytesIn' | 'fileBytesOut';

const COLUMN: Record<UsageCounter, string> = {
  requests: 'requests',
  kvReads: 'kv_reads',
  kvWrites: 'kv_writes',
  fileBytesIn: 'file_bytes_in',
  fileBytesOut: 'file_bytes_out',
};
const COUNTERS = Object.keys(COLUMN) as UsageCounter[];

const FLUSH_EVERY_MS = 5_000;

type Pending = Record<UsageCounter, number>;

/**
 * Per-canvas, per-UTC-day counters. Counting happens in memory (a request
 * must not pay for a write); a timer folds them into `usage_daily` every few
 * seconds, and shutdown folds the rest.
 */
export class UsageCounters implements Lifecycle {
  private pending = new Map<string, Pending>();
  private cancelTimer: Cancel = () => {};

  constructor(private readonly ctx: UsageDeps) {}

  start(): void {
    this.cancelTimer = this.ctx.scheduler.interval(FLUSH_EVERY_MS, () => this.flush());
  }

  add(canvasId: string, counter: UsageCounter, amount = 1): void {
    if (amount <= 0) return;
    const key = `${canvasId}\n${utcDay(this.ctx.now())}`;
    let p = this.pending.get(key);
    if (!p) {
      p = { requests: 0, kvReads: 0, kvWrites: 0, fileBytesIn: 0, fileBytesOut: 0 };
      this.pending.set(key, p);
    }
    p[counter] += amount;
  }

  /** Writes the pending counts in one transaction. */
  flush(): void {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const cols = COUNTERS.map((c) => COLUMN[c]);
    try {
      const upsert = this.ctx.db.query(
        `INSERT INTO usage_daily (canvas_id, day, ${cols.join(', ')}) VALUES (?, ?, ${cols.map(() => '?').join(', ')})
         ON CONFLICT(canvas_id, day) DO UPDATE SET ${cols.map((c) => `${c} = ${c} + excluded.${c}`).join(', ')}`,
      );
      this.ctx.db.transaction(() => {
        for (const [key, p] of batch) {
          const [canvasId, day] = key.split('\n') as [string, string];
          upsert.run(canvasId, day, ...COUNTERS.map((c) => p[c]));
        }
      })();
      this.ctx.events.emit('usage.flushed', { rows: batch.size });
    } catch (err) {
      // The database is gone (a test app closed without shutdown): nothing more to count into.
      this.cancelTimer();
      this.ctx.log.warn('usage flush failed', { error: err instanceof Error ? err.message : String(err) });
    }
  }

  stop(): void {
    this.cancelTimer();
    this.flush();
  }

  /** Flushed totals for a canvas and day (tests, admin views). */
  read(canvasId: string, day: string): Pending | null {
    const r = this.ctx.db
      .query<Record<string, number>, [string, string]>(
        `SELECT ${COUNTERS.map((c) => `${COLUMN[c]} AS ${c}`).join(', ')} FROM usage_daily WHERE canvas_id = ? AND day = ?`,
      )
      .get(canvasId, day);
    return r ? (r as Pending) : null;
  }
}

export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
