// Frames for other nodes' sockets, over Redis pub/sub. One channel per
// instance: every node hears every frame and drops those for canvases it
// has no socket on (the hub does). For a few nodes that costs less than a
// subscription per canvas, and it is in place before a socket's first frame.
// A node drops its own frames by their origin before parsing anything.
// Frames from no node in particular (`*`: the `leave` of a dead node's
// people, sent by whichever node reaped it) reach every node.
import type { RedisClient } from 'bun';
import type { Logger } from '../../../log.ts';
import type { Fanout } from '../coordination.ts';

/** The origin of frames every node delivers, the sender's included. */
export const EVERYWHERE = '*';

/** `<origin>\n<json header>\n<frame>`: the frame travels as it will be sent, never parsed again. */
export function encodeFanout(origin: string, f: Fanout): string {
  return `${origin}\n${JSON.stringify([f.canvasId, f.channel, f.type, f.actorId])}\n${f.frame}`;
}

export function decodeFanout(message: string): { origin: string; fanout: Fanout } | null {
  const a = message.indexOf('\n');
  const b = a < 0 ? -1 : message.indexOf('\n', a + 1);
  if (b < 0) return null;
  try {
    const [canvasId, channel, type, actorId] = JSON.parse(message.slice(a + 1, b)) as [string, string, Fanout['type'], string];
    return { origin: message.slice(0, a), fanout: { canvasId, channel, type, actorId, frame: message.slice(b + 1) } };
  } catch {
    return null;
  }
}

export class RedisBus {
  private deliver: (fanout: Fanout) => void = () => {};
  private readonly own: string;
  private connects = 0;

  constructor(
    private readonly publisher: RedisClient,
    /** A client of its own: a subscribed connection can send nothing else. */
    private readonly subscriber: RedisClient,
    private readonly channel: string,
    private readonly nodeId: string,
    private readonly log: Logger,
  ) {
    this.own = `${nodeId}\n`;
  }

  onFanout(deliver: (fanout: Fanout) => void): void {
    this.deliver = deliver;
  }

  async start(): Promise<void> {
    // Bun reconnects a dropped subscriber but neither subscribes it again nor
    // forgets the old listener: unsubscribe, then subscribe anew (subscribing
    // on top would deliver every frame twice).
    this.subscriber.onconnect = () => {
      if (++this.connects === 1) return;
      this.log.warn('realtime: the Redis subscriber reconnected; frames other nodes sent meanwhile were lost');
      this.subscriber
        .unsubscribe(this.channel)
        .then(() => this.subscriber.subscribe(this.channel, this.listener))
        .catch((err) => this.log.error('realtime: could not subscribe again to Redis', { error: String(err) }));
    };
    await this.subscriber.connect();
    await this.subscriber.subscribe(this.channel, this.listener);
  }

  private readonly listener = (message: string): void => {
    if (message.startsWith(this.own)) return;
    const decoded = decodeFanout(message);
    if (decoded) this.deliver(decoded.fanout);
    else this.log.warn('realtime: an unreadable frame on the Redis channel was dropped', { bytes: message.length });
  };

  /** To the other nodes (or, with EVERYWHERE, to every node). Resolves once Redis took it. */
  send(fanout: Fanout, origin: string = this.nodeId): Promise<void> {
    return this.publisher.publish(this.channel, encodeFanout(origin, fanout)).then(
      () => undefined,
      (err) => this.log.error('realtime: a frame for the other nodes was lost', { canvasId: fanout.canvasId, error: String(err) }),
    );
  }

  /** No more subscribing again (the caller closes the clients). */
  stop(): void {
    this.subscriber.onconnect = null;
  }
}
