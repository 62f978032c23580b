// Concurrency slots shared by every node: per key, a sorted set of leases
// scored by when they run out on Redis's clock. Taking one is a script Redis
// runs alone (drop the leases that ran out, count, add), so two nodes can
// never both take the last slot; a request gives its lease back when it
// ends, and a node that dies mid-request loses its leases when they run out.
// While Redis cannot answer, the node counts in its own memory, as its rate
// limits do (redis-counter.ts): the limit then holds per node.
import type { RedisClient } from 'bun';
import { DeadlinePassed, within } from './deadline.ts';
import type { MemorySlots } from './memory-slots.ts';
import { storedKey, type SlotPool, type SlotRelease } from './port.ts';
import type { SharedRedis } from './redis-counter.ts';

const PREFIX = 'easel:slots:';

/**
 * KEYS: the pool. ARGV: lease ms, limit, the lease's id. Answers 1 (taken)
 * or 0 (full). Times are Redis's (TIME), never a node's; the pool's key
 * expires with its last lease.
 */
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[3])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], tonumber(last[2]) + 1)
return 1
`;

export function slotKey(key: string): string {
  return `${PREFIX}${storedKey(key)}`;
}

export class RedisSlots implements SlotPool {
  constructor(
    private readonly redis: SharedRedis,
    private readonly memory: MemorySlots,
  ) {}

  take(key: string, limit: number, leaseMs: number): SlotRelease | null | Promise<SlotRelease | null> {
    const route = this.redis.route();
    if (typeof route === 'string') {
      this.redis.fellBack(route);
      return this.memory.take(key, limit);
    }
    const lease = crypto.randomUUID();
    const pool = slotKey(key);
    return within(
      route.send('EVAL', [TAKE, '1', pool, String(Math.max(0, Math.ceil(leaseMs))), String(limit), lease]),
      this.redis.hitTimeoutMs,
    ).then(
      (taken) => (taken === 1 ? this.giveBack(route, pool, lease) : null),
      (err: unknown) => {
        this.redis.fellBack(err instanceof DeadlinePassed ? 'timeout' : 'error', err);
        return this.memory.take(key, limit);
      },
    );
  }

  /** Best effort: a lease that cannot be given back runs out. */
  private giveBack(redis: RedisClient, pool: string, lease: string): SlotRelease {
    let given = false;
    return () => {
      if (given) return;
      given = true;
      void redis.send('ZREM', [pool, lease]).catch(() => {});
    };
  }
}
