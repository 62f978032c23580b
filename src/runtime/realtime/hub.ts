// The realtime hub of one node: its open sockets, their channel membership,
// and fan-out through Bun's topics (one publish per message, whatever the
// number of subscribers). What the nodes must agree on goes through the
// RealtimeCoordination port (coordination.ts): the canvas's connection
// slots, presence, and frames for other nodes' sockets, which arrive there
// from the other nodes and go out on this node's topics. Without
// EASEL_REDIS_URL the port is in memory and this is the whole story.
// Channel rights are applied by topic membership: a socket is on a channel's
// message topic only while its live role may subscribe, and on its presence
// topic only while it may see presence. Policy, role and access changes
// (ctx.events) recompute that membership for every open socket of the
// canvas, so they apply at once; every operation also re-checks its sender
// against the store, and the receivers too before anything fans out (a
// frame from another node included), whenever the store changed or a second
// passed (shares, sessions and invites also expire with time alone).
// On Postgres the events come only from this node's own changes: every
// committed change to the watched tables, by any node, moves the change
// signal, and each move re-checks every socket here (one pass running and
// one pending at most), so a revocation on another node applies at once too.
// A periodic sweep closes idle sockets whose access ran out.
import type { Server, ServerWebSocket } from 'bun';
import type { Cancel } from '../../clock.ts';
import type { CanvasRole } from '../../canvases/record.ts';
import type { Lifecycle } from '../../lifecycle.ts';
import type { Core } from '../../foundation.ts';
import type { ChangeSignal } from '../../db/change-signal.ts';
import { newId } from '../../ids.ts';
import { RateLimiter } from '../../http/ratelimit.ts';
import { recheck, type Recheck, type RecheckDeps, type SocketIdentity } from './access.ts';
import type { Fanout, RealtimeCoordination, SlotClaim } from './coordination.ts';
import { frames, parseFrame } from './frames.ts';
import { CLOSE, REALTIME_LIMITS } from './limits.ts';
import { channelRights, type ChannelRights } from './policy.ts';
import { slotRefusalReason } from './slots.ts';

/** The part of the app context this feature uses. */
export type RealtimeDeps = Pick<Core, 'auth' | 'canvases' | 'events' | 'log' | 'now' | 'scheduler' | 'sql' | 'instanceSecret' | 'users'>;

export type RealtimeSocket = ServerWebSocket<unknown>;

/** What the upgrade found: the caller's role and name, and whether the canvas was published then. */
export interface SocketStart {
  role: CanvasRole;
  name: string;
  published: boolean;
}

/** One open socket. */
export class Connection {
  readonly id = newId();
  /** Channels this socket is on, with the rights its membership was computed from. */
  readonly channels = new Map<string, ChannelRights>();
  closed = false;
  /** Live facts from the last check. */
  role: CanvasRole;
  name: string;
  /** The canvas's runtime policy at the last check (channel rights come from it and `role`). */
  policy: unknown = null;
  /** What the channel rights were last computed from: role, policy revision, canvas update time. */
  stamp = '';
  /** The canvas had a live version at the last check: its unpublishing (seen on any node) closes the socket. */
  published: boolean;
  /** The slot this socket asked for (the caps count it until it is released). */
  readonly claim: SlotClaim;
  /** True once the socket holds its slot; false when it was refused (closed 4429) or the claim failed. */
  slot: Promise<boolean> = Promise.resolve(false);
  /** The frames being handled, one after another (RealtimeHub.message); the first waits for the slot. */
  handled: Promise<void> = Promise.resolve();
  /** Membership updates after a role or policy change, one pass after another (RealtimeHub.reconcile). */
  reconciled: Promise<void> = Promise.resolve();

