// When a failed delivery is tried again: doubling from a minute, at most an
// hour apart, for a day from when the message was recorded; then given up.

export const RETRY_FOR_MS = 24 * 3600_000;
const FIRST_RETRY_MS = 60_000;
const LONGEST_WAIT_MS = 3600_000;

/** The next attempt after `attempts` failed ones (counting the one just made), or null: give up. */
export function nextAttemptAt(createdAt: number, attempts: number, now: number): number | null {
  if (now - createdAt >= RETRY_FOR_MS) return null;
  const wait = Math.min(LONGEST_WAIT_MS, FIRST_RETRY_MS * 2 ** Math.min(20, Math.max(0, attempts - 1)));
  return Math.min(now + wait, createdAt + RETRY_FOR_MS);
}
