import { tx, type Sql, type TxSteps } from '../../db/sql.ts';
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

const ROW = `id, canvas_id AS "canvasId", actor_id AS "actorId", actor_kind AS "actorKind", model, state, reserved_usd AS "reservedUsd",
  input_tokens AS "inputTokens", output_tokens AS "outputTokens", cache_creation_input_tokens AS "cacheCreationInputTokens",
  cache_read_input_tokens AS "cacheReadInputTokens", cost_usd AS "costUsd", day, month, created_at AS "createdAt",
  settled_at AS "settledAt", outcome`;

const INSERT = `INSERT INTO ai_calls (id, canvas_id, actor_id, actor_kind, model, state, reserved_usd, day, month, created_at, node_id)
  VALUES (?1, ?2, ?3, ?4, ?5, 'reserved', ?6, ?7, ?8, ?9, ?10)`;
// `state = 'reserved'` makes settling idempotent: only the first settle of a call counts.
const SETTLE = `UPDATE ai_calls SET state = 'settled', input_tokens = ?1, output_tokens = ?2, cache_creation_input_tokens = ?3,
  cache_read_input_tokens = ?4, cost_usd = ?5, settled_at = ?6, outcome = ?7 WHERE id = ?8 AND state = 'reserved'`;

/** The spend a reservation is checked against, read inside its transaction. */
export interface SpendNow {
  actorDay: number;
  canvasMonth: number;
  guestMonth: number;
}

/**
 * SQL for AI call accounting. A reservation reads the spend and inserts
 * its row in one transaction holding the caller's and the canvas's locks
 * (always in that order), so two calls cannot both start on the last of a
 * budget without seeing each other.
 */
export class AiCallStore {
  /** `nodeId`: this process, named on its reservations (see settleOrphans). */
  constructor(
    private readonly sql: Sql,
    private readonly nodeId: string,
  ) {}

  /**
   * Inserts the reservation `c` unless `refusal` (given the spend as it
   * stands, settled costs plus running reservations) throws.
   */
  reserve(c: NewAiCall, refusal: (spend: SpendNow) => void): Promise<void> {
    const nodeId = this.nodeId;
    return this.sql.write(function* () {
      yield* tx.lock('ai-actor', c.actorId);
      yield* tx.lock('ai-canvas', c.canvasId);
      const usd = function* (where: string, ...params: string[]): TxSteps<number> {
        return (yield* tx.get<{ usd: number }>(`SELECT ${SPEND} AS usd FROM ai_calls WHERE ${where}`, ...params))!.usd;
      };
      refusal({
        actorDay: yield* usd('actor_id = ?1 AND day = ?2', c.actorId, c.day),
        canvasMonth: yield* usd('canvas_id = ?1 AND month = ?2', c.canvasId, c.month),
        guestMonth: yield* usd("canvas_id = ?1 AND month = ?2 AND actor_kind = 'guest'", c.canvasId, c.month),
      });
      yield* tx.run(INSERT, c.id, c.canvasId, c.actorId, c.actorKind, c.model, c.reservedUsd, c.day, c.month, c.createdAt, nodeId);
    });
  }

  /** True when this call settled the row; false when it was already settled. */
  async settle(id: string, usage: ChatUsage, costUsd: number, outcome: AiOutcome, now: number): Promise<boolean> {
    const changed = await this.sql.run(
      SETTLE,
      usage.inputTokens,
      usage.outputTokens,
      usage.cacheCreationInputTokens,
      usage.cacheReadInputTokens,
      costUsd,
      now,
      outcome,
      id,
    );
    return changed === 1;
  }

  async byId(id: string): Promise<AiCallRow | null> {
    return (await this.sql.get<AiCallRow>(`SELECT ${ROW} FROM ai_calls WHERE id = ?1`, id)) ?? null;
  }

  /**
   * Reservations a process left behind (it stopped mid-call): their usage
   * never arrived, so they settle as the spec's usage timeout does, with 0
   * tokens and 0 cost. Embedded (`liveSince` null): every reservation, run
   * once at start before any call of this process exists. On a cluster: the
   * reservations of nodes whose heartbeat is older than `liveSince` (never
   * this node's own). Returns how many.
   */
  settleOrphans(now: number, liveSince: number | null): Promise<number> {
    const settle =
      "UPDATE ai_calls SET state = 'settled', cost_usd = 0, settled_at = ?1, outcome = 'usage_timeout' WHERE state = 'reserved'";
    if (liveSince === null) return this.sql.run(settle, now);
    return this.sql.run(
      `${settle} AND (node_id IS NULL OR (node_id <> ?2 AND node_id NOT IN (SELECT id FROM nodes WHERE heartbeat_at > ?3)))`,
      now,
      this.nodeId,
      liveSince,
    );
  }
}
