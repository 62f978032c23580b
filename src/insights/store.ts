// The insight tables (migration 027): each flush adds its counts to the day's
// row (so nodes add up), inserts visitor hashes once, and keeps a canvas-day's
// busiest paths only. Reads sum a window of days.
import { tx, type Sql } from '../db/sql.ts';

export const API_KINDS = ['kv', 'files', 'ai', 'realtime', 'collections', 'submissions'] as const;
export type ApiKind = (typeof API_KINDS)[number];

/** Paths kept per canvas and day: the busiest; the rest are dropped at each flush. */
export const PATHS_KEPT = 50;
/** How long insight rows are kept (housekeeping removes older days). */
export const INSIGHT_DAYS_KEPT = 400;

export interface PendingDay {
  views: number;
  paths: Map<string, number>;
  visitors: Set<string>;
  api: Record<ApiKind, number>;
}

export interface FlushedDay {
  canvasId: string;
  day: string;
  counts: PendingDay;
  visitors: string[];
}

export interface Insights {
  days: Array<{ date: string; views: number; visitors: number }>;
  topPaths: Array<{ path: string; views: number }>;
  api: Record<ApiKind, number>;
}

const API_COLUMNS = API_KINDS.map((k) => `api_${k}`);
const ADD_DAY = `INSERT INTO insight_days (canvas_id, day, views, ${API_COLUMNS.join(', ')})
  VALUES (?1, ?2, ?3, ${API_COLUMNS.map((_, i) => `?${i + 4}`).join(', ')})
  ON CONFLICT (canvas_id, day) DO UPDATE SET views = insight_days.views + excluded.views, ${API_COLUMNS.map((c) => `${c} = insight_days.${c} + excluded.${c}`).join(', ')}`;
const ADD_PATH = `INSERT INTO insight_paths (canvas_id, day, path, views) VALUES (?1, ?2, ?3, ?4)
  ON CONFLICT (canvas_id, day, path) DO UPDATE SET views = insight_paths.views + excluded.views`;
const ADD_VISITOR = 'INSERT INTO insight_visitors (canvas_id, day, visitor) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING';
const TRIM_PATHS = `DELETE FROM insight_paths WHERE canvas_id = ?1 AND day = ?2 AND path NOT IN
  (SELECT path FROM insight_paths WHERE canvas_id = ?1 AND day = ?2 ORDER BY views DESC, path LIMIT ${PATHS_KEPT})`;

export class InsightStore {
  constructor(private readonly sql: Sql) {}

  /** One transaction; canvas-days in key order so two nodes flushing at once take row locks in the same order. */
  async add(batch: FlushedDay[]): Promise<void> {
    const sorted = [...batch].sort((a, b) => (a.canvasId + a.day < b.canvasId + b.day ? -1 : 1));
    await this.sql.write(function* () {
      for (const { canvasId, day, counts, visitors } of sorted) {
        yield* tx.run(ADD_DAY, canvasId, day, counts.views, ...API_KINDS.map((k) => counts.api[k]));
        for (const [path, views] of [...counts.paths].sort(([a], [b]) => (a < b ? -1 : 1)))
          yield* tx.run(ADD_PATH, canvasId, day, path, views);
        if (counts.paths.size > 0) yield* tx.run(TRIM_PATHS, canvasId, day);
        for (const visitor of visitors.sort()) yield* tx.run(ADD_VISITOR, canvasId, day, visitor);
      }
    });
  }

  /** The `days` UTC days ending with `today`, oldest first, every day present (zeros where nothing was counted). */
  async read(canvasId: string, today: string, days: number): Promise<Insights> {
    const dates = Array.from({ length: days }, (_, i) =>
      new Date(Date.parse(today) - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10),
    );
    const from = dates[0]!;
    const [dayRows, visitorRows, pathRows, apiRow] = await Promise.all([
      this.sql.all<{ day: string; views: number }>(
        'SELECT day, views FROM insight_days WHERE canvas_id = ?1 AND day >= ?2',
        canvasId,
        from,
      ),
      this.sql.all<{ day: string; n: number }>(
        'SELECT day, COUNT(*) AS n FROM insight_visitors WHERE canvas_id = ?1 AND day >= ?2 GROUP BY day',
        canvasId,
        from,
      ),
      this.sql.all<{ path: string; views: number }>(
        `SELECT path, SUM(views) AS views FROM insight_paths WHERE canvas_id = ?1 AND day >= ?2
          GROUP BY path ORDER BY SUM(views) DESC, path LIMIT ${PATHS_KEPT}`,
        canvasId,
        from,
      ),
      this.sql.get<Record<ApiKind, number | null>>(
        `SELECT ${API_KINDS.map((k) => `SUM(api_${k}) AS "${k}"`).join(', ')} FROM insight_days WHERE canvas_id = ?1 AND day >= ?2`,
        canvasId,
        from,
      ),
    ]);
    const views = new Map(dayRows.map((r) => [r.day, Number(r.views)]));
    const visitors = new Map(visitorRows.map((r) => [r.day, Number(r.n)]));
    return {
      days: dates.map((date) => ({ date, views: views.get(date) ?? 0, visitors: visitors.get(date) ?? 0 })),
      topPaths: pathRows.map((r) => ({ path: r.path, views: Number(r.views) })),
      api: Object.fromEntries(API_KINDS.map((k) => [k, Number(apiRow?.[k] ?? 0)])) as Record<ApiKind, number>,
    };
  }
}

/** The oldest day kept on `today`: rows of earlier days are housekeeping's. */
export function oldestKeptDay(now: number): string {
  return new Date(now - (INSIGHT_DAYS_KEPT - 1) * 86_400_000).toISOString().slice(0, 10);
}
