import { AppError } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import { ZERO_USAGE, type ChatUsage } from './model.ts';
import { providerParams } from './prompt.ts';
import { classifyFailure, ProviderStall, type OpenStream } from './provider.ts';
import type { Admission, AiService } from './service.ts';
import { UsageTracker } from './usage-tracker.ts';

/** Timings of a chat call; tests shorten them. */
export interface AiTuning {
  /** How long after the answer's text ends the usage report may take (AI rule 5: 5 s). */
  usageTimeoutMs: number;
  /**
   * Silence from the provider that counts as a failure. Below the server's
   * 60 s idle timeout, so the canvas hears about it.
   */
  idleTimeoutMs: number;
  /** Waits before the 2nd and 3rd attempt when the provider names none. */
  retryDelaysMs: number[];
  /** The most we wait for a provider's retry-after. */
  maxRetryDelayMs: number;
}

export const DEFAULT_TUNING: AiTuning = { usageTimeoutMs: 5_000, idleTimeoutMs: 50_000, retryDelaysMs: [500, 1_500], maxRetryDelayMs: 5_000 };

export type StreamEvent =
  | { type: 'delta'; text: string }
  | { type: 'done'; usage: ChatUsage; cost: number }
  | { type: 'error'; code: 'AI_UPSTREAM_ERROR'; message: string };

export interface ChatRunDeps {
  service: AiService;
  open: OpenStream;
  tuning: AiTuning;
  log: Logger;
}

/** One first try and two retries, all before the first delta. */
const MAX_ATTEMPTS = 3;

type AttemptEnd = 'ok' | 'usage_timeout' | 'aborted';

/**
 * Runs one admitted call and yields the stream events. Until the first delta
 * has been yielded nothing has reached the canvas, so a transient failure is
 * retried (twice) and a final failure throws 502 AI_UPSTREAM_ERROR; after
 * it, a failure becomes the `error` event. Whatever happens (done, error,
 * abort, the consumer going away) the call is settled exactly once.
 */
export async function* chatEvents(deps: ChatRunDeps, admission: Admission, signal: AbortSignal): AsyncGenerator<StreamEvent, void, void> {
  const params = providerParams(admission.request);
  let sentAny = false;
  let settled = false;
  let tracker = new UsageTracker();
  const settle = (usage: ChatUsage, outcome: 'ok' | 'upstream_error' | 'aborted' | 'usage_timeout') => {
    settled = true;
    return deps.service.settle(admission, usage, outcome);
  };

  try {
    for (let attempt = 1; ; attempt++) {
      tracker = new UsageTracker();
      const attemptAbort = new AbortController();
      const forward = () => attemptAbort.abort();
      signal.addEventListener('abort', forward);
      let end: AttemptEnd;
      try {
        if (signal.aborted) throw new Aborted();
        const events = await deps.open(params, admission.apiKey, { signal: attemptAbort.signal, timeoutMs: deps.tuning.idleTimeoutMs });
        const it = events[Symbol.asyncIterator]();
        for (;;) {
          const waitMs = tracker.awaitingUsage ? deps.tuning.usageTimeoutMs : deps.tuning.idleTimeoutMs;
          const next = await nextWithin(it, waitMs);
          if (next === 'timeout') {
            attemptAbort.abort();
            if (tracker.awaitingUsage) {
              end = 'usage_timeout';
              break;
            }
            throw new ProviderStall('the AI provider stopped answering');
          }
          if (next.done) {
            // The SDK ends the stream quietly when we abort it.
            if (signal.aborted) end = 'aborted';
            else if (tracker.final) end = 'ok';
            // The text is complete but the usage report never came: the stream has ended without it.
            else if (tracker.contentEnded) end = 'usage_timeout';
            else throw new ProviderStall('the AI provider ended its answer early');
            break;
          }
          const text = tracker.take(next.value);
          if (text) {
            sentAny = true;
            yield { type: 'delta', text };
          }
        }
      } catch (err) {
        if (signal.aborted || err instanceof Aborted) {
          settle(tracker.partial(), 'aborted');
          return;
        }
        const failure = classifyFailure(err);
        if (!sentAny && failure.transient && attempt < MAX_ATTEMPTS) {
          deps.log.warn('ai provider failed, retrying', { callId: admission.callId, attempt, message: failure.message });
          const wait = Math.min(failure.retryAfterMs ?? deps.tuning.retryDelaysMs[attempt - 1] ?? 1_000, deps.tuning.maxRetryDelayMs);
          if (!(await sleep(wait, signal))) {
            settle(ZERO_USAGE, 'aborted');
            return;
          }
          continue;
        }
        settle(tracker.partial(), 'upstream_error');
        deps.log.warn('ai provider failed', { callId: admission.callId, attempt, started: sentAny, message: failure.message });
        if (!sentAny) throw new AppError('AI_UPSTREAM_ERROR', failure.message);
        yield { type: 'error', code: 'AI_UPSTREAM_ERROR', message: failure.message };
        return;
      } finally {
        signal.removeEventListener('abort', forward);
        attemptAbort.abort();
      }
      if (end === 'aborted') {
        settle(tracker.partial(), 'aborted');
        return;
      }
      const { usage, cost } = end === 'ok' ? settle(tracker.usage(), 'ok') : settle(ZERO_USAGE, 'usage_timeout');
      yield { type: 'done', usage, cost };
      return;
    }
  } finally {
    // The consumer went away while we waited at a yield (or something unexpected broke).
    if (!settled) settle(tracker.partial(), signal.aborted ? 'aborted' : 'upstream_error');
  }
}

class Aborted extends Error {}

async function nextWithin<T>(it: AsyncIterator<T>, ms: number): Promise<IteratorResult<T> | 'timeout'> {
  let timer: Timer | undefined;
  const next = it.next();
  // After a timeout the provider call is aborted and this settles later; nobody is listening then.
  next.catch(() => {});
  try {
    return await Promise.race([next, new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves true after `ms`, false as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(ok);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener('abort', onAbort);
  });
}
