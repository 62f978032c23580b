// Connections' own rate windows and concurrency slots (spec "Limits /
// Connections"). They stay on with EASEL_RATELIMIT_ENABLED=false (CONTRACT
// §9): that switch lifts the HTTP classes only, so this limiter is its own.
// The windows (per actor, canvas and profile; per profile) are counted
// through the rate-limit port: in Redis with EASEL_REDIS_URL, so they hold
// across nodes. The concurrency slots stay in this process: the process cap
// bounds this process's sockets and memory, and the per-canvas cap keeps
// one canvas from taking all of them. On a cluster a canvas may so have
// (nodes × perCanvasConcurrent) requests in flight; a cluster-wide cap would
// need slots leased in Redis that a dead node's requests give back in time.
import { AppError } from '../errors.ts';
import type { RateCounter } from '../ratelimit/port.ts';
import type { ConnectionsTuning } from './tuning.ts';

export type LimitScope = 'actor' | 'profile' | 'canvas_concurrency' | 'process_concurrency';

function limited(scope: LimitScope, message: string, retryAfter: number): AppError {
  return new AppError('RATE_LIMITED', message, { scope }, { headers: { 'retry-after': String(retryAfter) } });
}

export class ConnectionLimits {
  private readonly perCanvas = new Map<string, number>();
  private total = 0;

  constructor(
    private readonly tuning: ConnectionsTuning,
    /** Always on (never EASEL_RATELIMIT_ENABLED's switch); keys under `conn:`. */
    private readonly windows: RateCounter,
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

  /** Takes a concurrency slot for the canvas and the process; the returned function gives it back (once). */
  acquire(canvasId: string): () => void {
    const used = this.perCanvas.get(canvasId) ?? 0;
    if (used >= this.tuning.perCanvasConcurrent) {
      throw limited('canvas_concurrency', `at most ${this.tuning.perCanvasConcurrent} Connection requests at a time per canvas`, 1);
    }
    if (this.total >= this.tuning.processConcurrent)
      throw limited('process_concurrency', 'the server is handling as many Connection requests as it allows; retry shortly', 1);
    this.perCanvas.set(canvasId, used + 1);
    this.total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = (this.perCanvas.get(canvasId) ?? 1) - 1;
      if (left > 0) this.perCanvas.set(canvasId, left);
      else this.perCanvas.delete(canvasId);
    };
  }

  inFlight(canvasId?: string): number {
    return canvasId === undefined ? this.total : (this.perCanvas.get(canvasId) ?? 0);
  }
}
