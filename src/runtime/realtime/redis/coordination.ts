// The Redis adapter of RealtimeCoordination (EASEL_REDIS_URL): slots and
// presence as hashes every node reads and writes through atomic scripts
// (scripts.ts), frames for other nodes over pub/sub (bus.ts), and a
// heartbeat that reaps dead nodes (liveness.ts). Commands go out in the
// order the hub issues them, on one connection, so a socket's departure is
// never applied before its arrival. The node also remembers what it holds
// in Redis, to put it back if it finds itself reaped while alive.
import type { RedisClient } from 'bun';
import type { Cancel } from '../../../clock.ts';
import type { RedisSettings } from '../../../config.ts';
import type { AppContext } from '../../../context.ts';
import { newId } from '../../../ids.ts';
import type { Fanout, RealtimeCoordination, SlotClaim } from '../coordination.ts';
import { frames, type PresenceUser } from '../frames.ts';
import { REALTIME_LIMITS } from '../limits.ts';
import type { SlotRefusal } from '../slots.ts';
import { EVERYWHERE, RedisBus } from './bus.ts';
import { connectRedis, RevivableClient, type RedisConnect } from './clients.ts';
import { field, keys, parsePresenceEntry, presenceList } from './keys.ts';
import { NodeLiveness, type Departed } from './liveness.ts';
import { ARRIVE, CLAIM_SLOT, DEPART } from './scripts.ts';
import { RedisUnavailableAtStart } from './start-error.ts';

export interface RedisCoordinationOptions {
  /** How long a node counts as alive after its last heartbeat (default 20 s). */
  nodeTtlMs?: number;
  /** How often a node renews its deadline and reaps dead nodes (default 5 s; under the TTL). */
  heartbeatMs?: number;
  /** How long the start waits for Redis before refusing (default 10 s; Bun alone would retry for about 30 s). */
  startTimeoutMs?: number;
  /** Makes the Redis clients (default: Bun's RedisClient). */
  connect?: RedisConnect;
}

export const NODE_TTL_MS = 20_000;
export const HEARTBEAT_MS = 5_000;
export const START_TIMEOUT_MS = 10_000;

/** What this node has put in Redis: a slot, or a presence entry. */
type Held = { slot: SlotClaim } | { canvasId: string; channel: string; user: PresenceUser };

export class RedisCoordination implements RealtimeCoordination {
  readonly kind = 'redis';
  readonly nodeId = newId();
  private readonly commands: RevivableClient;
  private readonly subscriber: RevivableClient;
  private readonly bus: RedisBus;
  private readonly liveness: NodeLiveness;
  private readonly heartbeatMs: number;
  private readonly startTimeoutMs: number;
  private readonly nodeKey: string;
  /** Redis key → connection id → what this node holds there (kept as the commands are issued, in their order). */
  private readonly held = new Map<string, Map<string, Held>>();
  private cancelHeartbeat: Cancel = () => {};

  constructor(
    private readonly ctx: Pick<AppContext, 'now' | 'scheduler' | 'log' | 'events'>,
    private readonly settings: RedisSettings,
    options: RedisCoordinationOptions = {},
  ) {
    const ttl = options.nodeTtlMs ?? NODE_TTL_MS;
    this.heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
    this.startTimeoutMs = options.startTimeoutMs ?? START_TIMEOUT_MS;
    if (this.heartbeatMs >= ttl) throw new Error('realtime: the heartbeat must be shorter than the node TTL');
    const connect = options.connect ?? connectRedis;
    this.commands = new RevivableClient(connect(settings.url), 'commands', ctx.log);
    this.subscriber = new RevivableClient(connect(settings.url), 'subscriber', ctx.log);
    this.nodeKey = keys.node(this.nodeId);
    this.bus = new RedisBus(this.redis, this.subscriber.client, keys.bus(settings.db), this.nodeId, ctx.log);
    this.liveness = new NodeLiveness(this.redis, this.nodeId, ttl, ctx, {
      departed: (people) => this.announceDeparted(people),
      reaped: () => this.putBack(),
    });
  }

  private get redis(): RedisClient {
    return this.commands.client;
  }

  /** Connects, subscribes and registers this node; a Redis that does not answer stops the start. */
  async start(): Promise<void> {
    let timer: Timer | undefined;
    const timeout = new Promise<never>((_, reject) => {
      // A real timer, not the app's scheduler: this bounds waiting on the network.
      timer = setTimeout(() => reject(new Error(`no answer within ${this.startTimeoutMs / 1000} s`)), this.startTimeoutMs);
    });
    const ready = (async () => {
      await this.redis.connect();
      await this.bus.start();
      await this.liveness.beat();
    })();
    // Once the timeout won, closing the clients fails what was still waiting: that is expected, not unhandled.
    ready.catch(() => {});
    try {
      await Promise.race([ready, timeout]);
    } catch (err) {
      this.commands.close();
      this.subscriber.close();
      throw new RedisUnavailableAtStart(
        `EASEL_REDIS_URL: cannot use Redis at ${this.settings.display}: ${err instanceof Error ? err.message : String(err)}`,
      );
    } finally {
      clearTimeout(timer);
    }
    this.cancelHeartbeat = this.ctx.scheduler.interval(this.heartbeatMs, () => {
      void this.heartbeat();
    });
    this.ctx.log.info('realtime: shared through Redis', { redis: this.settings.display, nodeId: this.nodeId });
  }

