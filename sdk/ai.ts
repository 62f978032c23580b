// easel.ai: chat(messages, options) → {text, usage, cost}, and
// stream(messages, options) → an async iterable of text deltas.
// No dependencies: the SDK's entry hands in how to send a request and how to
// build its error classes (see AiTransport).
import type { AiMessage, AiUsage, AiChatResult } from './wire.ts';
export type { AiMessage, AiUsage, AiChatResult } from './wire.ts';

/** The only options there are: no temperature, tools, images, stop sequences or abort. */
export interface AiOptions {
  model: string;
  system?: string;
  maxTokens?: number;
}

export interface AiApi {
  chat(messages: AiMessage[], options: AiOptions): Promise<AiChatResult>;
  /** Text deltas; no usage or cost. */
  stream(messages: AiMessage[], options: AiOptions): AsyncIterable<string>;
}

/** What the SDK entry provides. */
export interface AiTransport {
  /**
   * POSTs the JSON body to a path under the canvas's runtime API (`/ai/chat`)
   * with credentials included. Rejects with the SDK's network error.
   */
  post(path: string, body: unknown, signal?: AbortSignal): Promise<Response>;
  /** The SDK error for a non-2xx answer (QuotaExceededError for QUOTA_EXCEEDED, GUEST_AI_CAP, BODY_TOO_LARGE, …). */
  errorFrom(response: Response): Promise<Error>;
  /** An SDK error (base class) with this code and status: the stream's own failures. */
  error(code: string, status: number, message: string): Error;
}

type StreamEvent =
  { type: 'delta'; text: string } | { type: 'done'; usage: AiUsage; cost: number } | { type: 'error'; code: string; message: string };

export function createAi(transport: AiTransport): AiApi {
  /** The server's events, ending with `done`; an `error` event, a bad frame or a cut stream throw. */
  async function* events(messages: AiMessage[], options: AiOptions): AsyncGenerator<StreamEvent, void, void> {
    const stop = new AbortController();
    const res = await transport.post('/ai/chat', requestBody(messages, options, transport), stop.signal);
    if (!res.ok) throw await transport.errorFrom(res);
    if (!res.body) throw transport.error('AI_STREAM_TRUNCATED', 502, 'the AI stream ended before it was done');
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch {
          throw transport.error('AI_STREAM_TRUNCATED', 502, 'the AI stream was cut off');
        }
        buffer += chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
        // A CR at the very end may be the first half of a CRLF: keep it until the next chunk shows.
        const heldCr = !chunk.done && buffer.endsWith('\r');
        if (heldCr) buffer = buffer.slice(0, -1);
        buffer = buffer.replace(/\r\n?/g, '\n');
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = parseBlock(block, transport);
          if (!event) continue;
          if (event.type === 'error')
            throw transport.error(event.code || 'AI_UPSTREAM_ERROR', 502, event.message || 'the AI provider failed');
          yield event;
          if (event.type === 'done') return;
        }
        if (heldCr) buffer += '\r';
        if (chunk.done) {
          // A last event without its blank line still counts.
          const event = buffer.trim() ? parseBlock(buffer, transport) : null;
          if (event?.type === 'error')
            throw transport.error(event.code || 'AI_UPSTREAM_ERROR', 502, event.message || 'the AI provider failed');
          if (event?.type === 'done') {
            yield event;
            return;
          }
          if (event) yield event;
          throw transport.error('AI_STREAM_TRUNCATED', 502, 'the AI stream ended before it was done');
        }
      }
    } finally {
      // Stopping early (a `break` in the caller's loop) tells the server to stop the provider call:
      // cancelling the body alone may leave the browser's connection open a while; aborting ends it.
      // After `done` there is nothing left to read and both are no-ops.
      reader.cancel().catch(() => {});
      stop.abort();
    }
  }

  return {
    async chat(messages, options) {
      let text = '';
      for await (const event of events(messages, options)) {
        if (event.type === 'delta') text += event.text;
        else if (event.type === 'done') return { text, usage: event.usage, cost: event.cost };
      }
      throw transport.error('AI_STREAM_TRUNCATED', 502, 'the AI stream ended before it was done');
    },
    async *stream(messages, options) {
      for await (const event of events(messages, options)) {
        if (event.type === 'delta') yield event.text;
      }
    },
  };
}

const OPTIONS = new Set(['model', 'system', 'maxTokens']);

function requestBody(messages: AiMessage[], options: AiOptions, transport: AiTransport): Record<string, unknown> {
  // An option the API does not take is refused as the server would refuse it, not dropped unseen (a temperature that did nothing).
  for (const key of Object.keys(options ?? {}))
    if (!OPTIONS.has(key))
      throw transport.error('INVALID_BODY', 400, `${key}: not an option here (the options are model, system and maxTokens)`);
  const body: Record<string, unknown> = { model: options?.model, messages };
  if (options?.system !== undefined) body.system = options.system;
  if (options?.maxTokens !== undefined) body.maxTokens = options.maxTokens;
  return body;
}

/**
 * One SSE event block: its `data:` lines joined. Comments and other fields
 * are skipped; a block with no data is no event. Unknown event types are
 * ignored (a newer server may add some); known ones must have their shape.
 */
function parseBlock(block: string, transport: AiTransport): StreamEvent | null {
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
  }
  if (data.length === 0) return null;
  let value: unknown;
  try {
    value = JSON.parse(data.join('\n'));
  } catch {
    throw transport.error('MALFORMED_FRAME', 502, 'the AI stream sent a frame that is not JSON');
  }
  const malformed = () => transport.error('MALFORMED_FRAME', 502, 'the AI stream sent a frame of the wrong shape');
  if (typeof value !== 'object' || value === null) throw malformed();
  const e = value as Record<string, unknown>;
  switch (e.type) {
    case 'delta':
      if (typeof e.text !== 'string') throw malformed();
      return { type: 'delta', text: e.text };
    case 'done':
      if (typeof e.usage !== 'object' || e.usage === null || typeof e.cost !== 'number') throw malformed();
      return { type: 'done', usage: e.usage as AiUsage, cost: e.cost };
    case 'error':
      return {
        type: 'error',
        code: typeof e.code === 'string' ? e.code : 'AI_UPSTREAM_ERROR',
        message: typeof e.message === 'string' ? e.message : '',
      };
    default:
      if (typeof e.type !== 'string') throw malformed();
      return null;
  }
}
