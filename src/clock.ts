// Time for the server's timers, injectable: the real scheduler by default,
// a manual one in tests (test/manual-clock.ts) that moves time by hand.
// Pair it with ContextOptions.now so both agree on what time it is.

/** Cancels a scheduled callback; calling it again (or after it ran) is harmless. */
export type Cancel = () => void;

export interface Scheduler {
  /** Runs `fn` once, `ms` from now. */
  timeout(ms: number, fn: () => void): Cancel;
  /** Runs `fn` every `ms` until cancelled. */
  interval(ms: number, fn: () => void): Cancel;
}

/**
 * Bun's timers. Unref'd: a background timer (a flush, a sweep) never keeps
 * the process alive on its own; the listener does while it serves.
 */
export const realScheduler: Scheduler = {
  timeout(ms, fn) {
    const t = setTimeout(fn, ms);
    t.unref();
    return () => clearTimeout(t);
  },
  interval(ms, fn) {
    const t = setInterval(fn, ms);
    t.unref();
    return () => clearInterval(t);
  },
};
