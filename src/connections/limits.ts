// Connections' own rate windows and concurrency slots (spec "Limits /
// Connections"). They stay on with EASEL_RATELIMIT_ENABLED=false (CONTRACT
// §9): that switch lifts the HTTP classes only, so this limiter is its own.
// The windows (per actor, canvas and profile; per profile) are counted
// through the rate-limit port, and so are the per-canvas concurrency slots:
// in Redis with EASEL_REDIS_URL, so both hold across nodes (a slot is a lease
// that a dead node's request gives back when its deadline has long passed).
// The process cap stays in this process, as the spec says: it bounds this
// process's sockets and memory.
import { AppError } from '../errors.ts';
import type { RateCounter, SlotPool, SlotRelease } from '../ratelimit/port.ts';
import type { ConnectionsTuning } from './tuning.ts';

export type LimitScope = 'actor' | 'profile' | 'canvas_concurrency' | 'process_concurrency';

function limited(scope: LimitScope, message: string, retryAfter: number): AppError {
  return new AppError('RATE_LIMITED', message, { scope }, { headers: { 'retry-after': String(retryAfter) } });
}

/** A slot's lease outlives the request's deadline by this much: only a node that died mid-request leaves one behind. */
const LEASE_MARGIN_MS = 5_000;

export class ConnectionLimits {
  /** This process's requests in flight, per canvas (whatever counted their slot). */
  private readonly perCanvas = new Map<string, number>();
  private total = 0;

  constructor(
    private readonly tuning: ConnectionsTuning,
    /** Always on (never EASEL_RATELIMIT_ENABLED's switch); keys under `conn:`. */
    private readonly windows: RateCounter,
    private readonly slots: SlotPool,
  ) {}

  /** Counts one request per actor+canvas+profile and per profile; throws 429 past either. */
  async hit(canvasId: string, profile: string, actorId: string): Promise<void> {
    const actor = await this.windows.hit(`conn:actor:${canvasId}:${profile}:${actorId}`, this.tuning.perActorPerMin);
    if (!actor.allowed)
      throw limited('actor', `at most ${this.tuning.perActorPerMin} requests per minute to this Connection`, actor.retryAfter);
    const all = await this.windows.hit(`conn:profile:${profile}`, this.tuning.perProfilePerMin);
    if (!all.allowed)
      throw limited(
        'profile',
        `the Connection ${profile} is at its limit of ${this.tuning.perProfilePerMin} requests per minute`,
        all.retryAfter,
      );
  }

  /** Takes a slot of the process and one of the canvas; the returned function gives both back (once). */
  async acquire(canvasId: string): Promise<() => void> {
    if (this.total >= this.tuning.processConcurrent)
      throw limited('process_concurrency', 'the server is handling as many Connection requests as it allows; retry shortly', 1);
    // Held while the canvas's slot is asked for, so requests waiting on Redis count against the process too.
    this.total++;
    let canvasSlot: SlotRelease | null;
    try {
      const taken = this.slots.take(`conn:canvas:${canvasId}`, this.tuning.perCanvasConcurrent, this.tuning.deadlineMs + LEASE_MARGIN_MS);
      canvasSlot = taken instanceof Promise ? await taken : taken;
    } catch (err) {
      this.total--;
      throw err;
    }
    if (!canvasSlot) {
      this.total--;
      throw limited('canvas_concurrency', `at most ${this.tuning.perCanvasConcurrent} Connection requests at a time per canvas`, 1);
    }
    this.perCanvas.set(canvasId, (this.perCanvas.get(canvasId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      canvasSlot();
      this.total--;
      const left = (this.perCanvas.get(canvasId) ?? 1) - 1;
      if (left > 0) this.perCanvas.set(canvasId, left);
      else this.perCanvas.delete(canvasId);
    };
  }

  /** This process's requests in flight (for one canvas, or all). */
  inFlight(canvasId?: string): number {
    return canvasId === undefined ? this.total : (this.perCanvas.get(canvasId) ?? 0);
  }
}
