// SQL for webhooks and their deliveries (migration 027). Recording the
// deliveries of one event is one INSERT … SELECT over the canvas's active
// hooks that asked for it; sending is the worker's (./worker.ts), which
// claims rows through the shared LeasedQueue as the notification outbox does.
import { LeasedQueue } from '../db/leased-queue.ts';
import { tx, type Sql } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import type { WebhookEvent } from './events.ts';
import { eventsOf, KEPT_DELIVERIES } from './model.ts';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryView {
  id: string;
  event: string;
  status: DeliveryStatus;
  httpStatus: number | null;
  durationMs: number | null;
  attempts: number;
  createdAt: string;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  error: string | null;
}

export interface HookView {
  id: string;
  url: string;
  events: WebhookEvent[];
  active: boolean;
  lastDelivery: DeliveryView | null;
}

/** A hook as PUT asks for it: `id` keeps an existing one (its secret too), none makes a new one. */
export interface WantedHook {
  id?: string;
  url: string;
  events: string;
  active?: boolean;
}

/** A claimed delivery with what sending it needs. */
export interface ClaimedDelivery {
  id: string;
  hookId: string;
  canvasId: string;
  event: string;
  data: string;
  createdAt: number;
  attempts: number;
  url: string;
  secret: string;
  active: boolean;
}

interface DeliveryRow {
  id: string;
  event: string;
  state: DeliveryStatus;
  http_status: number | null;
  duration_ms: number | null;
  attempts: number;
  created_at: number;
  last_attempt_at: number | null;
  next_attempt_at: number;
  last_error: string | null;
}

interface HookRow {
  id: string;
  url: string;
  events: string;
  active: number;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

function deliveryView(r: DeliveryRow): DeliveryView {
  return {
    id: r.id,
    event: r.event,
    status: r.state,
    httpStatus: r.http_status === null ? null : Number(r.http_status),
    durationMs: r.duration_ms === null ? null : Number(r.duration_ms),
    attempts: Number(r.attempts),
    createdAt: iso(r.created_at)!,
    lastAttemptAt: iso(r.last_attempt_at),
    nextAttemptAt: r.state === 'pending' ? iso(r.next_attempt_at) : null,
    error: r.last_error,
  };
}

const DELIVERY_COLUMNS = 'id, event, state, http_status, duration_ms, attempts, created_at, last_attempt_at, next_attempt_at, last_error';

export class WebhookStore {
  private readonly queue: LeasedQueue;

  constructor(private readonly sql: Sql) {
    this.queue = new LeasedQueue(sql, 'webhook_deliveries');
  }

  async list(canvasId: string): Promise<HookView[]> {
    const hooks = await this.sql.all<HookRow>(
      'SELECT id, url, events, active FROM webhooks WHERE canvas_id = ?1 ORDER BY created_at, id',
      canvasId,
    );
    const out: HookView[] = [];
    for (const h of hooks) {
      const last = await this.sql.get<DeliveryRow>(
        `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE hook_id = ?1 ORDER BY created_at DESC, id DESC LIMIT 1`,
        h.id,
      );
      out.push({
        id: h.id,
        url: h.url,
        events: eventsOf(h.events),
        active: Number(h.active) === 1,
        lastDelivery: last ? deliveryView(last) : null,
      });
    }
    return out;
  }

  /** Whether the hook belongs to the canvas. */
  async has(canvasId: string, hookId: string): Promise<boolean> {
    return (await this.sql.get('SELECT 1 AS x FROM webhooks WHERE id = ?1 AND canvas_id = ?2', hookId, canvasId)) !== undefined;
  }

