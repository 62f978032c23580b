import type { Database } from 'bun:sqlite';
import { AppError } from '../../errors.ts';
import { utcDay } from '../usage.ts';
import { roundUsd } from './pricing.ts';

/** Sums over settled calls. */
export interface SpendTotals {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cacheCreationInputTokens: number;
  cacheReadInputTokens: number;
  costUsd: number;
}

export interface UsageRange {
  from: string;
  to: string;
}

export interface UsageReport extends UsageRange {
  totals: SpendTotals;
  byDay: Array<SpendTotals & { day: string }>;
  byModel: Array<SpendTotals & { model: string }>;
  byUser: Array<SpendTotals & { actorId: string; actorKind: 'member' | 'guest'; name: string | null; email?: string | null }>;
  byCanvas?: Array<SpendTotals & { canvasId: string; slug: string | null; title: string | null }>;
  /** Calls still running (their reservations count against the caps until they settle). */
  inFlight: { calls: number; reservedUsd: number };
}

/** Where a canvas stands against its monthly caps right now (spend as the cap check counts it: settled plus running). */
export interface CanvasBudget {
  month: string;
  capUsd: number;
  spentUsd: number;
  /** 0 = no guest cap. */
  guestCapUsd: number;
  guestSpentUsd: number;
}

const SUMS = `COUNT(*) AS calls, COALESCE(SUM(input_tokens), 0) AS inputTokens, COALESCE(SUM(output_tokens), 0) AS outputTokens,
  COALESCE(SUM(cache_creation_input_tokens), 0) AS cacheCreationInputTokens, COALESCE(SUM(cache_read_input_tokens), 0) AS cacheReadInputTokens,
  COALESCE(SUM(cost_usd), 0) AS costUsd`;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * `from`/`to`: inclusive UTC days (yyyy-mm-dd). Defaults: the current UTC
 * month so far. A bad date or from after to is 400 INVALID_BODY.
 */
export function rangeOf(query: { from?: string | null; to?: string | null }, now: number): UsageRange {
  const today = utcDay(now);
  const from = query.from || `${today.slice(0, 7)}-01`;
  const to = query.to || today;
  for (const [name, v] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (!DAY.test(v) || Number.isNaN(Date.parse(`${v}T00:00:00Z`)) || new Date(`${v}T00:00:00Z`).toISOString().slice(0, 10) !== v) {
      throw new AppError('INVALID_BODY', `${name} must be a UTC date yyyy-mm-dd`);
    }
  }
  if (from > to) throw new AppError('INVALID_BODY', 'from must not be after to');
  return { from, to };
}

/** Spend views for the dashboard: one canvas (owners, editors, admins) or the whole instance (admins). */
export class UsageReports {
  constructor(private readonly db: Database) {}

  forCanvas(canvasId: string, range: UsageRange): UsageReport {
    return this.report('canvas_id = ?', [canvasId], range, false);
  }

  budget(canvasId: string, now: number, capUsd: number, guestCapUsd: number): CanvasBudget {
    const month = utcDay(now).slice(0, 7);
    const r = this.db
      .query<{ spent: number; guest: number }, [string, string]>(
        `SELECT COALESCE(SUM(CASE state WHEN 'settled' THEN cost_usd ELSE reserved_usd END), 0) AS spent,
         COALESCE(SUM(CASE WHEN actor_kind = 'guest' THEN (CASE state WHEN 'settled' THEN cost_usd ELSE reserved_usd END) ELSE 0 END), 0) AS guest
         FROM ai_calls WHERE canvas_id = ? AND month = ?`,
      )
      .get(canvasId, month)!;
    return { month, capUsd, spentUsd: roundUsd(r.spent), guestCapUsd, guestSpentUsd: roundUsd(r.guest) };
  }

  forInstance(range: UsageRange): UsageReport {
    return this.report('1 = 1', [], range, true);
  }

  private report(scope: string, args: string[], range: UsageRange, admin: boolean): UsageReport {
    const where = `${scope} AND day >= ? AND day <= ?`;
    const settled = `${where} AND state = 'settled'`;
    const params = [...args, range.from, range.to];
    const all = <T extends SpendTotals>(sql: string) =>
      this.db
        .query<T, string[]>(sql)
        .all(...params)
        .map(rounded);
    const totals = rounded(this.db.query<SpendTotals, string[]>(`SELECT ${SUMS} FROM ai_calls WHERE ${settled}`).get(...params)!);
    const byUser = all<UsageReport['byUser'][number]>(
      `SELECT a.actor_id AS actorId, a.actor_kind AS actorKind, COALESCE(u.name, g.name) AS name${admin ? ', u.email AS email' : ''}, ${SUMS}
       FROM ai_calls a
       LEFT JOIN users u ON a.actor_kind = 'member' AND u.id = a.actor_id
       LEFT JOIN guest_invites g ON a.actor_kind = 'guest' AND a.actor_id = 'guest:' || g.id
       WHERE ${settled.replaceAll('canvas_id', 'a.canvas_id')} GROUP BY a.actor_id ORDER BY costUsd DESC, a.actor_id`,
    );
    const report: UsageReport = {
      ...range,
      totals,
      byDay: all(`SELECT day, ${SUMS} FROM ai_calls WHERE ${settled} GROUP BY day ORDER BY day`),
      byModel: all(`SELECT model, ${SUMS} FROM ai_calls WHERE ${settled} GROUP BY model ORDER BY costUsd DESC, model`),
      byUser,
      inFlight: this.db
        .query<{ calls: number; reservedUsd: number }, string[]>(
          `SELECT COUNT(*) AS calls, COALESCE(SUM(reserved_usd), 0) AS reservedUsd FROM ai_calls WHERE ${where} AND state = 'reserved'`,
        )
        .get(...params)!,
    };
    report.inFlight.reservedUsd = roundUsd(report.inFlight.reservedUsd);
    if (admin) {
      report.byCanvas = all(
        `SELECT a.canvas_id AS canvasId, c.slug AS slug, c.title AS title, ${SUMS}
         FROM ai_calls a LEFT JOIN canvases c ON c.id = a.canvas_id
         WHERE ${settled} GROUP BY a.canvas_id ORDER BY costUsd DESC, a.canvas_id`,
      );
    }
    return report;
  }
}

/** Sums of rounded costs carry float noise; show them rounded again. */
function rounded<T extends SpendTotals>(row: T): T {
  return { ...row, costUsd: roundUsd(row.costUsd) };
}
