// The realtime hub of one process: open sockets per canvas, channel
// membership, presence, and fan-out through Bun's topics (one publish per
// message, whatever the number of subscribers). Channel rights are applied
// by topic membership: a socket is on a channel's message topic only while
// its live role may subscribe, and on its presence topic only while it may
// see presence. Policy, role and access changes (ctx.events) recompute that
// membership for every open socket of the canvas, so they apply at once;
// every operation also re-checks its sender against the store, and the
// receivers too before anything fans out, whenever the store changed or a
// second passed (shares, sessions and invites also expire with time alone).
// A periodic sweep closes idle sockets whose access ran out.
import type { Server, ServerWebSocket } from 'bun';
import type { Cancel } from '../../clock.ts';
import type { CanvasRole } from '../../canvases/record.ts';
import type { Lifecycle } from '../../lifecycle.ts';
import type { AppContext } from '../../context.ts';
import type { ChangeSignal } from '../../db/change-signal.ts';
import { newId } from '../../ids.ts';
import { RateLimiter } from '../../http/ratelimit.ts';
import { recheck, type Recheck, type RecheckDeps, type SocketIdentity } from './access.ts';
import { frames, parseFrame, type PresenceUser } from './frames.ts';
import { CLOSE, REALTIME_LIMITS } from './limits.ts';
import { channelRights, type ChannelRights } from './policy.ts';

/** The part of the app context this feature uses. */
export type RealtimeDeps = Pick<AppContext, 'auth' | 'canvases' | 'events' | 'log' | 'now' | 'scheduler' | 'sql'>;

export type RealtimeSocket = ServerWebSocket<unknown>;

/** One open socket. */
export class Connection {
  readonly id = newId();
  /** Channels this socket is on, with the rights its membership was computed from. */
  readonly channels = new Map<string, ChannelRights>();
  closed = false;
  /** Live facts from the last check. */
  role: CanvasRole;
  name: string;
  /** What the channel rights were last computed from: role, policy revision, canvas update time. */
  stamp = '';
  /** The frames being handled, one after another (RealtimeHub.message). */
  handled: Promise<void> = Promise.resolve();

  constructor(
    readonly ws: RealtimeSocket,
    readonly identity: SocketIdentity,
    initial: { role: CanvasRole; name: string },
  ) {
    this.role = initial.role;
    this.name = initial.name;
  }

  get actorId(): string {
    return this.identity.actorId;
  }

  get canvasId(): string {
    return this.identity.canvasId;
  }
}

interface Participant {
  user: PresenceUser;
  /** The user's sockets counted in this channel's presence (a user leaves when the last one goes). */
  conns: Set<Connection>;
}

type Live = Extract<Recheck, { ok: true }>;

/** Receivers are re-checked before a fan-out at least this often, even when the store did not change. */
const RECEIVERS_RECHECK_MS = 1000;
/** Idle sockets are re-checked this often (access that ran out with time alone). */
const SWEEP_EVERY_MS = 15_000;

const topic = {
  messages: (canvasId: string, channel: string) => `rt|${canvasId}|m|${channel}`,
  presence: (canvasId: string, channel: string) => `rt|${canvasId}|p|${channel}`,
};

export class RealtimeHub implements Lifecycle {
  private server: Server<unknown> | null = null;
  private readonly byCanvas = new Map<string, Set<Connection>>();
  /** canvasId → channel → actorId → participant */
  private readonly presence = new Map<string, Map<string, Map<string, Participant>>>();
  /** Its own limiter: realtime limits stay on with EASEL_RATELIMIT_ENABLED=false. */
  private readonly limiter: RateLimiter;
  private readonly unsubscribe: Array<() => void> = [];
  private readonly dataVersion: ChangeSignal;
  /** canvasId → when and at which data version its receivers were last re-checked. */
  private readonly receiversChecked = new Map<string, { version: number; at: number }>();
  private cancelSweep: Cancel = () => {};
  private readonly recheckDeps: RecheckDeps;

  constructor(
    private readonly ctx: RealtimeDeps,
    deps: Omit<RecheckDeps, 'ctx'>,
  ) {
    this.limiter = new RateLimiter(true, 100_000, ctx.now);
    this.dataVersion = ctx.sql.changes;
    this.recheckDeps = { ctx, ...deps };
  }

  /** Follows the changes that can cost a socket its access, and re-checks idle sockets on a timer. */
  start(): void {
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
  }

