// passes: embedded — the AI stream's framing on one node; ai-chat, ai-caps and ai-usage run its paths on the cluster
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { DEFAULT_TUNING } from '../src/runtime/ai/chat-run.ts';
import { ask, calls, expectError, expectLetGo, makeAiWorld, useAiWorld, sseEvents, type AiWorld } from './ai-fixtures.ts';
import { ON_CLUSTER } from './harness.ts';
import { recordEvents } from './signals.ts';

const ZERO = { inputTokens: 0, outputTokens: 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 };

/** The log lines that record a settled call (one per call, ever). */
const settleLines = (w: AiWorld, callId: string) => w.app.logs.filter((l) => l.msg === 'ai call' && l.callId === callId);

describe('AI chat: provider failures, retries, timeouts', () => {
  let w: AiWorld;
  // Every test starts from the default timings (the fixtures shorten the retry back-off).
  useAiWorld(
    (world) => (w = world),
    (w) => Object.assign(w.app.features.ai.tuning, { ...DEFAULT_TUNING, retryDelaysMs: [5, 5] }),
  );
  const lastCall = async () => (await calls(w.app, w.canvas.id)).at(-1);
  const tune = (t: Partial<typeof DEFAULT_TUNING>) => Object.assign(w.app.features.ai.tuning, t);

  test('a transient error before the first byte is retried: 529, 500, then a stream → 200', async () => {
    w.fake.script({ kind: 'status', status: 529 }, { kind: 'status', status: 500 });
    const res = await w.chat(ask());
    expect(res.status).toBe(200);
    const events = await sseEvents(res);
    expect(events.map((e) => e.type)).toEqual(['delta', 'delta', 'delta', 'delta', 'done']);
    expect(w.fake.requests.length).toBe(3);
    expect(await lastCall()).toMatchObject({ outcome: 'ok', input_tokens: 20, output_tokens: 7 });
  });

  test('still failing after two retries → 502 AI_UPSTREAM_ERROR, three provider requests, recorded once', async () => {
    w.fake.script({ kind: 'status', status: 529 }, { kind: 'status', status: 529 }, { kind: 'status', status: 529 });
    await expectError(await w.chat(ask()), 502, 'AI_UPSTREAM_ERROR');
    expect(w.fake.requests.length).toBe(3);
    const row = await lastCall();
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
    const row = await lastCall();
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
    expect((await lastCall()).outcome).toBe('upstream_error');
  });

  test('a provider stream that ends early: retried before any text, an error event after', async () => {
    w.fake.script({ kind: 'stream', endAfter: 0 });
    const first = await sseEvents(await w.chat(ask()));
    expect(first.at(-1).type).toBe('done');
    expect(w.fake.requests.length).toBe(2);
    w.fake.reset();
    w.fake.script({ kind: 'stream', endAfter: 1 });
    const events = await sseEvents(await w.chat(ask()));
    expect(events).toEqual([
      { type: 'delta', text: 'Hello' },
      { type: 'error', code: 'AI_UPSTREAM_ERROR', message: expect.stringContaining('early') },
    ]);
    expect(w.fake.requests.length).toBe(1);
  });

  test('a provider that goes silent mid-answer: an error event once the idle limit passes', async () => {
    const tuning = w.app.features.ai.tuning;
    const idle = tuning.idleTimeoutMs;
    tuning.idleTimeoutMs = 100;
    try {
      w.fake.script({ kind: 'stream', hangAfter: 2 });
      const events = await sseEvents(await w.chat(ask()));
      expect(events.map((e) => e.type)).toEqual(['delta', 'delta', 'error']);
      expect((await lastCall()).outcome).toBe('upstream_error');
      await expectLetGo(w.fake.requests[0]);
    } finally {
      tuning.idleTimeoutMs = idle;
    }
  });

  test('usage that does not arrive within the timeout after the text ends: done with 0 tokens and 0 cost', async () => {
    w.app.features.ai.tuning.usageTimeoutMs = 100;
    w.fake.script({ kind: 'stream', stallBeforeUsage: true, usage: { input: 500, output: 500 } });
    const events = await sseEvents(await w.chat(ask()));
    expect(events.map((e) => e.type)).toEqual(['delta', 'delta', 'delta', 'delta', 'done']);
    expect(events.at(-1)).toEqual({ type: 'done', usage: ZERO, cost: 0 });
    const row = await lastCall();
    expect(row).toMatchObject({ outcome: 'usage_timeout', input_tokens: 0, output_tokens: 0, cost_usd: 0 });
    // The stalled provider call was let go.
    await expectLetGo(w.fake.requests[0]);
  });

  test('a stream that ends without its usage report counts the same', async () => {
    w.fake.script({ kind: 'stream', omitUsage: true });
    const events = await sseEvents(await w.chat(ask()));
    expect(events.at(-1)).toEqual({ type: 'done', usage: ZERO, cost: 0 });
    expect((await lastCall()).outcome).toBe('usage_timeout');
  });

  // The SDK drops `ping` itself; an event type it does not know (the API may add some) reaches the runner.
  test.each([
    ['pings', 'ping'],
    ['events of an unknown type', 'keepalive'],
  ])(
    '%s after the text ends do not hold the call open: done with 0 tokens within the usage timeout, recorded once',
    async (_name, event) => {
      tune({ usageTimeoutMs: 300 });
      w.fake.script({ kind: 'stream', stallBeforeUsage: true, keepAliveMs: 50, keepAliveEvent: event, usage: { input: 500, output: 500 } });
      const finished = recordEvents(w.app, 'ai.call-finished');
      const started = Date.now();
      const events = await sseEvents(await w.chat(ask()));
      const took = Date.now() - started;
      expect(events.map((e) => e.type)).toEqual(['delta', 'delta', 'delta', 'delta', 'done']);
      expect(events.at(-1)).toEqual({ type: 'done', usage: ZERO, cost: 0 });
      // The pings did not end the wait early (a deadline that pings pushed back would never end: the test would time out).
      expect(took).toBeGreaterThanOrEqual(250);
      const row = await lastCall();
      expect(row).toMatchObject({
        state: 'settled',
        outcome: 'usage_timeout',
        input_tokens: 0,
        output_tokens: 0,
        cost_usd: 0,
        reserved_usd: expect.any(Number),
      });
      await expectLetGo(w.fake.requests[0]);
      // Once the run is over nothing can settle it again.
      await finished.waitFor((e) => e.callId === row.id);
      finished.stop();
      expect(settleLines(w, row.id)).toHaveLength(1);
    },
    10_000,
  );

  test('events of an unknown type mid-answer do not reset the idle timer: an error event', async () => {
    tune({ idleTimeoutMs: 300 });
    w.fake.script({ kind: 'stream', hangAfter: 2, keepAliveMs: 50, keepAliveEvent: 'keepalive' });
    const events = await sseEvents(await w.chat(ask()));
    expect(events.map((e) => e.type)).toEqual(['delta', 'delta', 'error']);
    expect((await lastCall()).outcome).toBe('upstream_error');
    await expectLetGo(w.fake.requests[0]);
  }, 10_000);

  test.each([
    ['ends there', false],
    ['sends only pings', true],
  ])(
    'usage arrived but the message never ends (the provider %s): done with the usage within the usage timeout, recorded ok',
    async (_name, pings) => {
      tune({ usageTimeoutMs: 300, idleTimeoutMs: 2_000 });
      w.fake.script({ kind: 'stream', stallBeforeStop: true, usage: { input: 30, output: 9 }, ...(pings ? { keepAliveMs: 50 } : {}) });
      const events = await sseEvents(await w.chat(ask()));
      expect(events.map((e) => e.type)).toEqual(['delta', 'delta', 'delta', 'delta', 'done']);
      const usage = { inputTokens: 30, outputTokens: 9, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 };
      expect(events.at(-1)).toEqual({ type: 'done', usage, cost: expect.any(Number) });
      expect(events.at(-1).cost).toBeGreaterThan(0);
      const row = await lastCall();
      expect(row).toMatchObject({ state: 'settled', outcome: 'ok', input_tokens: 30, output_tokens: 9 });
      expect(row.cost_usd).toBeCloseTo(events.at(-1).cost, 12);
      await expectLetGo(w.fake.requests[0]);
      expect(settleLines(w, row.id)).toHaveLength(1);
    },
    10_000,
  );

  test.each([
    ['answers with headers and pings but no text', { kind: 'stream', hangAfter: 0, keepAliveMs: 30 } as const],
    [
      'answers with headers and unknown events but no text',
      { kind: 'stream', hangAfter: 0, keepAliveMs: 30, keepAliveEvent: 'keepalive' } as const,
    ],
    ['never answers at all', { kind: 'silent' } as const],
  ])(
    'a provider that stalls on every attempt (%s): 502 AI_UPSTREAM_ERROR after three attempts, within the pre-stream budget',
    async (_name, script) => {
      tune({ firstDeltaTimeoutMs: 150, preStreamBudgetMs: 1_500, idleTimeoutMs: 3_000 });
      w.fake.script(script, script, script);
      const started = Date.now();
      const b = await expectError(await w.chat(ask()), 502, 'AI_UPSTREAM_ERROR');
      const took = Date.now() - started;
      expect(b.message).toContain('in time');
      expect(took).toBeGreaterThanOrEqual(3 * 150);
      expect(w.fake.requests.length).toBe(3);
      for (const r of w.fake.requests) await expectLetGo(r);
      const row = await lastCall();
      expect(row).toMatchObject({ state: 'settled', outcome: 'upstream_error' });
      expect(settleLines(w, row.id)).toHaveLength(1);
    },
    15_000,
  );

  test('the pre-stream budget bounds the attempts and the waits between them: 502 when it runs out', async () => {
    tune({ firstDeltaTimeoutMs: 300, preStreamBudgetMs: 500, idleTimeoutMs: 3_000 });
    const stall = { kind: 'stream', hangAfter: 0, keepAliveMs: 30 } as const;
    w.fake.script(stall, stall, stall);
    const started = Date.now();
    await expectError(await w.chat(ask()), 502, 'AI_UPSTREAM_ERROR');
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(450);
    // 300 ms, then the rest of the budget; no third attempt that could not finish in time.
    expect(w.fake.requests.length).toBe(2);
    // A provider-requested wait past the budget is not waited for either.
    w.fake.reset();
    tune({ maxRetryDelayMs: 5_000 });
    w.fake.script({ kind: 'status', status: 529, headers: { 'retry-after': '2' } });
    await expectError(await w.chat(ask()), 502, 'AI_UPSTREAM_ERROR');
    expect(w.fake.requests.length).toBe(1);
    // A wait is always announced ("retrying") before it starts: none was.
    const last = await lastCall();
    const said = w.app.logs.filter((l) => l.callId === last.id).map((l) => l.msg);
    expect(said).toContain('ai provider failed');
    expect(said).not.toContain('ai provider failed, retrying');
  }, 15_000);

  test('a slow first delta inside the per-attempt wait is not a failure', async () => {
    tune({ firstDeltaTimeoutMs: 400, preStreamBudgetMs: 1_000 });
    w.fake.script({ kind: 'stream', delayMs: 150 });
    const events = await sseEvents(await w.chat(ask()));
    expect(events.map((e) => e.type)).toEqual(['delta', 'delta', 'delta', 'delta', 'done']);
    expect(w.fake.requests.length).toBe(1);
  });

  test('the default pre-stream timings fit well inside the server socket idle timeout (60 s)', () => {
    const t = w.app.features.ai.tuning;
    expect(t.firstDeltaTimeoutMs).toBe(15_000);
    expect(t.preStreamBudgetMs).toBeLessThanOrEqual(50_000);
    expect(t.preStreamBudgetMs).toBeGreaterThanOrEqual(2 * t.firstDeltaTimeoutMs);
    expect(t.idleTimeoutMs).toBeLessThan(60_000);
  });

  test('the default usage timeout is 5 s', () => {
    expect(w.app.features.ai.tuning.usageTimeoutMs).toBe(5_000);
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
    const finished = recordEvents(w.app, 'ai.call-finished');
    const res = await w.chat(ask(), 'editor', w.canvas.slug, { signal: abort.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes(', ')) text += new TextDecoder().decode((await reader.read()).value);
    abort.abort();
    const { callId } = await finished.waitFor(() => true);
    finished.stop();
    await expectLetGo(w.fake.requests[0]);
    const row = (await calls(w.app, w.canvas.id)).at(-1);
    expect(row.id).toBe(callId);
    expect(row).toMatchObject({ state: 'settled', outcome: 'aborted', input_tokens: 40 });
    expect(row.output_tokens).toBeGreaterThanOrEqual(1);
    expect(settleLines(w, row.id)).toHaveLength(1);
    expect(w.fake.requests.length).toBe(1);
  });

  test('an abort while waiting for the first byte is recorded as aborted, with no retry', async () => {
    w.fake.script({ kind: 'stream', hangAfter: 0 });
    const abort = new AbortController();
    const arrived = w.fake.nextRequest();
    const finished = recordEvents(w.app, 'ai.call-finished');
    const pending = w.chat(ask(), 'editor', w.canvas.slug, { signal: abort.signal }).catch((e) => e);
    await arrived;
    abort.abort();
    await pending;
    // Once the run is over, no retry can follow.
    const { callId } = await finished.waitFor(() => true);
    finished.stop();
    expect((await calls(w.app, w.canvas.id)).at(-1)).toMatchObject({ id: callId, state: 'settled', outcome: 'aborted' });
    await expectLetGo(w.fake.requests[0]);
    expect(w.fake.requests.length).toBe(1);
  });

  test('at shutdown, calls still streaming are aborted and recorded before the database closes', async () => {
    w.fake.script({ kind: 'stream', hangAfter: 1 });
    const res = await w.chat(ask());
    const reader = res.body!.getReader();
    await reader.read();
    // What the server runs after draining, before closing the database.
    await w.app.features.ai.stop!();
    expect((await calls(w.app, w.canvas.id)).at(-1)).toMatchObject({ state: 'settled', outcome: 'aborted' });
    await reader.cancel().catch(() => {});
  });

  test('a client that stays connected gets the whole answer, even a slow one', async () => {
    w.fake.script({ kind: 'stream', delayMs: 30 });
    const res = await w.chat(ask());
    const events = await sseEvents(res);
    expect(events.map((e) => e.type)).toEqual(['delta', 'delta', 'delta', 'delta', 'done']);
    expect((await calls(w.app, w.canvas.id)).at(-1).outcome).toBe('ok');
  });
});

describe('AI chat: a client gone while the answer waits to be read', () => {
  let w: AiWorld;
  useAiWorld((world) => (w = world));

  test('the request signal alone (the body never read, never cancelled) settles the call as aborted', async () => {
    // The first delta is queued in the response and the run waits at it for a reader: when the client goes away
    // then, only its signal says so. The Chromium flake (a left for-await loop, no settle within 5 s) was this.
    w.fake.script({ kind: 'stream', chunks: ['a', 'b', 'never sent'], hangAfter: 2 });
    const abort = new AbortController();
    const finished = recordEvents(w.app, 'ai.call-finished');
    const res = await w.chat(ask(), 'editor', w.canvas.slug, { signal: abort.signal });
    expect(res.status).toBe(200);
    abort.abort();
    const { callId } = await finished.waitFor(() => true);
    finished.stop();
    await expectLetGo(w.fake.requests[0]);
    expect((await calls(w.app, w.canvas.id)).at(-1)).toMatchObject({ id: callId, state: 'settled', outcome: 'aborted' });
  });
});

describe('AI chat: calls left running by a previous process', () => {
  // Reopens the world's data directory as a second, embedded app: on the cluster pass the world's rows are in Postgres, not there
  // (a node restarted on a cluster is test/cluster-postgres.test.ts's and the cluster crash cycles').
  test.skipIf(ON_CLUSTER)('are settled at start as a usage timeout (0 tokens, 0 cost), so they stop holding the caps', async () => {
    const w = await makeAiWorld();
    const { recordSpend } = await import('./ai-fixtures.ts');
    const id = await recordSpend(w.app, { canvasId: w.canvas.id, actorId: w.ids.editor, usd: 3, at: w.clock.now, state: 'reserved' });
    const dataDir = w.app.dataDir;
    // A second app on the same data directory (the first is left as if it had crashed).
    const { startTestApp } = await import('./harness.ts');
    const again = await startTestApp({ dataDir, env: { EASEL_AI_API_KEY: 'k' } });
    try {
      const row = await again.ctx.sql.get('SELECT * FROM ai_calls WHERE id = ?1', id);
      expect(row).toMatchObject({ state: 'settled', outcome: 'usage_timeout', cost_usd: 0 });
    } finally {
      await again.ctx.sql.close();
      await w.close();
    }
  });
});
