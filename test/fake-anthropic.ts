import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A local stand-in for the Anthropic Messages API (POST /v1/messages with
// stream: true) that speaks the real SSE protocol, so the real
// @anthropic-ai/sdk runs against it unchanged. Each request takes the next
// scripted behavior (or the default stream) and is recorded: the parsed body,
// which credential header it carried, and whether the caller went away.

export interface FakeUsage {
  /** The provider's input_tokens: the uncached remainder, as the real API reports it. */
  input: number;
  output: number;
  cacheCreation: number;
  cacheRead: number;
}

export type FakeScript =
  /** An HTTP error before any stream (e.g. 529 overloaded, 500, 400). */
  | { kind: 'status'; status: number; type?: string; headers?: Record<string, string> }
  /** Accept the request and never answer, not even the headers, until the caller goes away. */
  | { kind: 'silent' }
  | {
      kind: 'stream';
      chunks?: string[];
      usage?: Partial<FakeUsage>;
      /** Milliseconds between chunks. */
      delayMs?: number;
      /** After this many chunks: an `event: error` (overloaded) instead of the rest. */
      errorAfter?: number;
      /** After this many chunks: cut the connection without a word. */
      cutAfter?: number;
      /** After this many chunks: end the response cleanly, the message unfinished. */
      endAfter?: number;
      /** After this many chunks: stop sending and wait until the caller goes away. */
      hangAfter?: number;
      /** After content_block_stop: send nothing more and wait (the usage never comes). */
      stallBeforeUsage?: boolean;
      /** Leave out message_delta's usage (message_stop still comes). */
      omitUsage?: boolean;
      /** After message_delta (with its usage): send nothing more and wait (message_stop never comes). */
      stallBeforeStop?: boolean;
      /** While hanging or stalled (hangAfter, stallBeforeUsage, stallBeforeStop): an event every this many ms until the caller goes away. */
      keepAliveMs?: number;
      /** The keep-alive event's name (and data type): `ping` by default; another name stands for an event type the API may add. */
      keepAliveEvent?: string;
    };

export interface RecordedRequest {
  body: any;
  apiKey: string | null;
  bearer: string | null;
  headers: Record<string, string>;
  /** True once the caller disconnected before the fake finished. */
  aborted: boolean;
  /** Resolves when the response is over (finished or abandoned). */
  finished: Promise<void>;
}

export interface FakeAnthropic {
  url: string;
  requests: RecordedRequest[];
  /** Queues behaviors for the next requests, in order. */
  script(...scripts: FakeScript[]): void;
  /** Forgets recorded requests and queued scripts. */
  reset(): void;
  /** The next request to arrive from now on (recorded, its script under way). */
  nextRequest(): Promise<RecordedRequest>;
  close(): Promise<void>;
}

export const DEFAULT_CHUNKS = ['Hello', ', ', 'world', '!'];
export const DEFAULT_USAGE: FakeUsage = { input: 20, output: 7, cacheCreation: 0, cacheRead: 0 };

const frame = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * node:http rather than Bun.serve: it can cut a connection mid-body
 * (res.destroy()) the way a failing network does, without Bun reporting an
 * errored response stream.
 */
export async function startFakeAnthropic(): Promise<FakeAnthropic> {
  const queue: FakeScript[] = [];
  const requests: RecordedRequest[] = [];
  const arrivals: Array<(rec: RecordedRequest) => void> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const header = (name: string) => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : null);
      const auth = header('authorization');
      let finish!: () => void;
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {}
      const rec: RecordedRequest = {
        body: parsed,
        apiKey: header('x-api-key'),
        bearer: auth?.startsWith('Bearer ') ? auth.slice(7) : null,
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        aborted: false,
        finished: new Promise<void>((r) => (finish = r)),
      };
      requests.push(rec);
      for (const arrived of arrivals.splice(0)) arrived(rec);
      res.on('close', () => {
        if (!res.writableFinished) rec.aborted = true;
        finish();
      });
      const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(body));
      };
      if (req.method !== 'POST' || req.url !== '/v1/messages')
        return json(404, { type: 'error', error: { type: 'not_found_error', message: 'not found' } });
      if (!rec.apiKey && !rec.bearer) return json(401, { type: 'error', error: { type: 'authentication_error', message: 'missing key' } });
      const script = queue.shift() ?? { kind: 'stream' };
      if (script.kind === 'status') {
        const type = script.type ?? (script.status === 529 ? 'overloaded_error' : 'api_error');
        return json(script.status, { type: 'error', error: { type, message: `fake ${script.status}` } }, script.headers);
      }
      if (script.kind === 'silent') return;
      void stream(res, rec, script);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (...scripts) => queue.push(...scripts),
    nextRequest: () => new Promise<RecordedRequest>((resolve) => arrivals.push(resolve)),
    reset() {
      queue.length = 0;
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function stream(res: ServerResponse, rec: RecordedRequest, script: Extract<FakeScript, { kind: 'stream' }>): Promise<void> {
  const usage = { ...DEFAULT_USAGE, ...script.usage };
  const chunks = script.chunks ?? DEFAULT_CHUNKS;
  const gone = () => res.destroyed || res.writableEnded;
  const send = (event: string, data: unknown) => {
    if (!gone()) res.write(frame(event, data));
  };
  const untilGone = async () => {
    if (script.keepAliveMs) {
      const name = script.keepAliveEvent ?? 'ping';
      while (!gone()) {
        send(name, { type: name });
        await sleep(script.keepAliveMs);
      }
    }
    await new Promise<void>((r) => (gone() ? r() : res.on('close', () => r())));
  };
  /** Lets what was written reach the client before the next step (a cut must not swallow it). */
  const flush = () => sleep(15);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': 'req_fake' });
  send('message_start', {
    type: 'message_start',
    message: {
      id: `msg_fake${Math.random().toString(36).slice(2, 10)}`,
      type: 'message',
      role: 'assistant',
      model: rec.body?.model ?? 'unknown',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: usage.input,
        cache_creation_input_tokens: usage.cacheCreation,
        cache_read_input_tokens: usage.cacheRead,
        output_tokens: 1,
      },
    },
  });
  send('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
  send('ping', { type: 'ping' });
  for (let i = 0; i <= chunks.length; i++) {
    if (script.errorAfter === i) {
      send('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
      return void res.end();
    }
    if (script.cutAfter === i) {
      await flush();
      return void res.destroy();
    }
    if (script.endAfter === i) return void res.end();
    if (script.hangAfter === i) return untilGone();
    if (i === chunks.length) break;
    if (script.delayMs) await sleep(script.delayMs);
    if (gone()) return;
    send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: chunks[i] } });
  }
  send('content_block_stop', { type: 'content_block_stop', index: 0 });
  if (script.stallBeforeUsage) return untilGone();
  send('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: 'end_turn', stop_sequence: null },
    ...(script.omitUsage ? {} : { usage: { output_tokens: usage.output } }),
  });
  if (script.stallBeforeStop) return untilGone();
  send('message_stop', { type: 'message_stop' });
  if (!gone()) res.end();
}
