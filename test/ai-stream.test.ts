import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { aiOf } from '../src/runtime/ai/index.ts';
import { ask, calls, eventually, expectError, makeAiWorld, sseEvents, type AiWorld } from './ai-fixtures.ts';

const ZERO = { inputTokens: 0, outputTokens: 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 };

/** The log lines that record a settled call (one per call, ever). */
const settleLines = (w: AiWorld, callId: string) => w.app.logs.filter((l) => l.msg === 'ai call' && l.callId === callId);

describe('AI chat: provider failures, retries, timeouts', () => {
  let w: AiWorld;
  beforeAll(async () => {
    w = await makeAiWorld();
  });
  afterAll(() => w.close());
  beforeEach(() => {
    w.fake.reset();
    aiOf(w.app.ctx).tuning.usageTimeoutMs = 5_000;
  });
  const lastCall = () => calls(w.app, w.canvas.id).at(-1);

  test('a transient error before the first byte is retried: 529, 500, then a stream → 200', async () => {
    w.fake.script({ kind: 'status', status: 529 }, { kind: 'status', status: 500 });
    const res = await w.chat(ask());
    expect(res.status).toBe(200);
    const events = await sseEvents(res);
    expect(events.map((e) => e.type)).toEqual(['delta', 'delta', 'delta', 'delta', 'done']);
    expect(w.fake.requests.length).toBe(3);
    expect(lastCall()).toMatchObject({ outcome: 'ok', input_tokens: 20, output_tokens: 7 });
  });

  test('still failing after two retries → 502 AI_UPSTREAM_ERROR, three provider requests, recorded once', async () => {
    w.fake.script({ kind: 'status', status: 529 }, { kind: 'status', status: 529 }, { kind: 'status', status: 529 });
    await expectError(await w.chat(ask()), 502, 'AI_UPSTREAM_ERROR');
    expect(w.fake.requests.length).toBe(3);
    const row = lastCall();
    expect(row).toMatchObject({ state: 'settled', outcome: 'upstream_error', cost_usd: 0, input_tokens: 0 });
    expect(settleLines(w, row.id)).toHaveLength(1);
  });

  test('429 and connection-level failures are transient too; a 400 from the provider is not retried', async () => {
    w.fake.script({ kind: 'status', status: 429 }, { kind: 'stream', cutAfter: 0 });
    const ok = await w.chat(ask());
    expect(ok.status).toBe(200);
    expect((await sseEvents(ok)).at(-1).type).toBe('done');
    expect(w.fake.requests.length).toBe(3);

    w.fake.reset();
    w.fake.script({ kind: 'status', status: 400, type: 'invalid_request_error' });
    const bad = await expectError(await w.chat(ask()), 502, 'AI_UPSTREAM_ERROR');
    expect(bad.message).toContain('400');
    expect(w.fake.requests.length).toBe(1);
  });

  test('an error event before any text is still "before the first byte": retried', async () => {
    w.fake.script({ kind: 'stream', errorAfter: 0 });
    const res = await w.chat(ask());
    expect(res.status).toBe(200);
    expect((await sseEvents(res)).map((e) => e.type)).toEqual(['delta', 'delta', 'delta', 'delta', 'done']);
    expect(w.fake.requests.length).toBe(2);
  });

  test('a failure after text was sent is never retried: an error event, exactly one provider request', async () => {
    w.fake.script({ kind: 'stream', errorAfter: 2 });
    const res = await w.chat(ask());
    expect(res.status).toBe(200);
    const events = await sseEvents(res);
    expect(events).toEqual([
      { type: 'delta', text: 'Hello' },
      { type: 'delta', text: ', ' },
      { type: 'error', code: 'AI_UPSTREAM_ERROR', message: expect.any(String) },
    ]);
    expect(w.fake.requests.length).toBe(1);
    // Recorded once, with the input the provider reported and the output streamed so far.
    const row = lastCall();
    expect(row).toMatchObject({ outcome: 'upstream_error', input_tokens: 20 });
    expect(row.output_tokens).toBeGreaterThanOrEqual(1);
    expect(row.cost_usd).toBeGreaterThan(0);
    expect(settleLines(w, row.id)).toHaveLength(1);
  });

  test('a connection cut mid-answer is an error event too, and not retried', async () => {
    w.fake.script({ kind: 'stream', cutAfter: 3 });
    const events = await sseEvents(await w.chat(ask()));
    expect(events.map((e) => e.type)).toEqual(['delta', 'delta', 'delta', 'error']);
    expect(events.at(-1).code).toBe('AI_UPSTREAM_ERROR');
    expect(w.fake.requests.length).toBe(1);
    expect(lastCall().outcome).toBe('upstream_error');
  });

  test('a provider stream that ends early: retried before any text, an error event after', async () => {
    w.fake.script({ kind: 'stream', endAfter: 0 });
    const first = await sseEvents(await w.chat(ask()));
    expect(first.at(-1).type).toBe('done');
    expect(w.fake.requests.length).toBe(2);
    w.fake.reset();
    w.fake.script({ kind: 'stream', endAfter: 1 });
    const events = await sseEvents(await w.chat(ask()));
    expect(events).toEqual([{ type: 'delta', text: 'Hello' }, { type: 'error', code: 'AI_UPSTREAM_ERROR', message: expect.stringContaining('early') }]);
    expect(w.fake.requests.length).toBe(1);
  });

  test('a provider that goes silent mid-answer: an error event once the idle limit passes', async () => {
    const tuning = aiOf(w.app.ctx).tuning;
    const idle = tuning.idleTimeoutMs;
    tuning.idleTimeoutMs = 100;
    try {
      w.fake.script({ kind: 'stream', hangAfter: 2 });
      const events = await sseEvents(await w.chat(ask()));
      expect(events.map((e) => e.type)).toEqual(['delta', 'delta', 'error']);
      expect(lastCall().outcome).toBe('upstream_error');
      await eventually(() => w.fake.requests[0]!.aborted);
    } finally {
      tuning.idleTimeoutMs = idle;
    }
  });

  test('usage that does not arrive within the timeout after the text ends: done with 0 tokens and 0 cost', async () => {
    aiOf(w.app.ctx).tuning.usageTimeoutMs = 100;
    w.fake.script({ kind: 'stream', stallBeforeUsage: true, usage: { input: 500, output: 500 } });
    const started = Date.now();
    const events = await sseEvents(await w.chat(ask()));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(events.map((e) => e.type)).toEqual(['delta', 'delta', 'delta', 'delta', 'done']);
    expect(events.at(-1)).toEqual({ type: 'done', usage: ZERO, cost: 0 });
    const row = lastCall();
    expect(row).toMatchObject({ outcome: 'usage_timeout', input_tokens: 0, output_tokens: 0, cost_usd: 0 });
    // The stalled provider call was let go.
    await eventually(() => w.fake.requests[0]!.aborted);
  });

  test('a stream that ends without its usage report counts the same', async () => {
    w.fake.script({ kind: 'stream', omitUsage: true });
    const events = await sseEvents(await w.chat(ask()));
    expect(events.at(-1)).toEqual({ type: 'done', usage: ZERO, cost: 0 });
    expect(lastCall().outcome).toBe('usage_timeout');
  });

  test('the default usage timeout is 5 s', () => {
    expect(aiOf(w.app.ctx).tuning.usageTimeoutMs).toBe(5_000);
  });
});

