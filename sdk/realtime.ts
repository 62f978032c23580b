// easel.realtime: channels over one WebSocket per page (spec: Events /
// Realtime WebSocket). The socket opens on first use, resubscribes after a
// reconnect (with backoff), and stays down after 4401, 4403 and 4429. After
// a reconnect each channel tells its onJoin/onLeave handlers who came and
// went while it was away (from the presence the server sends with every
// subscription); onOpen says the socket is back.
//
// Replies are matched in order: the server answers a connection's frames in
// the order it sent them (subscribe → `subscribed` or an error, presence →
// `presence` or an error, publish → the sender's own `message` or an error),
// so the oldest unanswered operation owns the next reply.
import { CapabilityDisabledError, EaselError, errorFor } from './errors.ts';
import type { Sender, RealtimeMessage, PresenceUser } from './wire.ts';
export type { Sender, RealtimeMessage, PresenceUser } from './wire.ts';

export interface Channel {
  readonly name: string;
  /** Resolves once the server confirmed; `handler` gets every message, the page's own included. */
  subscribe(handler: (message: RealtimeMessage) => void): Promise<void>;
  /** Resolves once the server fanned it out; rejects with PermissionDeniedError when the role may not publish here. */
  publish(event: string, data?: unknown): Promise<void>;
  /** Who is on the channel. */
  presence(): Promise<PresenceUser[]>;
  /**
   * Returns a function that removes the handler. After a reconnect the
   * channel compares who is there with who was, and calls these for the
   * difference: a list kept from presence(), onJoin and onLeave stays right.
   */
  onJoin(handler: (user: PresenceUser) => void): () => void;
  onLeave(handler: (user: PresenceUser) => void): () => void;
  /** Unsubscribes this channel only. */
  close(): void;
}

export interface RealtimeErrorEvent {
  code: string;
  message: string;
  channel?: string;
  capability?: string;
  /** The server took `channel` away (the person's role or the policy changed): its handlers hear nothing more. */
  unsubscribed?: boolean;
}

export interface RealtimeOpenEvent {
  /** false the first time; true when the socket came back after a drop (the channels are subscribed again). */
  reconnected: boolean;
}

export interface RealtimeCloseEvent {
  code: number;
  reason: string;
  /** false after 4401, 4403 and 4429 (and when no channel is left open). */
  willReconnect: boolean;
}

export interface Realtime {
  channel(name: string): Channel;
  /** Every error frame the server sends. */
  onError(handler: (error: RealtimeErrorEvent) => void): () => void;
  /** Every close of the socket. */
  onClose(handler: (event: RealtimeCloseEvent) => void): () => void;
  /** Every open of the socket, once the page's channels are asked for again: refresh what may have changed meanwhile. */
  onOpen(handler: (event: RealtimeOpenEvent) => void): () => void;
}

export interface RealtimeOptions {
  /** ws:// or wss:// URL of /v1/c/{slug}/realtime. */
  url: () => string;
  openSocket?: (url: string) => WebSocket;
  /**
   * After a refused handshake, asks the HTTP API: its refusal when retrying
   * cannot fix it, 'answered' when the API let the caller in (the refusal
   * was the socket's own), null when the API could not be asked.
   */
  probe?: () => Promise<EaselError | 'answered' | null>;
  /** Backoff bounds in ms. */
  retry?: { minMs: number; maxMs: number };
}

const MAX_FRAME_BYTES = 16 * 1024;
const TERMINAL = new Set([4401, 4403, 4429]);
/**
 * Handshakes refused in a row while the HTTP API lets the caller in: a
 * refusal only sockets get (an Origin or Host a proxy rewrote), which
 * retrying will not fix. A server that is down is retried for ever.
 */
const SOCKET_ONLY_REFUSALS = 3;
const STATUS: Record<string, number> = {
  MESSAGE_TOO_LARGE: 413,
  INVALID_FRAME: 400,
  CHANNEL_NAME_TOO_LARGE: 400,
  CHANNEL_LIMIT: 409,
  RATE_LIMITED: 429,
  UNKNOWN_FRAME: 400,
  PERMISSION_DENIED: 403,
  CAPABILITY_DISABLED: 403,
};