  constructor(
    readonly ws: RealtimeSocket,
    readonly identity: SocketIdentity,
    initial: SocketStart,
  ) {
    this.role = initial.role;
    this.name = initial.name;
    this.published = initial.published;
    this.claim = {
      canvasId: identity.canvasId,
      connectionId: this.id,
      actorId: identity.actorId,
      manager: initial.role === 'owner' || initial.role === 'editor',
    };
  }

  get actorId(): string {
    return this.identity.actorId;
  }

  get canvasId(): string {
    return this.identity.canvasId;
  }
}

type Live = Extract<Recheck, { ok: true }>;

/** Receivers are re-checked before a fan-out at least this often, even when the store did not change. */
const RECEIVERS_RECHECK_MS = 1000;
/** Idle sockets are re-checked this often (access that ran out with time alone). */
const SWEEP_EVERY_MS = 15_000;

const DONE = Promise.resolve();

const topic = {
  messages: (canvasId: string, channel: string) => `rt|${canvasId}|m|${channel}`,
  presence: (canvasId: string, channel: string) => `rt|${canvasId}|p|${channel}`,
};

export class RealtimeHub implements Lifecycle {
  private server: Server<unknown> | null = null;
  /** This node's sockets that hold a slot, per canvas. */
  private readonly byCanvas = new Map<string, Set<Connection>>();
  /** Sockets still waiting for their slot (a round trip to Redis): a canvas closed meanwhile closes them too. */
  private readonly claiming = new Set<Connection>();
  /**
   * Its own limiter: realtime limits stay on with EASEL_RATELIMIT_ENABLED=false.
   * Keyed per socket, and a socket lives on one node: it stays in memory on a cluster too.
   */
  private readonly limiter: RateLimiter;
  private readonly unsubscribe: Array<() => void> = [];
  private readonly dataVersion: ChangeSignal;
  /** canvasId → when and at which data version its receivers were last re-checked. */
  private readonly receiversChecked = new Map<string, { version: number; at: number }>();
  /** canvasId → the frames from other nodes still being delivered, in the order they came. */
  private readonly inbound = new Map<string, Promise<void>>();
  /** Closed sockets whose presence and slot are still being given back: stop waits for them. */
  private readonly leaving = new Set<Promise<void>>();
  private cancelSweep: Cancel = () => {};
  private readonly recheckDeps: RecheckDeps;
  private stopped = false;
  /** Which start the change follower belongs to: a stop (or a later start) retires it. */
  private following = 0;
  /** The pass the change signal started (Postgres), and whether another must follow it. */
  private signalled: Promise<void> | null = null;
  private signalledAgain = false;

  constructor(
    private readonly ctx: RealtimeDeps,
    deps: Omit<RecheckDeps, 'ctx'>,
    private readonly coordination: RealtimeCoordination,
  ) {
    this.limiter = new RateLimiter(true, 100_000, ctx.now);
    this.dataVersion = ctx.sql.changes;
    this.recheckDeps = { ctx, ...deps };
    coordination.onFanout((fanout) => this.deliver(fanout));
  }

  /** Follows the changes that can cost a socket its access, and re-checks idle sockets on a timer. */
  start(): void {
    this.stopped = false;
    this.cancelSweep = this.ctx.scheduler.interval(SWEEP_EVERY_MS, () => this.inBackground(this.revalidateAll()));
    const { events } = this.ctx;
    this.unsubscribe.push(
      events.on('canvas.unpublished', ({ canvasId }) => this.closeCanvas(canvasId, CLOSE.accessLost, 'the canvas was unpublished')),
      events.on('canvas.deleted', ({ canvasId }) => this.closeCanvas(canvasId, CLOSE.accessLost, 'the canvas was deleted')),
      events.on('canvas.access-changed', ({ canvasId }) => this.inBackground(this.revalidateCanvas(canvasId))),
      events.on('canvas.capabilities-changed', ({ canvasId }) => this.inBackground(this.revalidateCanvas(canvasId))),
      // A user's status can change what they may do anywhere, and an owner's what everyone may do on their canvases.
      events.on('user.changed', () => this.inBackground(this.revalidateAll())),
      events.on('settings.changed', () => this.inBackground(this.revalidateAll())),
      events.on('session.ended', () => this.inBackground(this.revalidateAll())),
    );
    // The events above are this node's; another node's sign-out, member removal or unpublish reaches this one as a change (SQLite: one node, the events cover it).
    if (this.ctx.sql.engine === 'postgres') this.followChanges(++this.following);
  }

