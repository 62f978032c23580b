// passes: embedded, cluster
// sdk/ai.ts under Bun: against the running app (real HTTP, the fake
// provider behind it) and against crafted SSE answers for the frame rules.
// The browser run (Chromium) belongs with the SDK's own browser suite.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { createAi, type AiTransport } from '../sdk/ai.ts';
import { ask, calls, expectLetGo, makeAiWorld, MODEL, type AiWorld } from './ai-fixtures.ts';
import { recordEvents } from './signals.ts';

class SdkError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function transportFor(url: (path: string) => string, cookie = ''): AiTransport & { sent: unknown[] } {
  const sent: unknown[] = [];
  return {
    sent,
    post(path, body) {
      sent.push(body);
      return fetch(url(path), { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: JSON.stringify(body) });
    },
    async errorFrom(res) {
      const b = (await res.json().catch(() => ({}))) as { code?: string; error?: string; message?: string };
      return new SdkError(b.code ?? b.error?.toUpperCase() ?? 'HTTP_ERROR', res.status, b.message ?? '');
    },
    error: (code, status, message) => new SdkError(code, status, message),
  };
}

async function rejection(p: Promise<unknown>): Promise<SdkError> {
  try {
    await p;
  } catch (e) {
    return e as SdkError;
  }
  throw new Error('expected a rejection');
}

async function collect(it: AsyncIterable<string>): Promise<{ deltas: string[]; error: SdkError | null }> {
  const deltas: string[] = [];
  try {
    for await (const d of it) deltas.push(d);
    return { deltas, error: null };
  } catch (e) {
    return { deltas, error: e as SdkError };
  }
}

const messages = [{ role: 'user' as const, content: 'Hi' }];

describe('sdk/ai.ts against the running app', () => {
  let w: AiWorld;
  let t: ReturnType<typeof transportFor>;
  beforeAll(async () => {
    w = await makeAiWorld({ listen: true });
    t = transportFor((path) => `${w.app.base}/v1/c/${w.canvas.slug}${path}`, w.cookie.editor);
  });
  afterAll(() => w.close());
  beforeEach(() => w.fake.reset());

  test('chat resolves to {text, usage, cost}', async () => {
    const ai = createAi(t);
    const result = await ai.chat(messages, { model: MODEL, system: 'Be brief.', maxTokens: 20_000 });
    expect(result).toEqual({
      text: 'Hello, world!',
      usage: { inputTokens: 20, outputTokens: 7, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 },
      cost: (20 * 2 + 7 * 10) / 1e6,
    });
    expect(t.sent.at(-1)).toEqual({ model: MODEL, messages, system: 'Be brief.', maxTokens: 20_000 });
    expect(w.fake.requests[0]!.body.max_tokens).toBe(8192);
  });

  test('stream yields the text deltas only', async () => {
    const { deltas, error } = await collect(createAi(t).stream(messages, { model: MODEL }));
    expect(error).toBeNull();
    expect(deltas).toEqual(['Hello', ', ', 'world', '!']);
    expect(t.sent.at(-1)).toEqual({ model: MODEL, messages });
  });

  test('an error event mid-stream rejects with AI_UPSTREAM_ERROR (502) after the deltas before it', async () => {
    w.fake.script({ kind: 'stream', errorAfter: 2 });
    const { deltas, error } = await collect(createAi(t).stream(messages, { model: MODEL }));
    expect(deltas).toEqual(['Hello', ', ']);
    expect([error?.code, error?.status]).toEqual(['AI_UPSTREAM_ERROR', 502]);
    w.fake.script({ kind: 'stream', errorAfter: 1 });
    const e = await rejection(createAi(t).chat(messages, { model: MODEL }));
    expect([e.code, e.status]).toEqual(['AI_UPSTREAM_ERROR', 502]);
  });

  test('refusals before the stream go through the SDK error mapping', async () => {
    const e = await rejection(createAi(t).chat(messages, { model: 'gpt-4' }));
    expect([e.code, e.status]).toEqual(['MODEL_NOT_ALLOWED', 403]);
    w.fake.script({ kind: 'status', status: 529 }, { kind: 'status', status: 529 }, { kind: 'status', status: 529 });
    const upstream = await rejection(createAi(t).chat(messages, { model: MODEL }));
    expect([upstream.code, upstream.status]).toEqual(['AI_UPSTREAM_ERROR', 502]);
  });

  test('leaving a stream early stops the provider call, recorded once as aborted', async () => {
    w.fake.script({ kind: 'stream', chunks: ['a', 'b', 'c', 'd', 'e'], delayMs: 40 });
    const finished = recordEvents(w.app, 'ai.call-finished');
    for await (const d of createAi(t).stream(messages, { model: MODEL })) {
      if (d === 'b') break;
    }
    const { callId } = await finished.waitFor(() => true);
    finished.stop();
    expect((await calls(w.app, w.canvas.id)).at(-1)).toMatchObject({ id: callId, state: 'settled', outcome: 'aborted' });
    await expectLetGo(w.fake.requests[0]);
  });
});

