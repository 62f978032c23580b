import type { Database, Statement } from 'bun:sqlite';
import type { ChatUsage } from './model.ts';

export type AiOutcome = 'ok' | 'upstream_error' | 'aborted' | 'usage_timeout';
export type ActorKind = 'member' | 'guest';

export interface NewAiCall {
  id: string;
  canvasId: string;
  actorId: string;
  actorKind: ActorKind;
  model: string;
  reservedUsd: number;
  day: string;
  month: string;
  createdAt: number;
}

export interface AiCallRow {
  id: string;
  canvasId: string;
  actorId: string;
  actorKind: ActorKind;
  model: string;
  state: 'reserved' | 'settled';
  reservedUsd: number;
  inputTokens: number;
  outputTokens: number;
  cacheCreationInputTokens: number;
  cacheReadInputTokens: number;
  costUsd: number;
  day: string;
  month: string;
  createdAt: number;
  settledAt: number | null;
  outcome: AiOutcome | null;
}

/** Spend in a window: settled costs plus the reservations of calls still running. */
const SPEND = `COALESCE(SUM(CASE state WHEN 'settled' THEN cost_usd ELSE reserved_usd END), 0)`;

const ROW = `id, canvas_id AS canvasId, actor_id AS actorId, actor_kind AS actorKind, model, state, reserved_usd AS reservedUsd,
  input_tokens AS inputTokens, output_tokens AS outputTokens, cache_creation_input_tokens AS cacheCreationInputTokens,
  cache_read_input_tokens AS cacheReadInputTokens, cost_usd AS costUsd, day, month, created_at AS createdAt,
  settled_at AS settledAt, outcome`;

/** SQL for AI call accounting. Callers wrap check-then-reserve in one IMMEDIATE transaction. */
export class AiCallStore {
  private readonly actorDayQ: Statement<{ usd: number }, [string, string]>;
  private readonly canvasMonthQ: Statement<{ usd: number }, [string, string]>;
  private readonly guestMonthQ: Statement<{ usd: number }, [string, string]>;
  private readonly insertQ: Statement<unknown, [string, string, string, string, string, number, string, string, number]>;
  private readonly settleQ: Statement<unknown, [number, number, number, number, number, number, string, string]>;
  private readonly byIdQ: Statement<AiCallRow, [string]>;

  constructor(readonly db: Database) {
    this.actorDayQ = db.query(`SELECT ${SPEND} AS usd FROM ai_calls WHERE actor_id = ? AND day = ?`);
    this.canvasMonthQ = db.query(`SELECT ${SPEND} AS usd FROM ai_calls WHERE canvas_id = ? AND month = ?`);
    this.guestMonthQ = db.query(`SELECT ${SPEND} AS usd FROM ai_calls WHERE canvas_id = ? AND month = ? AND actor_kind = 'guest'`);
    this.insertQ = db.query(
      `INSERT INTO ai_calls (id, canvas_id, actor_id, actor_kind, model, state, reserved_usd, day, month, created_at)
       VALUES (?, ?, ?, ?, ?, 'reserved', ?, ?, ?, ?)`,
    );
    // `state = 'reserved'` makes settling idempotent: only the first settle of a call counts.
    this.settleQ = db.query(
      `UPDATE ai_calls SET state = 'settled', input_tokens = ?, output_tokens = ?, cache_creation_input_tokens = ?,
       cache_read_input_tokens = ?, cost_usd = ?, settled_at = ?, outcome = ? WHERE id = ? AND state = 'reserved'`,
    );
    this.byIdQ = db.query(`SELECT ${ROW} FROM ai_calls WHERE id = ?`);
  }

  actorDaySpend(actorId: string, day: string): number {
    return this.actorDayQ.get(actorId, day)!.usd;
  }

  canvasMonthSpend(canvasId: string, month: string): number {
    return this.canvasMonthQ.get(canvasId, month)!.usd;
  }

  guestMonthSpend(canvasId: string, month: string): number {
    return this.guestMonthQ.get(canvasId, month)!.usd;
  }

  insertReserved(c: NewAiCall): void {
    this.insertQ.run(c.id, c.canvasId, c.actorId, c.actorKind, c.model, c.reservedUsd, c.day, c.month, c.createdAt);
  }

  /** True when this call settled the row; false when it was already settled. */
  settle(id: string, usage: ChatUsage, costUsd: number, outcome: AiOutcome, now: number): boolean {
    const r = this.settleQ.run(
      usage.inputTokens,
      usage.outputTokens,
      usage.cacheCreationInputTokens,
      usage.cacheReadInputTokens,
      costUsd,
      now,
      outcome,
      id,
    );
    return r.changes === 1;
  }

  byId(id: string): AiCallRow | null {
    return this.byIdQ.get(id) ?? null;
  }

  /**
   * Reservations a previous process left behind (it stopped mid-call): their
   * usage never arrived, so they settle as the spec's usage timeout does,
   * with 0 tokens and 0 cost. Run once at start, before any call of this
   * process exists. Returns how many.
   */
  settleOrphans(now: number): number {
    return this.db
      .query(`UPDATE ai_calls SET state = 'settled', cost_usd = 0, settled_at = ?, outcome = 'usage_timeout' WHERE state = 'reserved'`)
      .run(now).changes;
  }
}