  /** Every move of the change signal re-checks this node's sockets, until stop. */
  private followChanges(run: number): void {
    void this.dataVersion.next().then(() => {
      if (run !== this.following) return;
      this.followChanges(run);
      if (this.byCanvas.size > 0) this.revalidateCoalesced();
    });
  }

  /**
   * A pass over every socket, unless one is running: then one more after it
   * (it reads the changes that came meanwhile). A burst of changes costs one
   * or two passes.
   */
  private revalidateCoalesced(): void {
    if (this.signalled) {
      this.signalledAgain = true;
      return;
    }
    const passes = async () => {
      do {
        this.signalledAgain = false;
        await this.revalidateAll();
      } while (this.signalledAgain && !this.stopped);
    };
    this.signalled = passes()
      .catch((err) => this.ctx.log.error('realtime revalidation failed', { error: String(err) }))
      .finally(() => {
        this.signalled = null;
      });
  }

  /** Open sockets on this node, every canvas together (metrics). */
  openConnections(): number {
    let n = 0;
    for (const set of this.byCanvas.values()) n += set.size;
    return n;
  }

  /** The server that upgraded the sockets (its topics carry the fan-out). */
  bind(server: Server<unknown>): void {
    this.server = server;
  }

  /**
   * A socket the pipeline admitted has opened: it asks for a slot (see
   * slots.ts; with Redis the answer counts every node's sockets) and is
   * closed with 4429 when there is none. Its frames wait for the answer.
   */
  open(ws: RealtimeSocket, identity: SocketIdentity, initial: SocketStart): Connection {
    const conn = new Connection(ws, identity, initial);
    const refuse = (code: number, reason: string): false => {
      // Marked closed first, so Bun's close callback finds nothing to give back.
      if (!conn.closed) {
        conn.closed = true;
        closeSocket(conn, code, reason);
      }
      return false;
    };
    this.claiming.add(conn);
    conn.slot = this.coordination.claimSlot(conn.claim).then(
      (refusal) => {
        this.claiming.delete(conn);
        if (refusal !== null) return refuse(CLOSE.tooManyConnections, slotRefusalReason(refusal));
        // A socket that went while it waited still holds the slot: closed() gives it back.
        if (!conn.closed) {
          const set = this.byCanvas.get(conn.canvasId) ?? new Set<Connection>();
          set.add(conn);
          this.byCanvas.set(conn.canvasId, set);
          this.ctx.log.debug('realtime open', { canvasId: conn.canvasId, connectionId: conn.id, open: set.size });
        }
        return true;
      },
      (err) => {
        this.claiming.delete(conn);
        this.ctx.log.error('realtime slot claim failed', { canvasId: conn.canvasId, connectionId: conn.id, error: String(err) });
        return refuse(CLOSE.internalError, 'internal error');
      },
    );
    conn.handled = conn.slot.then(() => undefined);
    return conn;
  }