describe('sdk/ai.ts frame rules (crafted answers)', () => {
  let server: ReturnType<typeof Bun.serve>;
  let answer: { chunks: Array<string | Uint8Array>; status?: number } = { chunks: [] };
  const enc = new TextEncoder();
  beforeAll(() => {
    server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch() {
        const { chunks, status } = answer;
        let i = 0;
        const body = new ReadableStream<Uint8Array>({
          async pull(c) {
            if (i >= chunks.length) return c.close();
            const chunk = chunks[i++]!;
            c.enqueue(typeof chunk === 'string' ? enc.encode(chunk) : chunk);
            await Bun.sleep(2);
          },
        });
        return new Response(body, {
          status: status ?? 200,
          headers: { 'content-type': status ? 'application/json' : 'text/event-stream' },
        });
      },
    });
  });
  afterAll(() => server.stop(true));
  const ai = () => createAi(transportFor((path) => `http://127.0.0.1:${server.port}${path}`));
  const done =
    'data: {"type":"done","usage":{"inputTokens":1,"outputTokens":2,"cacheCreationInputTokens":0,"cacheReadInputTokens":0},"cost":0.5}\n\n';

  test('frames split anywhere (mid-line, mid-character), CRLF, comments and unknown events are fine', async () => {
    const whole =
      ': keep-alive\r\n\r\ndata: {"type":"delta","text":"héllo "}\r\n\r\nevent: x\ndata: {"type":"ping"}\n\ndata: {"type":"delta","text":"wörld"}\n\n' +
      done;
    const bytes = enc.encode(whole);
    // Every 7 bytes: characters (é, ö are two bytes), lines and CRLF pairs break across chunks.
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i += 7) chunks.push(bytes.slice(i, i + 7));
    answer = { chunks };
    expect(await ai().chat(messages, { model: MODEL })).toEqual({
      text: 'héllo wörld',
      usage: { inputTokens: 1, outputTokens: 2, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 },
      cost: 0.5,
    });
    expect(chunks.length).toBeGreaterThan(5);
  });

  test('a CRLF split between chunks is one line ending', async () => {
    answer = { chunks: ['data: {"type":"delta","text":"a"}\r', '\nid: 1\r', '\n\r', '\n', done] };
    expect((await ai().chat(messages, { model: MODEL })).text).toBe('a');
  });

  test('a last event without its blank line still counts', async () => {
    answer = { chunks: ['data: {"type":"delta","text":"x"}\n\n', done.trimEnd()] };
    expect((await ai().chat(messages, { model: MODEL })).text).toBe('x');
  });

  test('ending with neither done nor error: AI_STREAM_TRUNCATED (502)', async () => {
    answer = { chunks: ['data: {"type":"delta","text":"x"}\n\n'] };
    const e = await rejection(ai().chat(messages, { model: MODEL }));
    expect([e.code, e.status]).toEqual(['AI_STREAM_TRUNCATED', 502]);
    answer = { chunks: [] };
    const { deltas, error } = await collect(ai().stream(messages, { model: MODEL }));
    expect(deltas).toEqual([]);
    expect(error?.code).toBe('AI_STREAM_TRUNCATED');
  });

  test('an unparseable or misshapen frame: MALFORMED_FRAME (502)', async () => {
    for (const bad of [
      'data: {"type":"delta","text":\n\n',
      'data: not json\n\n',
      'data: {"type":"delta","text":5}\n\n',
      'data: [1,2]\n\n',
      'data: {"type":"done","usage":{}}\n\n',
      'data: "text"\n\n',
    ]) {
      answer = { chunks: ['data: {"type":"delta","text":"ok"}\n\n', bad, done] };
      const { deltas, error } = await collect(ai().stream(messages, { model: MODEL }));
      expect(deltas).toEqual(['ok']);
      expect([error?.code, error?.status]).toEqual(['MALFORMED_FRAME', 502]);
    }
  });

  test('an error event carries its code', async () => {
    answer = { chunks: ['data: {"type":"error","code":"AI_UPSTREAM_ERROR","message":"overloaded"}\n\n'] };
    const e = await rejection(ai().chat(messages, { model: MODEL }));
    expect([e.code, e.status, e.message]).toEqual(['AI_UPSTREAM_ERROR', 502, 'overloaded']);
  });

  test('a non-2xx answer is handed to the SDK error mapping', async () => {
    answer = { status: 429, chunks: ['{"code":"GUEST_AI_CAP","message":"cap","scope":"guest"}'] };
    const e = await rejection(ai().chat(messages, { model: MODEL }));
    expect([e.code, e.status]).toEqual(['GUEST_AI_CAP', 429]);
  });
});

describe('sdk/ai.ts request shape', () => {
  test('sends model, messages, system and maxTokens; any other option is refused as the API refuses it, before anything is sent', async () => {
    let sent: unknown;
    const ai = createAi({
      post: async (_path, body) => {
        sent = body;
        return new Response('data: {"type":"done","usage":{},"cost":0}\n\n');
      },
      errorFrom: async () => new Error('no'),
      error: (code, status, message) => new SdkError(code, status, message),
    });
    // A temperature the API does not take did nothing, silently: it is refused in the API's own words.
    const refused = await ai.chat(ask('x').messages as any, { model: MODEL, temperature: 1 } as any).catch((e: unknown) => e);
    expect(refused).toMatchObject({
      code: 'INVALID_BODY',
      status: 400,
      message: 'temperature: not an option here (the options are model, system and maxTokens)',
    });
    expect(sent).toBeUndefined();
    await ai.chat(ask('x').messages as any, { model: MODEL, system: 's', maxTokens: 5 });
    expect(sent).toEqual({ model: MODEL, messages: [{ role: 'user', content: 'x' }], system: 's', maxTokens: 5 });
  });
});
