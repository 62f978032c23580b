import type { Cancel } from '../clock.ts';
import { writeCounts } from '../counted-flush.ts';
import type { AppContext } from '../context.ts';
import { tx } from '../db/sql.ts';
import type { Lifecycle } from '../lifecycle.ts';

/** The part of the app context this feature uses. */
export type UsageDeps = Pick<AppContext, 'sql' | 'events' | 'log' | 'now' | 'scheduler'>;

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

const COLUMNS = COUNTERS.map((c) => COLUMN[c]);
const UPSERT = `INSERT INTO usage_daily (canvas_id, day, ${COLUMNS.join(', ')}) VALUES (?1, ?2, ${COLUMNS.map((_, i) => `?${i + 3}`).join(', ')})
  ON CONFLICT (canvas_id, day) DO UPDATE SET ${COLUMNS.map((c) => `${c} = usage_daily.${c} + excluded.${c}`).join(', ')}`;
const READ = `SELECT ${COUNTERS.map((c) => `${COLUMN[c]} AS "${c}"`).join(', ')} FROM usage_daily WHERE canvas_id = ?1 AND day = ?2`;

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
    this.cancelTimer = this.ctx.scheduler.interval(FLUSH_EVERY_MS, () => void this.flush());
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

  /** Writes the pending counts in one transaction (never fails: a failure is logged). */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    await writeCounts('usage', this.ctx.log, this.cancelTimer, async () => {
      await this.ctx.sql.write(function* () {
        for (const [key, p] of batch) {
          const [canvasId, day] = key.split('\n') as [string, string];
          yield* tx.run(UPSERT, canvasId, day, ...COUNTERS.map((c) => p[c]));
        }
      });
      this.ctx.events.emit('usage.flushed', { rows: batch.size });
    });
  }

  async stop(): Promise<void> {
    this.cancelTimer();
    await this.flush();
  }

  /** Flushed totals for a canvas and day (tests, admin views). */
  async read(canvasId: string, day: string): Promise<Pending | null> {
    return (await this.ctx.sql.get<Pending>(READ, canvasId, day)) ?? null;
  }
}

// Every runtime request counts itself under its day: the day's string is made once a day, not per request
// (a Date and its ISO text per request showed up in KV's profile).
const DAY_MS = 86_400_000;
let dayStart = 0;
let dayEnd = 0;
let dayText = '';

export function utcDay(ms: number): string {
  if (ms < dayStart || ms >= dayEnd) {
    dayStart = ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
    dayEnd = dayStart + DAY_MS;
    dayText = new Date(dayStart).toISOString().slice(0, 10);
  }
  return dayText;
}