  /**
   * The socket is gone (either side closed it): leave every channel and give
   * the slot back. Idempotent. `realtime.closed` is emitted once both are
   * recorded (with Redis, once the other nodes can see it).
   */
  closed(conn: Connection, code?: number): void {
    if (conn.closed) return;
    conn.closed = true;
    const departures = [...conn.channels.keys()].map((channel) => this.leave(conn, channel));
    const set = this.byCanvas.get(conn.canvasId);
    set?.delete(conn);
    if (set?.size === 0) {
      this.byCanvas.delete(conn.canvasId);
      this.receiversChecked.delete(conn.canvasId);
    }
    const done: Promise<void> = (async () => {
      for (const result of await Promise.allSettled(departures))
        if (result.status === 'rejected')
          this.ctx.log.error('realtime leave not recorded', { canvasId: conn.canvasId, error: String(result.reason) });
      if (!(await conn.slot)) return;
      try {
        await this.coordination.releaseSlot(conn.claim);
      } catch (err) {
        this.ctx.log.error('realtime slot not given back', { canvasId: conn.canvasId, connectionId: conn.id, error: String(err) });
      }
      this.ctx.log.debug('realtime close', { canvasId: conn.canvasId, connectionId: conn.id, code });
      this.ctx.events.emit('realtime.closed', { canvasId: conn.canvasId, connectionId: conn.id });
    })().finally(() => this.leaving.delete(done));
    this.leaving.add(done);
  }

  /**
   * A frame from the socket, handled after the ones before it: checking a
   * frame reads the store (asynchronously), and a socket's frames, errors
   * included, must take effect and be answered in the order it sent them.
   */
  message(conn: Connection, raw: string | Buffer): void {
    if (conn.closed) return;
    // Parsed now: the bytes are Bun's until this call returns.
    const parsed = parseFrame(raw);
    conn.handled = conn.handled
      .then(() => this.handle(conn, parsed))
      .catch((err) => {
        this.ctx.log.error('realtime frame failed', { canvasId: conn.canvasId, connectionId: conn.id, error: String(err) });
        this.close(conn, CLOSE.internalError, 'internal error');
      });
  }

  private async handle(conn: Connection, parsed: ReturnType<typeof parseFrame>): Promise<void> {
    if (conn.closed) return;
    if (!parsed.ok) return this.send(conn, frames.error(parsed.code, parsed.message));
    const frame = parsed.frame;
    switch (frame.type) {
      case 'unsubscribe':
        return this.leave(conn, frame.channel);
      case 'publish':
        if (!this.allow(conn, 'publish', REALTIME_LIMITS.publishesPerMinute)) return;
        return this.publish(conn, frame.channel, frame.event, frame.data);
      case 'subscribe':
        if (!this.allow(conn, 'control', REALTIME_LIMITS.controlFramesPerMinute)) return;
        return this.subscribe(conn, frame.channel);
      case 'presence':
        if (!this.allow(conn, 'control', REALTIME_LIMITS.controlFramesPerMinute)) return;
        return this.presenceRequest(conn, frame.channel);
    }
  }

  private allow(conn: Connection, bucket: 'publish' | 'control', limit: number): boolean {
    const d = this.limiter.hit(`${bucket}:${conn.id}`, limit);
    if (!d.allowed)
      this.send(
        conn,
        frames.error(
          'RATE_LIMITED',
          `at most ${limit} ${bucket === 'publish' ? 'publishes' : 'subscribe and presence frames'} per minute; retry in ${d.retryAfter} s`,
        ),
      );
    return d.allowed;
  }

  private async subscribe(conn: Connection, channel: string): Promise<void> {
    const live = await this.refresh(conn);
    if (!live) return;
    // A join is announced to the channel: only to those still allowed to hear it.
    await this.recheckReceivers(conn.canvasId);
    if (conn.closed) return;
    const rights = channelRights(live.canvas.runtimePolicy, channel, live.role);
    if (!rights.subscribe) return this.send(conn, frames.denied(channel, 'your role may not subscribe to this channel'));
    if (!conn.channels.has(channel)) {
      if (conn.channels.size >= REALTIME_LIMITS.channelsPerConnection) {
        return this.send(
          conn,
          frames.error('CHANNEL_LIMIT', `a connection may be on at most ${REALTIME_LIMITS.channelsPerConnection} channels`),
        );
      }
      await this.join(conn, channel, rights);
    }
    // The rights now (a change may have come while presence was recorded elsewhere).
    const current = conn.channels.get(channel);
    if (!current) return;
    const users = current.seePresence ? await this.coordination.users(conn.canvasId, channel) : null;
    // `subscribed` and the snapshot go out back to back.
    this.send(conn, frames.subscribed(channel));
    if (users) this.send(conn, frames.presence(channel, users));
  }

