import type { Canvas } from '../../canvases/record.ts';
import { AppError, aiBudgetSpent } from '../../errors.ts';
import { newId } from '../../ids.ts';
import type { EventBus } from '../../events.ts';
import type { Logger } from '../../log.ts';
import type { InstanceSettings, ModelPrice } from '../../settings/service.ts';
import type { RuntimeCaller } from '../pipeline.ts';
import { utcDay } from '../usage.ts';
import { ZERO_USAGE, type ChatRequest, type ChatUsage } from './model.ts';
import { costOf, reservationOf, validPrice } from './pricing.ts';
import { AiCallStore, type AiOutcome } from './store.ts';

/** A call that passed every check and holds a reservation against the caps. */
export interface Admission {
  callId: string;
  canvasId: string;
  actorId: string;
  request: ChatRequest;
  price: ModelPrice;
  apiKey: string;
}

export interface AiServiceDeps {
  store: AiCallStore;
  settings: () => InstanceSettings;
  now: () => number;
  log: Logger;
  events: EventBus;
  /** The ai capability gate (null when effective). */
  capabilityRefusal: (canvas: Canvas) => AppError | null;
}

/** Within a billionth of a dollar counts as reached: sums of rounded costs carry float noise. */
const EPSILON = 1e-9;
const reached = (spend: number, cap: number) => spend >= cap - EPSILON;

/**
 * The AI rules that are not about streaming: the pre-stream checks in the
 * spec's order, the reservation that makes concurrent calls see each other,
 * and settling each call exactly once.
 */
export class AiService {
  constructor(private readonly deps: AiServiceDeps) {}

  /**
   * After the body was read and parsed (413, 400): MODEL_NOT_ALLOWED,
   * GUEST_AI_DISABLED, GUEST_AI_CAP, QUOTA_EXCEEDED (user_daily, then
   * canvas_monthly), CAPABILITY_DISABLED, then the audience. The spend checks
   * and the reservation share one transaction (AiCallStore.reserve), so two
   * calls cannot both start on the last of a budget without seeing each other.
   */
  async admit(caller: RuntimeCaller, request: ChatRequest): Promise<Admission> {
    const settings = this.deps.settings();
    const price = settings.aiPrices[request.model];
    if (!settings.aiModels.includes(request.model) || !validPrice(price)) {
      throw new AppError('MODEL_NOT_ALLOWED', `model "${request.model}" is not allowed on this instance`);
    }
    const canvas = caller.canvas;
    if (caller.kind === 'guest' && !canvas.guestAi) {
      throw new AppError('GUEST_AI_DISABLED', 'AI is not available to guests on this canvas');
    }
    const now = this.deps.now();
    const day = utcDay(now);
    const month = day.slice(0, 7);
    const callId = newId();
    const call = {
      id: callId,
      canvasId: canvas.id,
      actorId: caller.actorId,
      actorKind: caller.kind,
      model: request.model,
      reservedUsd: reservationOf(request, price),
      day,
      month,
      createdAt: now,
    };
    await this.reserveOrReport(call, settings.aiCanvasMonthlyUsd, (spend) => {
      if (caller.kind === 'guest' && canvas.guestAiMonthlyUsd > 0 && reached(spend.guestMonth, canvas.guestAiMonthlyUsd)) {
        throw new AppError('GUEST_AI_CAP', "this canvas's monthly AI budget for guests is used up", { scope: 'guest' });
      }
      if (reached(spend.actorDay, settings.aiUserDailyUsd)) {
        throw aiBudgetSpent('your daily AI budget is used up; it resets at midnight UTC', 'user_daily');
      }
      if (reached(spend.canvasMonth, settings.aiCanvasMonthlyUsd)) {
        throw aiBudgetSpent("this canvas's monthly AI budget is used up; it resets on the 1st (UTC)", 'canvas_monthly');
      }
      const refusal = this.deps.capabilityRefusal(canvas);
      if (refusal) throw refusal;
      if (!inAudience(caller)) {
        throw new AppError('PERMISSION_DENIED', 'AI on this canvas is available to its owner and editors only');
      }
    });
    // The capability gate above guarantees a key.
    return { callId, canvasId: canvas.id, actorId: caller.actorId, request, price, apiKey: settings.aiApiKey ?? '' };
  }

  /**
   * The reservation; a refusal because the canvas's monthly budget is used up
   * is reported (its owner may be mailed) before it reaches the caller.
   */
  private async reserveOrReport(call: Parameters<AiCallStore['reserve']>[0], capUsd: number, check: Parameters<AiCallStore['reserve']>[1]) {
    try {
      await this.deps.store.reserve(call, check);
    } catch (err) {
      if (err instanceof AppError && err.extra.scope === 'canvas_monthly') {
        await this.deps.events.emitAndRecord('ai.canvas-cap-reached', { canvasId: call.canvasId, month: call.month, capUsd });
      }
      throw err;
    }
  }

  /**
   * Records the call's usage and cost; only the first settle of a call
   * counts. A usage timeout records 0 tokens and 0 cost (AI rule 5).
   */
  async settle(admission: Admission, usage: ChatUsage, outcome: AiOutcome): Promise<{ usage: ChatUsage; cost: number }> {
    const recorded = outcome === 'usage_timeout' ? ZERO_USAGE : usage;
    const cost = outcome === 'usage_timeout' ? 0 : costOf(recorded, admission.price);
    const now = this.deps.now();
    try {
      const first = await this.deps.store.settle(admission.callId, recorded, cost, outcome, now);
      if (first) {
        this.deps.log.info('ai call', {
          callId: admission.callId,
          canvasId: admission.canvasId,
          actorId: admission.actorId,
          model: admission.request.model,
          outcome,
          ...recorded,
          cost,
        });
        this.deps.events.emit('ai.settled', {
          model: admission.request.model,
          outcome,
          inputTokens: recorded.inputTokens,
          outputTokens: recorded.outputTokens,
          costUsd: cost,
        });
      }
    } catch (err) {
      // The database went away under a call still streaming (shutdown cut it off); the next start settles the row.
      this.deps.log.error('ai call could not be recorded', {
        callId: admission.callId,
        error: err instanceof Error ? err.message : String(err),
      });
    }
    return { usage: recorded, cost };
  }
}

/**
 * `aiAudience`: editors (default) admits owners and editors; viewers admits
 * every signed-in member. A legacy guest got here only because the owner
 * opted guests in (guestAi), which is its own, explicit audience.
 */
function inAudience(caller: RuntimeCaller): boolean {
  if (caller.kind === 'guest') return true;
  if (caller.role === 'owner' || caller.role === 'editor') return true;
  return caller.canvas.aiAudience === 'viewers';
}