  /** Open sockets, every canvas together (metrics). */
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
   * A socket the pipeline admitted has opened: register it, or close it with
   * 4429 when the canvas is full for this person (see slotRefusal).
   */
  open(ws: RealtimeSocket, identity: SocketIdentity, initial: { role: CanvasRole; name: string }): Connection | null {
    const set = this.byCanvas.get(identity.canvasId) ?? new Set<Connection>();
    const refusal = slotRefusal(set, identity.actorId, initial.role);
    if (refusal) {
      ws.close(CLOSE.tooManyConnections, refusal);
      return null;
    }
    const conn = new Connection(ws, identity, initial);
    set.add(conn);
    this.byCanvas.set(identity.canvasId, set);
    this.ctx.log.debug('realtime open', { canvasId: identity.canvasId, connectionId: conn.id, open: set.size });
    return conn;
  }

  /** The socket is gone (either side closed it): leave every channel. Idempotent. */
  closed(conn: Connection, code?: number): void {
    if (conn.closed) return;
    conn.closed = true;
    for (const channel of [...conn.channels.keys()]) this.leave(conn, channel);
    const set = this.byCanvas.get(conn.canvasId);
    set?.delete(conn);
    if (set?.size === 0) {
      this.byCanvas.delete(conn.canvasId);
      this.receiversChecked.delete(conn.canvasId);
    }
    this.ctx.log.debug('realtime close', { canvasId: conn.canvasId, connectionId: conn.id, code });
    this.ctx.events.emit('realtime.closed', { canvasId: conn.canvasId, connectionId: conn.id });
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
        if (conn.channels.has(frame.channel)) this.leave(conn, frame.channel);
        return;
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
    const rights = channelRights(live.canvas.runtimePolicy, channel, live.role);
    if (!rights.subscribe) return this.send(conn, frames.denied(channel, 'your role may not subscribe to this channel'));
    if (!conn.channels.has(channel)) {
      if (conn.channels.size >= REALTIME_LIMITS.channelsPerConnection) {
        return this.send(
          conn,
          frames.error('CHANNEL_LIMIT', `a connection may be on at most ${REALTIME_LIMITS.channelsPerConnection} channels`),
        );
      }
      this.join(conn, channel, rights);
    }
    this.send(conn, frames.subscribed(channel));
    if (rights.seePresence) this.send(conn, frames.presence(channel, this.users(conn.canvasId, channel)));
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
    this.send(conn, frames.presence(channel, this.users(conn.canvasId, channel)));
  }

  // Membership

  private join(conn: Connection, channel: string, rights: ChannelRights): void {
    conn.channels.set(channel, rights);
    conn.ws.subscribe(topic.messages(conn.canvasId, channel));
    if (rights.seePresence) conn.ws.subscribe(topic.presence(conn.canvasId, channel));
    if (rights.participatePresence) this.arrive(conn, channel);
  }

  private leave(conn: Connection, channel: string): void {
    const rights = conn.channels.get(channel);
    if (!rights) return;
    conn.channels.delete(channel);
    this.unsubscribeTopic(conn, topic.messages(conn.canvasId, channel));
    this.unsubscribeTopic(conn, topic.presence(conn.canvasId, channel));
    if (rights.participatePresence) this.depart(conn, channel);
  }

  /** New rights for a channel the socket is on (role or policy changed). */
  private rejoin(conn: Connection, channel: string, before: ChannelRights, after: ChannelRights): void {
    if (!after.subscribe) {
      this.leave(conn, channel);
      return this.send(conn, frames.revoked(channel));
    }
    conn.channels.set(channel, after);
    // Blind before it departs (it must not hear its own leave), seeing after it arrives.
    const presenceTopic = topic.presence(conn.canvasId, channel);
    if (!after.seePresence && before.seePresence) this.unsubscribeTopic(conn, presenceTopic);
    if (after.participatePresence && !before.participatePresence) this.arrive(conn, channel);
    if (!after.participatePresence && before.participatePresence) this.depart(conn, channel);
    if (after.seePresence && !before.seePresence) {
      conn.ws.subscribe(presenceTopic);
      // The joins and leaves it missed while blind: start it from a snapshot, as a subscribe does.
      this.send(conn, frames.presence(channel, this.users(conn.canvasId, channel)));
    }
  }

  private unsubscribeTopic(conn: Connection, name: string): void {
    try {
      conn.ws.unsubscribe(name);
    } catch {
      // Already closed: Bun has dropped its subscriptions.
    }
  }