  private async publish(conn: Connection, channel: string, event: string, data: unknown): Promise<void> {
    const live = await this.refresh(conn);
    if (!live) return;
    if (!channelRights(live.canvas.runtimePolicy, channel, live.role).publish) {
      return this.send(conn, frames.denied(channel, 'your role may not publish on this channel'));
    }
    await this.recheckReceivers(conn.canvasId);
    if (conn.closed) return;
    const json = frames.message(channel, event, data, { id: conn.actorId, name: live.name, canvasRole: live.role });
    this.server?.publish(topic.messages(conn.canvasId, channel), json);
    this.coordination.broadcast({ canvasId: conn.canvasId, channel, type: 'message', actorId: conn.actorId, frame: json });
    if (this.ctx.events.has('realtime.fanout'))
      this.ctx.events.emit('realtime.fanout', { canvasId: conn.canvasId, channel, type: 'message', actorId: conn.actorId });
    // The sender always hears its own message (that is how the SDK knows a publish went out), subscribed or not.
    if (!conn.channels.has(channel)) this.send(conn, json);
  }

  private async presenceRequest(conn: Connection, channel: string): Promise<void> {
    const live = await this.refresh(conn);
    if (!live) return;
    if (!channelRights(live.canvas.runtimePolicy, channel, live.role).seePresence) {
      return this.send(conn, frames.denied(channel, 'your role may not see who is on this channel'));
    }
    this.send(conn, frames.presence(channel, await this.coordination.users(conn.canvasId, channel)));
  }

  /**
   * A frame from another node: out on this node's topic after the same
   * receiver check a local fan-out makes, in the order frames came for the
   * canvas. Canvases without sockets here skip it.
   */
  private deliver(fanout: Fanout): void {
    const { canvasId } = fanout;
    if (!this.byCanvas.has(canvasId)) return;
    const next = (this.inbound.get(canvasId) ?? DONE)
      .then(async () => {
        await this.recheckReceivers(canvasId);
        const name = fanout.type === 'message' ? topic.messages(canvasId, fanout.channel) : topic.presence(canvasId, fanout.channel);
        this.server?.publish(name, fanout.frame);
        if (this.ctx.events.has('realtime.fanout'))
          this.ctx.events.emit('realtime.fanout', { canvasId, channel: fanout.channel, type: fanout.type, actorId: fanout.actorId });
      })
      .catch((err) => this.ctx.log.error('realtime delivery failed', { canvasId, error: String(err) }));
    this.inbound.set(canvasId, next);
    void next.then(() => {
      if (this.inbound.get(canvasId) === next) this.inbound.delete(canvasId);
    });
  }

  // Membership

  private async join(conn: Connection, channel: string, rights: ChannelRights): Promise<void> {
    conn.channels.set(channel, rights);
    conn.ws.subscribe(topic.messages(conn.canvasId, channel));
    if (rights.seePresence) conn.ws.subscribe(topic.presence(conn.canvasId, channel));
    if (rights.participatePresence) await this.arrive(conn, channel);
  }

  /** Off the channel at once; the presence update (and `leave` for the others) may take a round trip. */
  private leave(conn: Connection, channel: string): Promise<void> {
    const rights = conn.channels.get(channel);
    if (!rights) return DONE;
    conn.channels.delete(channel);
    this.unsubscribeTopic(conn, topic.messages(conn.canvasId, channel));
    this.unsubscribeTopic(conn, topic.presence(conn.canvasId, channel));
    return rights.participatePresence ? this.depart(conn, channel) : DONE;
  }

