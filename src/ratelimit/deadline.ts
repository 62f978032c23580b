// A bound on waiting for the network. A real timer, not the app's scheduler:
// a Redis that accepted the connection and went silent must not hold a
// request, and the test clock never moves on its own.

export class DeadlinePassed extends Error {}

/** `work`'s answer, or a DeadlinePassed rejection after `ms` (the work itself goes on, unawaited). */
export function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: Timer | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlinePassed(`no answer within ${ms} ms`)), ms);
  });
  // Once the deadline won, a late failure of the work is expected, not unhandled.
  work.catch(() => {});
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
