// Awaiting the server's signals (src/events.ts) instead of sleeping. Listen
// first, then act, then await: `const fanned = nextEvent(app, 'realtime.fanout');
// client.send(…); await fanned;`. The timeout only fails a test that would
// otherwise hang; it is never what a test waits for. It is 20 s: under bun
// test's 30 s per-test timeout (package.json), so a missing signal fails
// with its name, and far from what a loaded machine takes (at 5 s, a
// browser test's aborted AI stream once settled after the guard on CI).
import type { EventMap } from '../src/events.ts';
import type { Core } from '../src/foundation.ts';

/** How long a test waits for a signal before failing with its name. */
const SIGNAL_GUARD_MS = 20_000;

export interface Signalled<K extends keyof EventMap> extends Promise<EventMap[K]> {
  /** Stops listening (a test that did not need the signal after all). */
  cancel(): void;
}

/** The next `event` (matching `pred`) the app emits from now on. */
export function nextEvent<K extends keyof EventMap>(
  app: { ctx: Core },
  event: K,
  pred: (payload: EventMap[K]) => boolean = () => true,
  timeoutMs = SIGNAL_GUARD_MS,
): Signalled<K> {
  let off = () => {};
  let timer: Timer | undefined;
  const promise = new Promise<EventMap[K]>((resolve, reject) => {
    off = app.ctx.events.on(event, (payload) => {
      if (!pred(payload)) return;
      off();
      clearTimeout(timer);
      resolve(payload);
    });
    timer = setTimeout(() => {
      off();
      reject(new Error(`no ${event} signal within ${timeoutMs} ms`));
    }, timeoutMs);
  }) as Signalled<K>;
  promise.cancel = () => {
    off();
    clearTimeout(timer);
  };
  return promise;
}

/**
 * Every `event` (matching `pred`) from now on, until `stop()`; `waitFor`
 * answers from what was already seen, or awaits the next one that matches.
 * For signals a test can only recognise after it started the action (by an
 * id it learns from the answer).
 */
export function recordEvents<K extends keyof EventMap>(
  app: { ctx: Core },
  event: K,
): { seen: Array<EventMap[K]>; waitFor(pred: (payload: EventMap[K]) => boolean, timeoutMs?: number): Promise<EventMap[K]>; stop(): void } {
  const seen: Array<EventMap[K]> = [];
  const stop = app.ctx.events.on(event, (payload) => void seen.push(payload));
  return {
    seen,
    stop,
    waitFor(pred, timeoutMs) {
      const already = seen.find(pred);
      return already ? Promise.resolve(already) : nextEvent(app, event, pred, timeoutMs);
    },
  };
}

/**
 * A point a test stops the server at (a method wrapped by the test):
 * `reached` once a call arrives there; the call goes on after `open()`.
 */
export function gate() {
  const reached = Promise.withResolvers<void>();
  const opened = Promise.withResolvers<void>();
  return {
    reached: reached.promise,
    open: () => opened.resolve(),
    async pass<T>(go: () => Promise<T>): Promise<T> {
      reached.resolve();
      await opened.promise;
      return go();
    },
  };
}
