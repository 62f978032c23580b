import type { Sql } from '../../db/sql.ts';
import { AppError } from '../../errors.ts';
import { utcDay } from '../usage.ts';
import { roundUsd } from './pricing.ts';
import { LISTED_IDS } from '../../canvases/store.ts';

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

const SUMS = `COUNT(*) AS calls, COALESCE(SUM(input_tokens), 0) AS "inputTokens", COALESCE(SUM(output_tokens), 0) AS "outputTokens",
  COALESCE(SUM(cache_creation_input_tokens), 0) AS "cacheCreationInputTokens",
  COALESCE(SUM(cache_read_input_tokens), 0) AS "cacheReadInputTokens", COALESCE(SUM(cost_usd), 0) AS "costUsd"`;

const SPENT = "CASE state WHEN 'settled' THEN cost_usd ELSE reserved_usd END";
const BUDGET = `SELECT COALESCE(SUM(${SPENT}), 0) AS spent,
  COALESCE(SUM(CASE WHEN actor_kind = 'guest' THEN ${SPENT} ELSE 0 END), 0) AS guest
  FROM ai_calls WHERE canvas_id = ?1 AND month = ?2`;

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
  constructor(private readonly sql: Sql) {}

  forCanvas(canvasId: string, range: UsageRange): Promise<UsageReport> {
    return this.report('a.canvas_id = ?3', [canvasId], range, false);
  }

  async budget(canvasId: string, now: number, capUsd: number, guestCapUsd: number): Promise<CanvasBudget> {
    const month = utcDay(now).slice(0, 7);
    const r = (await this.sql.get<{ spent: number; guest: number }>(BUDGET, canvasId, month))!;
    return { month, capUsd, spentUsd: roundUsd(r.spent), guestCapUsd, guestSpentUsd: roundUsd(r.guest) };
  }

  /**
   * This month's spend (as the cap check counts it) and settled calls of
   * every canvas in `userId`'s list: one grouped read for the dashboard's
   * home list, where a request per canvas made a list of hundreds slow.
   */
  async monthByListedCanvas(
    userId: string,
    now: number,
  ): Promise<{ month: string; byCanvas: Map<string, { spentUsd: number; calls: number }> }> {
    const month = utcDay(now).slice(0, 7);
    const rows = await this.sql.all<{ canvas_id: string; spent: number; calls: number }>(
      `SELECT canvas_id, COALESCE(SUM(${SPENT}), 0) AS spent, SUM(CASE WHEN state = 'settled' THEN 1 ELSE 0 END) AS calls
       FROM ai_calls WHERE month = ?2 AND canvas_id IN (${LISTED_IDS}) GROUP BY canvas_id`,
      userId,
      month,
    );
    return { month, byCanvas: new Map(rows.map((r) => [r.canvas_id, { spentUsd: roundUsd(Number(r.spent)), calls: Number(r.calls) }])) };
  }

  forInstance(range: UsageRange): Promise<UsageReport> {
    return this.report('1 = 1', [], range, true);
  }

  /** `scope` is a condition on `ai_calls a` whose parameters start at ?3 (?1 and ?2 are the range). */
  private async report(scope: string, args: string[], range: UsageRange, admin: boolean): Promise<UsageReport> {
    const where = `${scope} AND a.day >= ?1 AND a.day <= ?2`;
    const settled = `${where} AND a.state = 'settled'`;
    const params = [range.from, range.to, ...args];
    const all = async <T extends SpendTotals>(text: string) => (await this.sql.all<T>(text, ...params)).map(rounded);
    const [totals] = await all<SpendTotals>(`SELECT ${SUMS} FROM ai_calls a WHERE ${settled}`);
    const [byDay, byModel, byUser, inFlight] = await Promise.all([
      all<UsageReport['byDay'][number]>(`SELECT a.day, ${SUMS} FROM ai_calls a WHERE ${settled} GROUP BY a.day ORDER BY a.day`),
      all<UsageReport['byModel'][number]>(
        `SELECT a.model, ${SUMS} FROM ai_calls a WHERE ${settled} GROUP BY a.model ORDER BY "costUsd" DESC, a.model`,
      ),
      // Grouped by every column shown (one actor has one kind, name and email): Postgres asks for it.
      all<UsageReport['byUser'][number]>(
        `SELECT a.actor_id AS "actorId", a.actor_kind AS "actorKind", COALESCE(u.name, g.name) AS name${admin ? ', u.email AS email' : ''}, ${SUMS}
         FROM ai_calls a
         LEFT JOIN users u ON a.actor_kind = 'member' AND u.id = a.actor_id
         LEFT JOIN guest_invites g ON a.actor_kind = 'guest' AND a.actor_id = 'guest:' || g.id
         WHERE ${settled} GROUP BY a.actor_id, a.actor_kind, u.name, g.name${admin ? ', u.email' : ''} ORDER BY "costUsd" DESC, a.actor_id`,
      ),
      this.sql.get<{ calls: number; reservedUsd: number }>(
        `SELECT COUNT(*) AS calls, COALESCE(SUM(a.reserved_usd), 0) AS "reservedUsd" FROM ai_calls a WHERE ${where} AND a.state = 'reserved'`,
        ...params,
      ),
    ]);
    const report: UsageReport = {
      ...range,
      totals: totals!,
      byDay,
      byModel,
      byUser,
      inFlight: { calls: inFlight!.calls, reservedUsd: roundUsd(inFlight!.reservedUsd) },
    };
    if (admin) {
      report.byCanvas = await all(
        `SELECT a.canvas_id AS "canvasId", c.slug AS slug, c.title AS title, ${SUMS}
         FROM ai_calls a LEFT JOIN canvases c ON c.id = a.canvas_id
         WHERE ${settled} GROUP BY a.canvas_id, c.slug, c.title ORDER BY "costUsd" DESC, a.canvas_id`,
      );
    }
    return report;
  }
}

/** Sums of rounded costs carry float noise; show them rounded again. */
function rounded<T extends SpendTotals>(row: T): T {
  return { ...row, costUsd: roundUsd(row.costUsd) };
}