  /** New rights for a channel the socket is on (role or policy changed). */
  private async rejoin(conn: Connection, channel: string, before: ChannelRights, after: ChannelRights): Promise<void> {
    if (!after.subscribe) {
      const left = this.leave(conn, channel);
      this.send(conn, frames.revoked(channel));
      return left;
    }
    conn.channels.set(channel, after);
    // Blind before it departs (it must not hear its own leave), seeing after it arrives.
    const presenceTopic = topic.presence(conn.canvasId, channel);
    if (!after.seePresence && before.seePresence) this.unsubscribeTopic(conn, presenceTopic);
    if (after.participatePresence && !before.participatePresence) await this.arrive(conn, channel);
    if (!after.participatePresence && before.participatePresence) await this.depart(conn, channel);
    if (after.seePresence && !before.seePresence && !conn.closed) {
      conn.ws.subscribe(presenceTopic);
      // The joins and leaves it missed while blind: start it from a snapshot, as a subscribe does.
      this.send(conn, frames.presence(channel, await this.coordination.users(conn.canvasId, channel)));
    }
  }

  private unsubscribeTopic(conn: Connection, name: string): void {
    try {
      conn.ws.unsubscribe(name);
    } catch {
      // Already closed: Bun has dropped its subscriptions.
    }
  }

  /** Counts the socket in the channel's presence; the user's first socket anywhere announces `join` to the others. */
  private async arrive(conn: Connection, channel: string): Promise<void> {
    const user = { id: conn.actorId, name: conn.name };
    if (!(await this.coordination.arrive(conn.canvasId, channel, conn.id, user))) return;
    const frame = frames.membership('join', channel, user);
    const name = topic.presence(conn.canvasId, channel);
    // Everyone but the joiner (which gets the snapshot instead).
    if (conn.closed) this.server?.publish(name, frame);
    else conn.ws.publish(name, frame);
    this.coordination.broadcast({ canvasId: conn.canvasId, channel, type: 'join', actorId: conn.actorId, frame });
    this.ctx.events.emit('realtime.fanout', { canvasId: conn.canvasId, channel, type: 'join', actorId: conn.actorId });
  }

  /** Uncounts the socket; when it was the user's last one on the channel anywhere, the others hear `leave`. */
  private async depart(conn: Connection, channel: string): Promise<void> {
    const user = await this.coordination.depart(conn.canvasId, channel, conn.id, conn.actorId);
    if (!user) return;
    const frame = frames.membership('leave', channel, user);
    this.server?.publish(topic.presence(conn.canvasId, channel), frame);
    this.coordination.broadcast({ canvasId: conn.canvasId, channel, type: 'leave', actorId: conn.actorId, frame });
    this.ctx.events.emit('realtime.fanout', { canvasId: conn.canvasId, channel, type: 'leave', actorId: conn.actorId });
  }

  // Revalidation

  /**
   * Re-checks the socket against the store: closes it (4401, 4403) when it
   * may no longer be here, otherwise refreshes its role and, when role or
   * policy changed, its channel memberships. Null when the socket was closed.
   */
  private async refresh(conn: Connection): Promise<Live | null> {
    if (conn.closed) return null;
    const live = await recheck(this.recheckDeps, conn.identity);
    if (conn.closed) return null;
    if (!live.ok) {
      if (live.close === CLOSE.capabilityDisabled) this.send(conn, frames.capabilityDisabled(live.refusal));
      this.close(
        conn,
        live.close,
        live.close === CLOSE.accessLost ? 'access to the canvas was lost' : 'realtime is switched off for this canvas',
      );
      return null;
    }
    // Unpublished on another node (this one heard no event): the change brought it here.
    if (conn.published && live.canvas.currentVersionId === null) {
      this.close(conn, CLOSE.accessLost, 'the canvas was unpublished');
      return null;
    }
    conn.published = live.canvas.currentVersionId !== null;
    conn.role = live.role;
    conn.name = live.name;
    conn.policy = live.canvas.runtimePolicy;
    const stamp = `${live.role}\n${live.canvas.runtimePolicyRevision}\n${live.canvas.updatedAt}`;
    if (stamp !== conn.stamp) {
      conn.stamp = stamp;
      await this.reconcile(conn);
    }
    return live;
  }