  /**
   * Makes the canvas's hooks exactly `wanted`: hooks not named by id go (their
   * deliveries with them), named ones change, new ones get an id and the
   * secret `secretFor(id)` makes (sealed or not, the caller's business).
   * Returns the new hooks' ids in `wanted`'s order (null for kept ones).
   * 400 when an id is not one of this canvas's hooks.
   */
  replace(canvasId: string, wanted: WantedHook[], now: number, secretFor: (id: string) => string): Promise<Array<string | null>> {
    const ids = wanted.map((w) => (w.id === undefined ? newId() : null));
    const secrets = ids.map((id) => (id === null ? null : secretFor(id)));
    return this.sql.write(function* () {
      // Two PUTs at once: each replaces the whole list after the other, never a mix.
      yield* tx.lock('webhooks', canvasId);
      const existing = new Set((yield* tx.all<{ id: string }>('SELECT id FROM webhooks WHERE canvas_id = ?1', canvasId)).map((r) => r.id));
      const kept = new Set<string>();
      for (const w of wanted) {
        if (w.id === undefined) continue;
        if (!existing.has(w.id) || kept.has(w.id))
          throw new AppError('INVALID_BODY', `hooks: ${w.id} is not a hook of this canvas (send no id for a new hook)`);
        kept.add(w.id);
      }
      for (const id of existing) if (!kept.has(id)) yield* tx.run('DELETE FROM webhooks WHERE id = ?1', id);
      for (const [i, w] of wanted.entries()) {
        const id = ids[i];
        if (id !== null && id !== undefined) {
          yield* tx.run(
            'INSERT INTO webhooks (id, canvas_id, url, events, secret, active, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)',
            id,
            canvasId,
            w.url,
            w.events,
            secrets[i]!,
            w.active === false ? 0 : 1,
            now + i,
          );
          continue;
        }
        yield* tx.run('UPDATE webhooks SET url = ?1, events = ?2 WHERE id = ?3', w.url, w.events, w.id!);
        // Re-activating starts a fresh run: the failures before the pause do not count against it.
        if (w.active === true)
          yield* tx.run('UPDATE webhooks SET active = 1, failing_since = NULL, paused_at = NULL WHERE id = ?1 AND active = 0', w.id!);
        if (w.active === false) {
          yield* tx.run('UPDATE webhooks SET active = 0 WHERE id = ?1', w.id!);
          yield* failPending(w.id!, now, 'the hook was turned off');
        }
      }
      return ids;
    });
  }

  /** Whether any active hook of the canvas wants `event` (a read: most writes meet no hook and record nothing). */
  async wanted(canvasId: string, event: WebhookEvent): Promise<boolean> {
    const r = await this.sql.get(
      'SELECT 1 AS x FROM webhooks WHERE canvas_id = ?1 AND active = 1 AND events LIKE ?2 LIMIT 1',
      canvasId,
      `%,${event},%`,
    );
    return r !== undefined;
  }

  /** One delivery per active hook of the canvas that wants `event`, in one statement; how many. */
  record(canvasId: string, event: WebhookEvent, data: string, now: number): Promise<number> {
    // The delivery id: a fresh id for the event, then the hook's; unique per hook and the same on every retry.
    return this.sql.run(
      `INSERT INTO webhook_deliveries (id, hook_id, canvas_id, event, data, created_at, next_attempt_at)
       SELECT CAST(?1 AS TEXT) || id, id, canvas_id, CAST(?2 AS TEXT), CAST(?3 AS TEXT), CAST(?4 AS BIGINT), CAST(?4 AS BIGINT)
       FROM webhooks WHERE canvas_id = ?5 AND active = 1 AND events LIKE ?6`,
      `d${newId().slice(0, 12)}`,
      event,
      data,
      now,
      canvasId,
      `%,${event},%`,
    );
  }

  due(now: number, limit: number): Promise<string[]> {
    return this.queue.due(now, limit);
  }

  releaseAllLeases(): Promise<number> {
    return this.queue.releaseAll();
  }

  async claim(id: string, now: number, until: number, node: string): Promise<ClaimedDelivery | null> {
    if (!(await this.queue.claim(id, now, until, node))) return null;
    const r = await this.sql.get<{
      id: string;
      hook_id: string;
      canvas_id: string;
      event: string;
      data: string;
      created_at: number;
      attempts: number;
      url: string;
      secret: string;
      active: number;
    }>(
      `SELECT d.id, d.hook_id, d.canvas_id, d.event, d.data, d.created_at, d.attempts, h.url, h.secret, h.active
       FROM webhook_deliveries d JOIN webhooks h ON h.id = d.hook_id WHERE d.id = ?1`,
      id,
    );
    if (!r) return null;
    return {
      id: r.id,
      hookId: r.hook_id,
      canvasId: r.canvas_id,
      event: r.event,
      data: r.data,
      createdAt: Number(r.created_at),
      attempts: Number(r.attempts),
      url: r.url,
      secret: r.secret,
      active: Number(r.active) === 1,
    };
  }

