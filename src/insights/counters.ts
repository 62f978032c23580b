// Insights without tracking (issue 39): page views, signed-in visitors, the
// busiest paths and runtime API calls per canvas and UTC day. A request only
// touches memory (a Map increment, a Set add); a timer folds the counts into
// the database, and shutdown folds the rest. Visitors leave memory as hashes
// (HMAC of the instance secret, the day and the person): the database never
// holds who, and two nodes counting the same person store one row.
import { createHmac } from 'node:crypto';
import type { Cancel } from '../clock.ts';
import { writeCounts } from '../counted-flush.ts';
import type { Core } from '../foundation.ts';
import type { Lifecycle } from '../lifecycle.ts';
import { utcDay } from '../runtime/usage.ts';
import { API_KINDS, type ApiKind, type InsightStore, type PendingDay } from './store.ts';

export type InsightDeps = Pick<Core, 'events' | 'log' | 'now' | 'scheduler' | 'instanceSecret'>;

const FLUSH_EVERY_MS = 10_000;
/** Distinct paths one canvas-day keeps between flushes; further new paths wait for the next interval's room. */
export const PATHS_PER_FLUSH = 200;
/** Distinct visitors one canvas-day keeps between flushes (each a short string); past it, views still count. */
const VISITORS_PER_FLUSH = 10_000;

export class InsightCounters implements Lifecycle {
  private pending = new Map<string, PendingDay>();
  private cancelTimer: Cancel = () => {};

  constructor(
    private readonly ctx: InsightDeps,
    private readonly store: InsightStore,
  ) {}

  start(): void {
    this.cancelTimer = this.ctx.scheduler.interval(FLUSH_EVERY_MS, () => void this.flush());
  }

  /** An HTML page answered 200: `visitor` is the signed-in person's or guest's id (null when anonymous). */
  view(canvasId: string, path: string, visitor: string | null): void {
    const day = this.day(canvasId);
    day.views++;
    const seen = day.paths.get(path);
    if (seen !== undefined) day.paths.set(path, seen + 1);
    else if (day.paths.size < PATHS_PER_FLUSH) day.paths.set(path, 1);
    if (visitor !== null && day.visitors.size < VISITORS_PER_FLUSH) day.visitors.add(visitor);
  }

  /** A runtime API call (a realtime connection counts once) admitted for the canvas. */
  api(canvasId: string, kind: ApiKind): void {
    this.day(canvasId).api[kind]++;
  }

  private day(canvasId: string): PendingDay {
    const key = `${canvasId}\n${utcDay(this.ctx.now())}`;
    let p = this.pending.get(key);
    if (!p) {
      p = { views: 0, paths: new Map(), visitors: new Set(), api: Object.fromEntries(API_KINDS.map((k) => [k, 0])) as PendingDay['api'] };
      this.pending.set(key, p);
    }
    return p;
  }

  /** Writes what was counted in one transaction (never fails: a failure is logged and those counts are lost). */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const hashed = [...batch].map(([key, p]) => {
      const [canvasId, day] = key.split('\n') as [string, string];
      return { canvasId, day, counts: p, visitors: [...p.visitors].map((v) => this.hash(day, v)) };
    });
    await writeCounts('insights', this.ctx.log, this.cancelTimer, async () => {
      await this.store.add(hashed);
      this.ctx.events.emit('insights.flushed', { rows: batch.size });
    });
  }

  async stop(): Promise<void> {
    this.cancelTimer();
    await this.flush();
  }

  /** 16 bytes of HMAC-SHA256(instance secret, day + id): the same person is one row per day on every node; a new day, a new hash. */
  private hash(day: string, visitor: string): string {
    return createHmac('sha256', this.ctx.instanceSecret).update(`${day}\n${visitor}`).digest('base64url').slice(0, 22);
  }
}