describe('AI chat: client abort (real HTTP)', () => {
  let w: AiWorld;
  beforeAll(async () => {
    w = await makeAiWorld({ listen: true });
  });
  afterAll(() => w.close());
  beforeEach(() => w.fake.reset());

  test('a client abort cancels the provider call and is recorded once, as aborted', async () => {
    w.fake.script({ kind: 'stream', hangAfter: 2, usage: { input: 40 } });
    const abort = new AbortController();
    const res = await w.chat(ask(), 'editor', w.canvas.slug, { signal: abort.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes(', ')) text += new TextDecoder().decode((await reader.read()).value);
    abort.abort();
    await eventually(() => calls(w.app, w.canvas.id).at(-1)?.state === 'settled');
    await eventually(() => w.fake.requests[0]!.aborted);
    const row = calls(w.app, w.canvas.id).at(-1);
    expect(row).toMatchObject({ outcome: 'aborted', input_tokens: 40 });
    expect(row.output_tokens).toBeGreaterThanOrEqual(1);
    await Bun.sleep(50);
    expect(settleLines(w, row.id)).toHaveLength(1);
    expect(w.fake.requests.length).toBe(1);
  });

  test('an abort while waiting for the first byte is recorded as aborted, with no retry', async () => {
    w.fake.script({ kind: 'stream', hangAfter: 0 });
    const abort = new AbortController();
    const pending = w.chat(ask(), 'editor', w.canvas.slug, { signal: abort.signal }).catch((e) => e);
    await eventually(() => w.fake.requests.length === 1);
    abort.abort();
    await pending;
    await eventually(() => calls(w.app, w.canvas.id).at(-1)?.state === 'settled');
    expect(calls(w.app, w.canvas.id).at(-1).outcome).toBe('aborted');
    await eventually(() => w.fake.requests[0]!.aborted);
    await Bun.sleep(50);
    expect(w.fake.requests.length).toBe(1);
  });

  test('at shutdown, calls still streaming are aborted and recorded before the database closes', async () => {
    w.fake.script({ kind: 'stream', hangAfter: 1 });
    const res = await w.chat(ask());
    const reader = res.body!.getReader();
    await reader.read();
    // The AI feature's shutdown hook (the server runs every hook after draining, before closing the database).
    for (const hook of w.app.ctx.onShutdown) await hook();
    expect(calls(w.app, w.canvas.id).at(-1)).toMatchObject({ state: 'settled', outcome: 'aborted' });
    await reader.cancel().catch(() => {});
  });

  test('a client that stays connected gets the whole answer, even a slow one', async () => {
    w.fake.script({ kind: 'stream', delayMs: 30 });
    const res = await w.chat(ask());
    const events = await sseEvents(res);
    expect(events.map((e) => e.type)).toEqual(['delta', 'delta', 'delta', 'delta', 'done']);
    expect(calls(w.app, w.canvas.id).at(-1).outcome).toBe('ok');
  });
});

describe('AI chat: calls left running by a previous process', () => {
  test('are settled at start as a usage timeout (0 tokens, 0 cost), so they stop holding the caps', async () => {
    const w = await makeAiWorld();
    const { recordSpend } = await import('./ai-fixtures.ts');
    const id = recordSpend(w.app, { canvasId: w.canvas.id, actorId: w.ids.editor, usd: 3, at: w.clock.now, state: 'reserved' });
    const dataDir = w.app.dataDir;
    // A second app on the same data directory (the first is left as if it had crashed).
    const { startTestApp } = await import('./harness.ts');
    const again = await startTestApp({ dataDir, env: { EASEL_AI_API_KEY: 'k' } });
    try {
      const row = again.ctx.db.query('SELECT * FROM ai_calls WHERE id = ?').get(id) as any;
      expect(row).toMatchObject({ state: 'settled', outcome: 'usage_timeout', cost_usd: 0 });
    } finally {
      again.ctx.db.close();
      await w.close();
    }
  });
});