  /** A 2xx: the delivery is done and the hook's run of failures (if any) is over. */
  async markDelivered(d: ClaimedDelivery, node: string, at: number, httpStatus: number, durationMs: number): Promise<void> {
    const done = await this.sql.run(
      `UPDATE webhook_deliveries SET state = 'delivered', attempts = attempts + 1, http_status = ?1, duration_ms = ?2,
         last_error = NULL, last_attempt_at = ?3, finished_at = ?3, lease_until = 0
       WHERE id = ?4 AND lease_node = ?5`,
      httpStatus,
      durationMs,
      at,
      d.id,
      node,
    );
    if (done === 1) await this.sql.run('UPDATE webhooks SET failing_since = NULL WHERE id = ?1', d.hookId);
  }

  /**
   * A failed attempt: tried again at `retryAt`, or (null) given up. Returns
   * since when the hook has been failing without a success in between.
   */
  async markFailed(
    d: ClaimedDelivery,
    node: string,
    at: number,
    outcome: { httpStatus: number | null; durationMs: number | null; error: string },
    retryAt: number | null,
  ): Promise<number> {
    await this.sql.run(
      `UPDATE webhook_deliveries SET attempts = attempts + 1, http_status = ?1, duration_ms = ?2, last_error = ?3,
         last_attempt_at = ?4, lease_until = 0,
         state = CASE WHEN ?5 < 0 THEN 'failed' ELSE 'pending' END,
         next_attempt_at = CASE WHEN ?5 < 0 THEN next_attempt_at ELSE ?5 END,
         finished_at = CASE WHEN ?5 < 0 THEN ?4 ELSE NULL END
       WHERE id = ?6 AND lease_node = ?7`,
      outcome.httpStatus,
      outcome.durationMs,
      outcome.error.slice(0, 500),
      at,
      retryAt ?? -1,
      d.id,
      node,
    );
    await this.sql.run('UPDATE webhooks SET failing_since = ?1 WHERE id = ?2 AND failing_since IS NULL', at, d.hookId);
    const h = await this.sql.get<{ failing_since: number | null }>('SELECT failing_since FROM webhooks WHERE id = ?1', d.hookId);
    return Number(h?.failing_since ?? at);
  }

  /** Pauses an active hook and gives up its pending deliveries; false when it was not active (another node paused it). */
  pause(hookId: string, at: number): Promise<boolean> {
    return this.sql.write(function* () {
      const paused = yield* tx.run('UPDATE webhooks SET active = 0, paused_at = ?1 WHERE id = ?2 AND active = 1', at, hookId);
      if (paused === 1) yield* failPending(hookId, at, 'the hook was paused after 24 hours of failures');
      return paused === 1;
    });
  }

  /** A delivery whose hook was turned off meanwhile: given up without sending. */
  skip(d: ClaimedDelivery, node: string, at: number): Promise<number> {
    return this.sql.run(
      `UPDATE webhook_deliveries SET state = 'failed', last_error = 'the hook is not active', finished_at = ?1, lease_until = 0
       WHERE id = ?2 AND lease_node = ?3`,
      at,
      d.id,
      node,
    );
  }

  /** Keeps the newest KEPT_DELIVERIES finished deliveries of the hook. */
  prune(hookId: string): Promise<number> {
    return this.sql.run(
      `DELETE FROM webhook_deliveries WHERE hook_id = ?1 AND state <> 'pending' AND id NOT IN
         (SELECT id FROM webhook_deliveries WHERE hook_id = ?1 AND state <> 'pending' ORDER BY created_at DESC, id DESC LIMIT ?2)`,
      hookId,
      KEPT_DELIVERIES,
    );
  }

  async deliveries(hookId: string): Promise<DeliveryView[]> {
    const rows = await this.sql.all<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE hook_id = ?1 ORDER BY created_at DESC, id DESC LIMIT ?2`,
      hookId,
      KEPT_DELIVERIES,
    );
    return rows.map(deliveryView);
  }
}

function* failPending(hookId: string, at: number, why: string) {
  yield* tx.run(
    `UPDATE webhook_deliveries SET state = 'failed', last_error = ?1, finished_at = ?2, lease_until = 0
     WHERE hook_id = ?3 AND state = 'pending'`,
    why,
    at,
    hookId,
  );
}