  /** Counts the socket in the channel's presence; the user's first socket announces `join` to the others. */
  private arrive(conn: Connection, channel: string): void {
    const channels = this.presence.get(conn.canvasId) ?? new Map<string, Map<string, Participant>>();
    this.presence.set(conn.canvasId, channels);
    const people = channels.get(channel) ?? new Map<string, Participant>();
    channels.set(channel, people);
    const existing = people.get(conn.actorId);
    if (existing) {
      existing.conns.add(conn);
      return;
    }
    const user = { id: conn.actorId, name: conn.name };
    people.set(conn.actorId, { user, conns: new Set([conn]) });
    conn.ws.publish(topic.presence(conn.canvasId, channel), frames.membership('join', channel, user));
    this.ctx.events.emit('realtime.fanout', { canvasId: conn.canvasId, channel, type: 'join', actorId: conn.actorId });
  }

  /** Uncounts the socket; when it was the user's last one on the channel, the others hear `leave`. */
  private depart(conn: Connection, channel: string): void {
    const channels = this.presence.get(conn.canvasId);
    const people = channels?.get(channel);
    const participant = people?.get(conn.actorId);
    if (!channels || !people || !participant) return;
    participant.conns.delete(conn);
    if (participant.conns.size > 0) return;
    people.delete(conn.actorId);
    if (people.size === 0) channels.delete(channel);
    if (channels.size === 0) this.presence.delete(conn.canvasId);
    this.server?.publish(topic.presence(conn.canvasId, channel), frames.membership('leave', channel, participant.user));
    this.ctx.events.emit('realtime.fanout', { canvasId: conn.canvasId, channel, type: 'leave', actorId: conn.actorId });
  }

  private users(canvasId: string, channel: string): PresenceUser[] {
    const people = this.presence.get(canvasId)?.get(channel);
    return people ? [...people.values()].map((p) => p.user) : [];
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
    if (!live.ok) {
      if (live.close === CLOSE.capabilityDisabled) this.send(conn, frames.capabilityDisabled(live.refusal));
      this.close(
        conn,
        live.close,
        live.close === CLOSE.accessLost ? 'access to the canvas was lost' : 'realtime is switched off for this canvas',
      );
      return null;
    }
    conn.role = live.role;
    conn.name = live.name;
    const stamp = `${live.role}\n${live.canvas.runtimePolicyRevision}\n${live.canvas.updatedAt}`;
    if (stamp !== conn.stamp) {
      conn.stamp = stamp;
      for (const [channel, before] of [...conn.channels]) {
        this.rejoin(conn, channel, before, channelRights(live.canvas.runtimePolicy, channel, live.role));
      }
    }
    return live;
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
  }

  private close(conn: Connection, code: number, reason: string): void {
    // Leave first, so the others hear `leave` and the slot frees up before Bun reports the close.
    this.closed(conn, code);
    try {
      conn.ws.close(code, reason);
    } catch {
      // Already closed.
    }
  }

  private send(conn: Connection, json: string): void {
    if (!conn.closed) conn.ws.send(json);
  }

  /** Every socket hears "going away" (1001) before the database closes. */
  stop(): void {
    this.cancelSweep();
    for (const off of this.unsubscribe.splice(0)) off();
    for (const canvasId of [...this.byCanvas.keys()]) this.closeCanvas(canvasId, CLOSE.goingAway, 'server shutting down');
  }
}

/**
 * Why a new socket gets no slot, or null: the canvas is full (30); a viewer
 * or guest finds the last 5 held for owners and editors; or this person
 * already has 5 sockets on the canvas.
 */
function slotRefusal(open: Set<Connection>, actorId: string, role: CanvasRole): string | null {
  const { connectionsPerCanvas, connectionsPerPerson, connectionsReservedForManagers } = REALTIME_LIMITS;
  if (open.size >= connectionsPerCanvas) return `a canvas has at most ${connectionsPerCanvas} realtime connections`;
  const manager = role === 'owner' || role === 'editor';
  if (!manager && open.size >= connectionsPerCanvas - connectionsReservedForManagers) {
    return `the last ${connectionsReservedForManagers} realtime connections of a canvas are kept for its owners and editors`;
  }
  let mine = 0;
  for (const c of open) if (c.actorId === actorId) mine++;
  if (mine >= connectionsPerPerson) return `one person has at most ${connectionsPerPerson} realtime connections to a canvas`;
  return null;
}
