// Values a hot path usually has at once (a session, a canvas's access facts,
// a rate-limit window held in this process's memory) and sometimes has to
// wait for (a database round trip, Redis). Awaiting a value that is already
// there still costs a turn of the microtask queue per await, and the runtime
// pipeline would stack several on every request: functions on that path
// answer a `Maybe`, and callers await only a promise.

/** A value now, or a promise of it. */
export type Maybe<T> = T | Promise<T>;

/** `next(value)`, at once when `value` is there, else once it is (a rejection passes through untouched). */
export function andThen<T, U>(value: Maybe<T>, next: (value: T) => Maybe<U>): Maybe<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
