import { AppError } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import { ZERO_USAGE, type ChatUsage } from './model.ts';
import { providerParams } from './prompt.ts';
import { classifyFailure, ProviderStall, type OpenStream } from './provider.ts';
import type { Admission, AiService } from './service.ts';
import { UsageTracker } from './usage-tracker.ts';

/** Timings of a chat call; tests shorten them. */
export interface AiTuning {
  /**
   * How long after the answer's text ends (content_block_stop) the rest may
   * take: the usage report (AI rule 5: 5 s) and the end of the message. One
   * fixed deadline from the end of the text; pings do not extend it.
   */
  usageTimeoutMs: number;
  /**
   * Silence from the provider, once text is streaming, that counts as a
   * failure. Pings are not an answer and do not reset it. Below the server's
   * 60 s idle timeout, so the canvas hears about it.
   */
  idleTimeoutMs: number;
  /** How long one attempt may take to produce its first text delta (headers, then text; pings do not count). */
  firstDeltaTimeoutMs: number;
  /**
   * The whole time before the first delta, over every attempt and the waits
   * between them. Nothing reaches the canvas until then, so this stays well
   * under the server's 60 s socket idle timeout: retries and the final 502
   * happen while the connection is still open.
   */
  preStreamBudgetMs: number;
  /** Waits before the 2nd and 3rd attempt when the provider names none. */
  retryDelaysMs: number[];
  /** The most we wait for a provider's retry-after. */
  maxRetryDelayMs: number;
}

export const DEFAULT_TUNING: AiTuning = {
  usageTimeoutMs: 5_000,
  idleTimeoutMs: 50_000,
  firstDeltaTimeoutMs: 15_000,
  preStreamBudgetMs: 45_000,
  retryDelaysMs: [500, 1_500],
  maxRetryDelayMs: 5_000,
};

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

/**
 * Events that move the message along. Pings (the SDK drops those itself) and
 * event types this code does not know (the API may add some) are not an
 * answer: they do not reset the idle timer.
 */
const PROGRESS = new Set([
  'message_start',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
]);

/** One first try and two retries, all before the first delta. */
const MAX_ATTEMPTS = 3;

type AttemptEnd = 'ok' | 'usage_timeout' | 'aborted';

/**
 * Runs one admitted call and yields the stream events. Until the first delta
 * has been yielded nothing has reached the canvas, so a transient failure is
 * retried (twice) and a final failure throws 502 AI_UPSTREAM_ERROR; after
 * it, a failure becomes the `error` event. Whatever happens (done, error,
 * abort, the consumer going away) the call is settled exactly once.
 *
 * Waiting on the provider is bounded by deadlines that events without
 * progress (pings, unknown event types) cannot push back, so they cannot keep
 * a call open. Before the first delta: per attempt `firstDeltaTimeoutMs`, in
 * all `preStreamBudgetMs`. While text streams: `idleTimeoutMs` since the
 * last progress event. Once the text has ended: one fixed deadline,
 * `usageTimeoutMs` after that; when it passes the call ends as `done`, with
 * the usage if it came (the message's end is not waited for) or 0 if not.
 */
export async function* chatEvents(deps: ChatRunDeps, admission: Admission, signal: AbortSignal): AsyncGenerator<StreamEvent, void, void> {
  const params = providerParams(admission.request);
  const { tuning } = deps;
  const preStreamEnd = monotonic() + tuning.preStreamBudgetMs;
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
      const firstDeltaBy = Math.min(monotonic() + tuning.firstDeltaTimeoutMs, preStreamEnd);
      let end: AttemptEnd;
      try {
        if (signal.aborted) throw new Aborted();
        const opening = deps.open(params, admission.apiKey, {
          signal: attemptAbort.signal,
          timeoutMs: Math.max(1, Math.ceil(firstDeltaBy - monotonic())),
        });
        const events = await settleBy(opening, firstDeltaBy);
        if (events === 'timeout') throw new ProviderStall('the AI provider did not start its answer in time');
        const it = events[Symbol.asyncIterator]();
        let lastProgress = monotonic();
        /** Set when the text ends: by then the usage (and the message's end) must have come. */
        let contentEndBy: number | null = null;
        for (;;) {
          let deadline: number;
          if (contentEndBy !== null) deadline = sentAny ? contentEndBy : Math.min(contentEndBy, firstDeltaBy);
          else if (!sentAny) deadline = firstDeltaBy;
          else deadline = lastProgress + tuning.idleTimeoutMs;
          const next = await settleBy(it.next(), deadline);
          if (next === 'timeout') {
            attemptAbort.abort();
            if (contentEndBy !== null) {
              // The text is complete. With the usage report in hand, message_stop is not worth waiting for.
              end = tracker.final ? 'ok' : 'usage_timeout';
              break;
            }
            throw new ProviderStall(sentAny ? 'the AI provider stopped answering' : 'the AI provider did not start its answer in time');
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
          if (PROGRESS.has((next.value as { type: string }).type)) lastProgress = monotonic();
          const text = tracker.take(next.value);
          if (!tracker.contentEnded) contentEndBy = null;
          else if (contentEndBy === null) contentEndBy = monotonic() + tuning.usageTimeoutMs;
          if (text) {
            sentAny = true;
            yield { type: 'delta', text };
          }
        }
      } catch (err) {
        if (signal.aborted || err instanceof Aborted) {
          await settle(tracker.partial(), 'aborted');
          return;
        }
        const failure = classifyFailure(err);
        if (!sentAny && failure.transient && attempt < MAX_ATTEMPTS) {
          const wait = Math.min(failure.retryAfterMs ?? tuning.retryDelaysMs[attempt - 1] ?? 1_000, tuning.maxRetryDelayMs);
          // No retry that could not finish inside the pre-stream budget: the 502 must reach the canvas while its connection is open.
          if (monotonic() + wait < preStreamEnd) {
            deps.log.warn('ai provider failed, retrying', { callId: admission.callId, attempt, message: failure.message });
            if (!(await sleep(wait, signal))) {
              await settle(ZERO_USAGE, 'aborted');
              return;
            }
            continue;
          }
        }
        await settle(tracker.partial(), 'upstream_error');
        deps.log.warn('ai provider failed', { callId: admission.callId, attempt, started: sentAny, message: failure.message });
        if (!sentAny) throw new AppError('AI_UPSTREAM_ERROR', failure.message);
        yield { type: 'error', code: 'AI_UPSTREAM_ERROR', message: failure.message };
        return;
      } finally {
        signal.removeEventListener('abort', forward);
        attemptAbort.abort();
      }
      if (end === 'aborted') {
        await settle(tracker.partial(), 'aborted');
        return;
      }
      const { usage, cost } = end === 'ok' ? await settle(tracker.usage(), 'ok') : await settle(ZERO_USAGE, 'usage_timeout');
      yield { type: 'done', usage, cost };
      return;
    }
  } finally {
    // The consumer went away while we waited at a yield (or something unexpected broke).
    if (!settled) await settle(tracker.partial(), signal.aborted ? 'aborted' : 'upstream_error');
  }
}

class Aborted extends Error {}

const monotonic = () => performance.now();

/** `promise`'s value, or 'timeout' once the monotonic clock passes `deadline`. */
async function settleBy<T>(promise: Promise<T>, deadline: number): Promise<T | 'timeout'> {
  // After a timeout the provider call is aborted and this settles later; nobody is listening then.
  promise.catch(() => {});
  const ms = deadline - monotonic();
  if (ms <= 0) return 'timeout';
  let timer: Timer | undefined;
  try {
    return await Promise.race([promise, new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)))]);
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