interface Op {
  kind: 'subscribe' | 'publish' | 'presence';
  channel: string;
  frame: string;
  /** publish: what the echo must carry */
  event?: string;
  data?: string;
  resolve(value: unknown): void;
  reject(error: EaselError): void;
}

interface ChannelState {
  name: string;
  handlers: Set<(m: RealtimeMessage) => void>;
  joins: Set<(u: PresenceUser) => void>;
  leaves: Set<(u: PresenceUser) => void>;
  /** Asked for by subscribe() and not closed. */
  wanted: boolean;
  /** Confirmed on the current socket. */
  subscribed: boolean;
  waiters: Array<{ resolve(): void; reject(e: EaselError): void }>;
  /** Who this page was told is there (every presence frame, join and leave), by id. */
  present: Map<string, PresenceUser>;
  /** Subscribed when the socket dropped: who was there then, until the presence that comes with the new subscription. */
  resyncFrom: Map<string, PresenceUser> | null;
  api: Channel;
}

type Frame = Record<string, unknown>;

const bytes = (s: string) => new TextEncoder().encode(s).length;

function safely<T>(fn: (v: T) => void, value: T): void {
  try {
    fn(value);
  } catch (err) {
    // A page's handler must not break the socket; report it like any uncaught error.
    setTimeout(() => {
      throw err;
    });
  }
}

function frameError(f: Frame): EaselError {
  const code = typeof f.code === 'string' ? f.code : 'INVALID_FRAME';
  return errorFor(code, STATUS[code] ?? 400, typeof f.message === 'string' ? f.message : code, f);
}

function closeError(code: number, reason: string, capability: EaselError | null): EaselError {
  if (code === 4403) {
    return (
      capability ??
      new CapabilityDisabledError('CAPABILITY_DISABLED', 403, reason || 'realtime is switched off for this canvas', {
        capability: 'realtime',
      })
    );
  }
  if (code === 4429) return new EaselError('TOO_MANY_CONNECTIONS', 429, reason || 'the canvas has too many realtime connections');
  return new EaselError('ACCESS_LOST', 401, reason || 'access to the canvas was lost');
}