  /**
   * Brings every channel's membership in line with the socket's role and
   * policy. Passes run one after another and each reads the facts as they
   * are when it reaches a channel: presence updates may wait on another
   * node, and the latest check must win over an older pass still running.
   */
  private reconcile(conn: Connection): Promise<void> {
    const pass = conn.reconciled.then(async () => {
      for (const channel of [...conn.channels.keys()]) {
        const before = conn.channels.get(channel);
        if (!before || conn.closed) continue;
        await this.rejoin(conn, channel, before, channelRights(conn.policy, channel, conn.role));
      }
    });
    conn.reconciled = pass.catch(() => {});
    return pass;
  }

  private async revalidateCanvas(canvasId: string): Promise<void> {
    const version = this.dataVersion.current();
    const at = this.ctx.now();
    await Promise.all([...(this.byCanvas.get(canvasId) ?? [])].map((conn) => this.refresh(conn)));
    if (this.byCanvas.has(canvasId)) this.receiversChecked.set(canvasId, { version, at });
  }

  /**
   * Before a fan-out: re-checks every socket of the canvas unless nothing in
   * the store changed since the last time and that was under a second ago.
   * Topic publishing then reaches only sockets that may still listen.
   */
  private async recheckReceivers(canvasId: string): Promise<void> {
    const last = this.receiversChecked.get(canvasId);
    if (last && last.version === this.dataVersion.current() && this.ctx.now() - last.at < RECEIVERS_RECHECK_MS) return;
    await this.revalidateCanvas(canvasId);
  }

  private async revalidateAll(): Promise<void> {
    await Promise.all([...this.byCanvas.keys()].map((canvasId) => this.revalidateCanvas(canvasId)));
  }

  /** Work started by an event or a timer: a failure is logged, never left unhandled. */
  private inBackground(work: Promise<void>): void {
    work.catch((err) => this.ctx.log.error('realtime revalidation failed', { error: String(err) }));
  }

  private closeCanvas(canvasId: string, code: number, reason: string): void {
    for (const conn of [...(this.byCanvas.get(canvasId) ?? [])]) this.close(conn, code, reason);
    for (const conn of [...this.claiming]) if (conn.canvasId === canvasId) this.close(conn, code, reason);
  }

  private close(conn: Connection, code: number, reason: string): void {
    // Let go first: the channels are left and the departures under way before Bun reports the close.
    this.closed(conn, code);
    closeSocket(conn, code, reason);
  }

  private send(conn: Connection, json: string): void {
    if (!conn.closed) conn.ws.send(json);
  }

  /**
   * Every socket hears "going away" (1001) before the database closes; their
   * departures are recorded before the coordination (stopped after the hub)
   * lets go of the other nodes.
   */
  stop(): void | Promise<void> {
    this.stopped = true;
    this.following++;
    this.cancelSweep();
    for (const off of this.unsubscribe.splice(0)) off();
    for (const canvasId of new Set([...this.byCanvas.keys(), ...[...this.claiming].map((c) => c.canvasId)]))
      this.closeCanvas(canvasId, CLOSE.goingAway, 'server shutting down');
    // A pass still reading the store finishes before the database closes.
    return Promise.allSettled([...this.leaving, this.signalled ?? DONE]).then(() => undefined);
  }
}

function closeSocket(conn: Connection, code: number, reason: string): void {
  try {
    conn.ws.close(code, reason);
  } catch {
    // Already closed.
  }
}