  private async heartbeat(): Promise<void> {
    try {
      await this.commands.revive();
      await this.subscriber.revive();
    } catch (err) {
      this.ctx.log.warn('realtime: Redis does not answer', { error: String(err) });
    }
    // Failures are logged by the liveness chain.
    await this.liveness.beat().catch(() => {});
  }

  claimSlot(claim: SlotClaim): Promise<SlotRefusal | null> {
    const key = keys.slots(claim.canvasId);
    const { connectionsPerCanvas, connectionsPerPerson, connectionsReservedForManagers } = REALTIME_LIMITS;
    this.hold(key, claim.connectionId, { slot: claim });
    const answer = this.eval(
      CLAIM_SLOT,
      [key, this.nodeKey],
      [
        field(this.nodeId, claim.connectionId),
        claim.actorId,
        claim.manager ? '1' : '0',
        String(connectionsPerCanvas),
        String(connectionsPerPerson),
        String(connectionsReservedForManagers),
      ],
    ) as Promise<'ok' | SlotRefusal>;
    return answer.then(
      (result) => {
        if (result === 'ok') return null;
        this.drop(key, claim.connectionId);
        return result;
      },
      (err) => {
        this.drop(key, claim.connectionId);
        throw err;
      },
    );
  }

  async releaseSlot(claim: SlotClaim): Promise<void> {
    const key = keys.slots(claim.canvasId);
    const pending = this.redis.send('HDEL', [key, field(this.nodeId, claim.connectionId)]);
    this.drop(key, claim.connectionId);
    await pending;
  }

  async arrive(canvasId: string, channel: string, connectionId: string, user: PresenceUser): Promise<boolean> {
    const key = keys.presence(canvasId, channel);
    this.hold(key, connectionId, { canvasId, channel, user });
    return (await this.eval(ARRIVE, [key, this.nodeKey], [field(this.nodeId, connectionId), user.id, user.name])) === 1;
  }

  async depart(canvasId: string, channel: string, connectionId: string): Promise<PresenceUser | null> {
    const key = keys.presence(canvasId, channel);
    const pending = this.eval(DEPART, [key], [field(this.nodeId, connectionId)]) as Promise<string | null>;
    this.drop(key, connectionId);
    const gone = await pending;
    return gone ? (parsePresenceEntry(gone)?.user ?? null) : null;
  }

  async users(canvasId: string, channel: string): Promise<PresenceUser[]> {
    return presenceList((await this.redis.send('HVALS', [keys.presence(canvasId, channel)])) as string[]);
  }

  broadcast(fanout: Fanout): void {
    void this.bus.send(fanout);
  }

  onFanout(deliver: (fanout: Fanout) => void): void {
    this.bus.onFanout(deliver);
  }

  /** The heartbeat stops; what the node still holds is given back; the connections close. */
  async stop(): Promise<void> {
    this.cancelHeartbeat();
    try {
      await this.liveness.leave();
    } catch (err) {
      this.ctx.log.warn("realtime: could not give back this node's entries in Redis; the other nodes reap them after the TTL", {
        error: String(err),
      });
    }
    this.bus.stop();
    this.subscriber.close();
    this.commands.close();
  }

  private eval(script: string, keyNames: string[], args: string[]): Promise<unknown> {
    return this.redis.send('EVAL', [script, String(keyNames.length), ...keyNames, ...args]);
  }

  private hold(key: string, connectionId: string, what: Held): void {
    const here = this.held.get(key) ?? new Map<string, Held>();
    here.set(connectionId, what);
    this.held.set(key, here);
  }

  /** Forgets an entry; the node's key set loses the key with its last entry (so reaping visits only live keys). */
  private drop(key: string, connectionId: string): void {
    const here = this.held.get(key);
    if (!here?.delete(connectionId) || here.size > 0) return;
    this.held.delete(key);
    this.redis.send('SREM', [this.nodeKey, key]).catch((err) => this.ctx.log.warn('realtime: SREM failed', { error: String(err) }));
  }

  /** The `leave` of people whose node is gone, to every node (this one included). */
  private async announceDeparted(people: Departed[]): Promise<void> {
    await Promise.all(
      people.map(({ canvasId, channel, user }) =>
        this.bus.send({ canvasId, channel, type: 'leave', actorId: user.id, frame: frames.membership('leave', channel, user) }, EVERYWHERE),
      ),
    );
  }

  /** This node was reaped while alive: its slots and presence go back, and people the others saw leave join again. */
  private async putBack(): Promise<void> {
    const work: Array<Promise<unknown>> = [];
    for (const [key, here] of this.held) {
      for (const [connectionId, what] of here) {
        const at = field(this.nodeId, connectionId);
        if ('slot' in what) {
          work.push(this.redis.send('HSET', [key, at, what.slot.actorId]), this.redis.send('SADD', [this.nodeKey, key]));
          continue;
        }
        const { canvasId, channel, user } = what;
        work.push(
          this.eval(ARRIVE, [key, this.nodeKey], [at, user.id, user.name]).then((first) => {
            if (first !== 1) return;
            const frame = frames.membership('join', channel, user);
            return this.bus.send({ canvasId, channel, type: 'join', actorId: user.id, frame }, EVERYWHERE);
          }),
        );
      }
    }
    await Promise.all(work);
  }
}
