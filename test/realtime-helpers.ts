// A frame-level WebSocket client for realtime tests and a raw upgrade
// request; the people and canvases come from the World (test/world.ts).
import type { TestApp } from './harness.ts';

export type Frame = Record<string, any>;
export interface Closed {
  code: number;
  reason: string;
}

/** A frame type the server does not know: it answers UNKNOWN_FRAME and changes nothing (no state, no rate limit). */
const SYNC_MARKER = 'test-sync-marker';
const isSyncReply = (f: Frame) => f.type === 'error' && f.code === 'UNKNOWN_FRAME';

/** One socket: frames queue up in arrival order; `next` takes them one by one. */
export class Client {
  readonly frames: Frame[] = [];
  private waiters: Array<() => void> = [];
  closeInfo: Closed | null = null;
  readonly closed: Promise<Closed>;
  readonly opened: Promise<boolean>;

  constructor(readonly ws: WebSocket) {
    this.opened = new Promise((resolve) => {
      ws.addEventListener('open', () => resolve(true));
      ws.addEventListener('close', () => resolve(false));
    });
    this.closed = new Promise((resolve) => {
      ws.addEventListener('close', (e) => {
        this.closeInfo = { code: e.code, reason: e.reason };
        resolve(this.closeInfo);
        this.wake();
      });
    });
    ws.addEventListener('message', (e) => {
      this.frames.push(JSON.parse(String(e.data)));
      this.wake();
    });
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  send(frame: unknown): void {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** The next frame (optionally the next one matching `pred`, dropping the ones before it). */
  async next(pred: (f: Frame) => boolean = () => true, timeoutMs = 3000): Promise<Frame> {
    const i = await this.arrived(pred, timeoutMs);
    return this.frames.splice(0, i + 1).at(-1)!;
  }

  /** Every frame up to and including the next one matching `pred`, in arrival order (taken off the queue). */
  async until(pred: (f: Frame) => boolean, timeoutMs = 3000): Promise<Frame[]> {
    const i = await this.arrived(pred, timeoutMs);
    return this.frames.splice(0, i + 1);
  }

  /** Waits until a frame matching `pred` is queued; its index. The timeout only fails a test that would hang. */
  private async arrived(pred: (f: Frame) => boolean, timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.frames.findIndex(pred);
      if (i >= 0) return i;
      if (this.closeInfo)
        throw new Error(`socket closed (${this.closeInfo.code}) while waiting for a frame; queued: ${JSON.stringify(this.frames)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching frame within ${timeoutMs} ms; queued: ${JSON.stringify(this.frames)}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Sends, then returns the next frame. */
  async ask(frame: unknown): Promise<Frame> {
    this.send(frame);
    return this.next();
  }

  /**
   * A round trip on this socket: sends a frame of an unknown type and waits
   * for the UNKNOWN_FRAME error that answers it. The server handles a socket's
   * frames in order and Bun keeps a socket's frames in order, so whatever the
   * server had sent this socket before it read the marker has arrived by
   * then: those frames are returned (and taken off the queue). After another
   * socket's operation was answered, `sync()` on this one shows everything
   * that operation sent here: an empty result proves nothing came.
   */
  async sync(): Promise<Frame[]> {
    this.send({ type: SYNC_MARKER });
    const i = await this.arrived(isSyncReply, 3000);
    return this.frames.splice(0, i + 1).slice(0, -1);
  }

  async subscribe(channel: string): Promise<Frame[]> {
    this.send({ type: 'subscribe', channel });
    const subscribed = await this.next((f) => f.type === 'subscribed' || f.type === 'error');
    return [subscribed];
  }

  close(): Promise<Closed> {
    if (!this.closeInfo) this.ws.close(1000);
    return this.closed;
  }
}

export function wsUrl(app: TestApp, slug: string): string {
  return `${app.base.replace(/^http/, 'ws')}/v1/c/${encodeURIComponent(slug)}/realtime`;
}

/** Opens a socket with a cookie (and extra headers); resolves once it opened or failed. */
export async function connect(app: TestApp, slug: string, cookie: string, headers: Record<string, string> = {}): Promise<Client> {
  const ws = new WebSocket(wsUrl(app, slug), { headers: { ...(cookie ? { cookie } : {}), ...headers } } as unknown as string[]);
  const client = new Client(ws);
  await client.opened;
  return client;
}

export interface HandshakeAnswer {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** A raw HTTP upgrade request (a WebSocket client never shows the refusal's status and body). */
export async function handshake(
  app: TestApp,
  slug: string,
  headers: Record<string, string> = {},
  upgrade = true,
): Promise<HandshakeAnswer> {
  const url = new URL(app.base);
  const lines = [`GET /v1/c/${encodeURIComponent(slug)}/realtime HTTP/1.1`, `Host: ${url.host}`];
  if (upgrade)
    lines.push('Connection: Upgrade', 'Upgrade: websocket', 'Sec-WebSocket-Version: 13', `Sec-WebSocket-Key: ${btoa('0123456789abcdef')}`);
  else lines.push('Connection: close');
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  const raw = await new Promise<string>((resolve, reject) => {
    let text = '';
    const done = () => resolve(text);
    Bun.connect({
      hostname: url.hostname,
      port: Number(url.port),
      socket: {
        open(s) {
          s.write(lines.join('\r\n') + '\r\n\r\n');
        },
        data(s, chunk) {
          text += chunk.toString();
          // An accepted upgrade stays open: the head is all there is to read.
          const end = text.indexOf('\r\n\r\n');
          if (end < 0) return;
          const head = text.slice(0, end);
          const length = /content-length:\s*(\d+)/i.exec(head);
          if (text.startsWith('HTTP/1.1 101') || (length && text.length >= end + 4 + Number(length[1]))) {
            s.end();
            done();
          }
        },
        close: done,
        error: (_s, err) => reject(err),
      },
    }).catch(reject);
  });
  const end = raw.indexOf('\r\n\r\n');
  const [statusLine, ...headerLines] = raw.slice(0, end).split('\r\n');
  const answerHeaders: Record<string, string> = {};
  for (const line of headerLines) {
    const i = line.indexOf(':');
    answerHeaders[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const text = raw.slice(end + 4);
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: Number(statusLine!.split(' ')[1]), headers: answerHeaders, body };
}