export function createRealtime(options: RealtimeOptions): Realtime {
  const openSocket = options.openSocket ?? ((url: string) => new WebSocket(url));
  const retry = options.retry ?? { minMs: 500, maxMs: 15_000 };
  const channels = new Map<string, ChannelState>();
  const errorHandlers = new Set<(e: RealtimeErrorEvent) => void>();
  const closeHandlers = new Set<(e: RealtimeCloseEvent) => void>();
  const openHandlers = new Set<(e: RealtimeOpenEvent) => void>();
  /** A socket opened before: the next open is a reconnect. */
  let everOpened = false;

  let ws: WebSocket | null = null;
  let open = false;
  /** Sent on the current socket, awaiting their reply, oldest first. */
  let inflight: Op[] = [];
  /** Waiting for the socket to open. */
  let outbox: Op[] = [];
  let terminal: EaselError | null = null;
  /** The CAPABILITY_DISABLED frame that precedes a 4403. */
  let capabilityError: EaselError | null = null;
  let attempts = 0;
  let reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  /** Asking the HTTP API why a handshake was refused. */
  let probing = false;
  let socketOnlyRefusals = 0;

  const active = () => channels.size > 0 || inflight.length > 0 || outbox.length > 0;

  function connect(): void {
    if (ws || terminal) return;
    let socket: WebSocket;
    try {
      socket = openSocket(options.url());
    } catch (err) {
      return fail(err instanceof EaselError ? err : new EaselError('NETWORK_ERROR', 0, 'cannot open the realtime socket'));
    }
    ws = socket;
    let opened = false;
    socket.onopen = () => {
      if (ws !== socket) return;
      opened = true;
      open = true;
      attempts = 0;
      socketOnlyRefusals = 0;
      // Channels this page is on come back first, then whatever waited for the socket.
      const queued = outbox;
      outbox = [];
      for (const ch of channels.values()) {
        if (ch.wanted && !queued.some((op) => op.kind === 'subscribe' && op.channel === ch.name)) {
          transmit(subscribeOp(ch));
        }
      }
      for (const op of queued) transmit(op);
      const reconnected = everOpened;
      everOpened = true;
      for (const h of [...openHandlers]) safely(h, { reconnected });
    };
    socket.onmessage = (e) => {
      if (ws !== socket) return;
      let frame: Frame;
      try {
        frame = JSON.parse(String(e.data));
      } catch {
        return;
      }
      if (typeof frame === 'object' && frame !== null) receive(frame);
    };
    socket.onclose = (e) => {
      if (ws !== socket) return;
      ws = null;
      open = false;
      closed(e.code, e.reason, opened);
    };
  }

  function closed(code: number, reason: string, opened: boolean): void {
    for (const ch of channels.values()) {
      if (ch.subscribed) ch.resyncFrom = ch.present;
      ch.subscribed = false;
    }
    if (code === 4401 && options.probe) {
      // Signed out, or taken off the canvas: the HTTP API says which, so the page gets UnauthorizedError when signing in helps.
      emitClose(code, reason, false);
      probing = true;
      const settle = (answer: EaselError | 'answered' | null) => {
        probing = false;
        fail(answer instanceof EaselError ? answer : closeError(code, reason, capabilityError));
      };
      options.probe().then(settle, () => settle(null));
      return;
    }
    if (TERMINAL.has(code)) {
      emitClose(code, reason, false);
      return fail(closeError(code, reason, capabilityError));
    }
    // Subscriptions survive a reconnect (their promises wait for it); anything else sent is lost.
    const lost = inflight;
    inflight = [];
    for (const op of lost) if (op.kind !== 'subscribe') op.reject(new EaselError('NETWORK_ERROR', 0, 'the realtime connection dropped'));
    if (!active()) return emitClose(code, reason, false);
    if (!opened && options.probe) {
      // The handshake was refused: a browser cannot read why, the HTTP API can.
      probing = true;
      const settle = (answer: EaselError | 'answered' | null) => {
        probing = false;
        socketOnlyRefusals = answer === 'answered' ? socketOnlyRefusals + 1 : 0;
        const refusal =
          answer instanceof EaselError
            ? answer
            : socketOnlyRefusals >= SOCKET_ONLY_REFUSALS
              ? errorFor(
                  'CROSS_SITE_FORBIDDEN',
                  403,
                  'the server refuses realtime sockets from this page although its API answers: a proxy in front of Easel may be rewriting the Origin or Host header',
                )
              : null;
        emitClose(code, reason, refusal === null);
        if (refusal) fail(refusal);
        else scheduleReconnect();
      };
      options.probe().then(settle, () => settle(null));
      return;
    }
    emitClose(code, reason, true);
    scheduleReconnect();
  }

  function scheduleReconnect(): void {
    if (terminal || reconnectTimer || ws || probing || !active()) return;
    const base = Math.min(retry.maxMs, retry.minMs * 2 ** attempts);
    attempts++;
    reconnectTimer = setTimeout(
      () => {
        reconnectTimer = null;
        if (active()) connect();
      },
      base / 2 + (Math.random() * base) / 2,
    );
  }

  /** Terminal: every waiting promise rejects, and so will every later call. */
  function fail(error: EaselError): void {
    terminal = error;
    if (reconnectTimer) clearTimeout(reconnectTimer);
    reconnectTimer = null;
    const ops = [...inflight, ...outbox];
    inflight = [];
    outbox = [];
    for (const op of ops) op.reject(error);
    for (const ch of channels.values()) rejectWaiters(ch, error);
  }

  function emitClose(code: number, reason: string, willReconnect: boolean): void {
    for (const h of [...closeHandlers]) safely(h, { code, reason, willReconnect });
  }

  function rejectWaiters(ch: ChannelState, error: EaselError): void {
    const waiters = ch.waiters;
    ch.waiters = [];
    ch.wanted = false;
    for (const w of waiters) w.reject(error);
  }

  function transmit(op: Op): void {
    inflight.push(op);
    ws!.send(op.frame);
  }

  /** Sends now, or once the socket is open. */
  function submit(op: Op): void {
    if (terminal) return op.reject(terminal);
    if (open && ws) return transmit(op);
    outbox.push(op);
    // While a reconnect waits out its backoff, the op waits with it.
    if (!reconnectTimer && !probing) connect();
  }

  function subscribeOp(ch: ChannelState): Op {
    return {
      kind: 'subscribe',
      channel: ch.name,
      frame: JSON.stringify({ type: 'subscribe', channel: ch.name }),
      resolve: () => {},
      reject: () => {},
    };
  }

  function receive(f: Frame): void {
    const channel = typeof f.channel === 'string' ? f.channel : undefined;
    const ch = channel === undefined ? undefined : channels.get(channel);
    const head = inflight[0];
    switch (f.type) {
      case 'subscribed':
        if (head?.kind === 'subscribe' && head.channel === channel) inflight.shift();
        if (ch && ch.wanted) {
          ch.subscribed = true;
          const waiters = ch.waiters;
          ch.waiters = [];
          for (const w of waiters) w.resolve();
        }
        return;
      case 'presence': {
        const users = Array.isArray(f.users) ? (f.users as PresenceUser[]) : [];
        if (ch) presenceIs(ch, users);
        if (head?.kind === 'presence' && head.channel === channel) {
          inflight.shift();
          head.resolve(users);
        }
        return;
      }
      case 'message': {
        const message: RealtimeMessage = { channel: channel ?? '', event: String(f.event ?? ''), data: f.data, from: f.from as Sender };
        if (
          head?.kind === 'publish' &&
          head.channel === channel &&
          head.event === message.event &&
          head.data === JSON.stringify(f.data ?? null)
        ) {
          inflight.shift();
          head.resolve(undefined);
        }
        if (ch) for (const h of [...ch.handlers]) safely(h, message);
        return;
      }
      case 'join':
      case 'leave': {
        if (!ch) return;
        const user = f.user as PresenceUser;
        if (f.type === 'join') ch.present.set(user?.id, user);
        else ch.present.delete(user?.id);
        for (const h of [...(f.type === 'join' ? ch.joins : ch.leaves)]) safely(h, user);
        return;
      }
      case 'error':
        return receiveError(f, channel, ch, head);
    }
  }

  function receiveError(f: Frame, channel: string | undefined, ch: ChannelState | undefined, head: Op | undefined): void {
    const event: RealtimeErrorEvent = { code: String(f.code ?? ''), message: String(f.message ?? '') };
    if (channel !== undefined) event.channel = channel;
    if (typeof f.capability === 'string') event.capability = f.capability;
    // Taken away, not a refused call: said as the server said it, and for a channel no call of the page was waiting on.
    if (channel !== undefined && (f.unsubscribed === true || head?.channel !== channel) && event.code !== 'CAPABILITY_DISABLED')
      event.unsubscribed = true;
    for (const h of [...errorHandlers]) safely(h, event);
    const error = frameError(f);
    if (event.code === 'CAPABILITY_DISABLED') {
      // The 4403 close follows; its error carries this one.
      capabilityError = error;
      return;
    }
    if (channel !== undefined && (f.unsubscribed === true || head?.channel !== channel)) {
      // Not a reply: the server took this channel away (the role or the policy changed).
      if (ch) {
        ch.subscribed = false;
        rejectWaiters(ch, error);
      }
      return;
    }
    if (!head) return;
    inflight.shift();
    if (head.kind === 'subscribe') {
      const target = channels.get(head.channel);
      if (target) rejectWaiters(target, error);
    } else {
      head.reject(error);
    }
  }

  /**
   * Who is on `ch`, as a presence frame says. The first one after a
   * reconnect (the server sends it with the resubscription) tells the page
   * joins and leaves for the difference with who was there before the drop.
   */
  function presenceIs(ch: ChannelState, users: PresenceUser[]): void {
    const now = new Map(users.map((u) => [u.id, u]));
    const before = ch.resyncFrom;
    ch.present = now;
    ch.resyncFrom = null;
    if (!before) return;
    for (const [id, user] of before) if (!now.has(id)) for (const h of [...ch.leaves]) safely(h, user);
    for (const [id, user] of now) if (!before.has(id)) for (const h of [...ch.joins]) safely(h, user);
  }

  function state(name: string): ChannelState {
    const existing = channels.get(name);
    if (existing) return existing;
    const ch: ChannelState = {
      name,
      handlers: new Set(),
      joins: new Set(),
      leaves: new Set(),
      wanted: false,
      subscribed: false,
      waiters: [],
      present: new Map(),
      resyncFrom: null,
      api: null as unknown as Channel,
    };
    ch.api = channelApi(ch);
    channels.set(name, ch);
    return ch;
  }

  function channelApi(ch: ChannelState): Channel {
    const live = () => channels.get(ch.name) === ch;
    const request = <T>(kind: 'publish' | 'presence', frame: Frame, extra: Partial<Op> = {}): Promise<T> =>
      new Promise<T>((resolve, reject) => {
        if (!live()) return reject(new EaselError('CHANNEL_CLOSED', 0, 'this channel was closed'));
        const text = JSON.stringify(frame);
        if (bytes(text) > MAX_FRAME_BYTES) return reject(errorFor('MESSAGE_TOO_LARGE', 413, `frames are at most ${MAX_FRAME_BYTES} bytes`));
        submit({ kind, channel: ch.name, frame: text, resolve: resolve as (v: unknown) => void, reject, ...extra });
      });
    return Object.freeze({
      name: ch.name,
      subscribe(handler: (m: RealtimeMessage) => void): Promise<void> {
        return new Promise<void>((resolve, reject) => {
          if (!live()) return reject(new EaselError('CHANNEL_CLOSED', 0, 'this channel was closed'));
          if (terminal) return reject(terminal);
          if (typeof handler === 'function') ch.handlers.add(handler);
          if (ch.subscribed) return resolve();
          ch.waiters.push({ resolve, reject });
          if (ch.wanted) return;
          ch.wanted = true;
          submit(subscribeOp(ch));
        });
      },
      publish(event: string, data?: unknown): Promise<void> {
        if (event !== undefined && event !== null && typeof event !== 'string')
          return Promise.reject(new EaselError('INVALID_FRAME', 400, 'publish(event, data): the event is a name, a string'));
        const payload = data === undefined ? null : data;
        const name = event ?? '';
        return request<void>(
          'publish',
          { type: 'publish', channel: ch.name, event: name, data: payload },
          { event: name, data: JSON.stringify(payload) },
        );
      },
      presence(): Promise<PresenceUser[]> {
        return request<PresenceUser[]>('presence', { type: 'presence', channel: ch.name });
      },
      onJoin(handler: (u: PresenceUser) => void) {
        ch.joins.add(handler);
        return () => void ch.joins.delete(handler);
      },
      onLeave(handler: (u: PresenceUser) => void) {
        ch.leaves.add(handler);
        return () => void ch.leaves.delete(handler);
      },
      close(): void {
        if (!live()) return;
        channels.delete(ch.name);
        const wasOn = ch.wanted || ch.subscribed;
        ch.handlers.clear();
        ch.joins.clear();
        ch.leaves.clear();
        rejectWaiters(ch, new EaselError('CHANNEL_CLOSED', 0, 'this channel was closed'));
        ch.subscribed = false;
        outbox = outbox.filter((op) => !(op.kind === 'subscribe' && op.channel === ch.name));
        if (wasOn && open && ws) ws.send(JSON.stringify({ type: 'unsubscribe', channel: ch.name }));
        idle();
      },
    });
  }

  /** No channel and nothing waiting: let the socket go (a canvas has room for 30). */
  function idle(): void {
    if (active()) return;
    if (reconnectTimer) clearTimeout(reconnectTimer);
    reconnectTimer = null;
    const socket = ws;
    ws = null;
    open = false;
    if (socket) {
      socket.onclose = null;
      socket.close(1000, 'no channel left');
      emitClose(1000, 'no channel left', false);
    }
  }

  return Object.freeze({
    channel(name: string): Channel {
      return state(String(name)).api;
    },
    onError(handler: (e: RealtimeErrorEvent) => void) {
      errorHandlers.add(handler);
      return () => void errorHandlers.delete(handler);
    },
    onClose(handler: (e: RealtimeCloseEvent) => void) {
      closeHandlers.add(handler);
      return () => void closeHandlers.delete(handler);
    },
    onOpen(handler: (e: RealtimeOpenEvent) => void) {
      openHandlers.add(handler);
      return () => void openHandlers.delete(handler);
    },
  });
}
