// One hit in a window shared by every node: a single round trip to Redis
// running a script Redis executes alone, so two nodes counting the same
// window at once can never both read the same count. The key names the
// class, the subject and where the window starts; it expires when the window
// ends (plus a margin, below), so finished windows clean themselves up.
import type { RedisClient } from 'bun';
import { storedKey } from './port.ts';

/** Everything Easel counts for rate limits is under this prefix (realtime uses `easel:rt:`). */
const PREFIX = 'easel:rl:';

/**
 * How long a window's key outlives the window. Each node cuts windows with
 * its own clock: a node running a little behind still counts into the old
 * window for that long after the others moved on, and its count must land
 * in the key they counted in, not in a fresh one. Node clocks must agree
 * within this (NTP does far better).
 */
export const CLOCK_SKEW_MS = 5_000;

/**
 * KEYS: the window's key. ARGV: its time to live in ms. Answers the count
 * including this hit. The expiry is relative (PEXPIRE, not PEXPIREAT): it
 * runs on Redis's clock, whatever time the node thinks it is. Set once, by
 * the first hit, so later hits never extend a window.
 */
const COUNT_HIT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n
`;

export function windowKey(key: string, start: number): string {
  return `${PREFIX}${storedKey(key)}@${start}`;
}

/**
 * Counts one hit in the window starting at `start` and ending at `resetAt`
 * (node time, `now` now). Sent whole with EVAL: the script is short, and
 * EVALSHA would cost a second round trip each time Redis restarted and forgot it.
 */
export async function countHit(redis: RedisClient, key: string, start: number, resetAt: number, now: number): Promise<number> {
  const ttl = Math.max(1, resetAt - now) + CLOCK_SKEW_MS;
  const count = await redis.send('EVAL', [COUNT_HIT, '1', windowKey(key, start), String(ttl)]);
  if (typeof count !== 'number') throw new Error(`rate limits: Redis answered ${typeof count} to a count`);
  return count;
}
