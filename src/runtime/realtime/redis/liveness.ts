// Which nodes are alive, so that a node that dies without a word (killed,
// host lost) does not hold presence and slots for ever. Every node keeps a
// deadline in a sorted set (node id → now + TTL) and renews it each
// heartbeat; each heartbeat also reaps the nodes past their deadline: their
// slot and presence entries go, and every node hears the `leave` of each
// person who was only on the dead one. A dead node's people are gone at
// most TTL + one heartbeat after its last heartbeat (25 s by default).
// Times come from the app's clock (injectable, like every timer here): the
// nodes' clocks must agree to within a few seconds (NTP), well under the TTL.
import type { RedisClient } from 'bun';
import type { AppContext } from '../../../context.ts';
import type { PresenceUser } from '../frames.ts';
import { keys, parsePresenceEntry, presenceKeyParts } from './keys.ts';
import { REAP } from './scripts.ts';

/** Someone who was on a channel only through a node that is gone. */
export interface Departed {
  canvasId: string;
  channel: string;
  user: PresenceUser;
}

export interface LivenessHooks {
  /** A node was reaped (or this one stopped): tell every node these people left. */
  departed(people: Departed[]): Promise<void>;
  /** This node found itself reaped though alive (it stalled past the TTL, or Redis lost its data): put its entries back. */
  reaped(): Promise<void>;
}

export class NodeLiveness {
  private beats: Promise<void> = Promise.resolve();
  private registered = false;

  constructor(
    private readonly redis: RedisClient,
    private readonly nodeId: string,
    private readonly ttlMs: number,
    private readonly ctx: Pick<AppContext, 'now' | 'log' | 'events'>,
    private readonly hooks: LivenessHooks,
  ) {}

  /**
   * One heartbeat, after the one before: never skipped, so a test clock that
   * fires several at once sees each run at its own time. Rejects when this
   * one failed (start reports it; timers only log).
   */
  beat(): Promise<void> {
    const now = this.ctx.now();
    const run = this.beats.then(() => this.renew(now));
    this.beats = run.catch((err) => this.ctx.log.warn('realtime: heartbeat to Redis failed', { error: String(err) }));
    return run;
  }

  private async renew(now: number): Promise<void> {
    const added = (await this.redis.send('ZADD', [keys.nodes, String(now + this.ttlMs), this.nodeId])) as number;
    if (added === 1 && this.registered) {
      this.ctx.log.warn('realtime: this node had been reaped (no heartbeat within the TTL); putting its sockets back', {
        nodeId: this.nodeId,
      });
      await this.hooks.reaped();
    }
    this.registered = true;
    const dead = (await this.redis.send('ZRANGEBYSCORE', [keys.nodes, '-inf', `(${now}`])) as string[];
    for (const nodeId of dead) {
      if (nodeId === this.nodeId) continue;
      const people = await this.reap(nodeId, now);
      this.ctx.log.warn('realtime: reaped a node whose heartbeat stopped', { nodeId, people: people.length });
      this.ctx.events.emit('realtime.node-reaped', { nodeId, people: people.length });
    }
  }

  /** Removes a node's entries (unless it came back meanwhile) and announces who left with it. */
  private async reap(nodeId: string, now: number): Promise<Departed[]> {
    const flat = (await this.redis.send('EVAL', [REAP, '2', keys.nodes, keys.node(nodeId), nodeId, String(now), keys.presencePrefix])) as
      string[] | null;
    const people: Departed[] = [];
    for (let i = 0; flat && i + 1 < flat.length; i += 2) {
      const where = presenceKeyParts(flat[i]!);
      const entry = parsePresenceEntry(flat[i + 1]!);
      if (where && entry) people.push({ ...where, user: entry.user });
    }
    if (people.length > 0) await this.hooks.departed(people);
    return people;
  }

  /**
   * A clean stop: this node leaves the set, and whatever it still holds is
   * given back with the `leave`s it owes (normally nothing: its sockets
   * closed first).
   */
  async leave(): Promise<void> {
    await this.beats;
    await this.redis.send('ZREM', [keys.nodes, this.nodeId]);
    await this.reap(this.nodeId, this.ctx.now());
  }
}
