// passes: embedded, cluster
import { adminSettings } from './admin-actions.ts';
import { describe, expect, test } from 'bun:test';
import { DEFAULT_AI_PRICES } from '../src/settings/service.ts';
import { body } from './harness.ts';
import { apiCanvas } from './runtime-fixtures.ts';
import {
  AI_KEY,
  ask,
  calls,
  expectError,
  makeAiWorld,
  MODEL,
  PRICE,
  recordSpend,
  sseEvents,
  useAiWorld,
  type AiWorld,
} from './ai-fixtures.ts';

const BIG = 256 * 1024;

describe('AI chat: checks before the stream', () => {
  let w: AiWorld;
  useAiWorld(
    (world) => (w = world),
    async (w) => {
      await w.app.ctx.sql.run('DELETE FROM ai_calls');
      await w.app.ctx.settings.update({ aiModels: null, aiPrices: null, aiApiKey: null, aiUserDailyUsd: null, aiCanvasMonthlyUsd: null });
      await w.setCanvas({ cap_ai: 1, cap_backend: 1, ai_audience: 'editors', guest_ai: 0, guest_ai_monthly_usd: 0 });
    },
  );

  test('the pipeline comes first: anonymous 401, a stranger 404 OWNER_ONLY, even with an oversized body', async () => {
    const huge = 'x'.repeat(BIG + 1);
    const anon = await w.chat(huge, 'anonymous');
    expect(anon.status).toBe(401);
    expect(await body(anon)).toEqual({ error: 'unauthorized' });
    await expectError(await w.chat(huge, 'stranger'), 404, 'OWNER_ONLY');
    await expectError(await w.chat(ask(), 'editor', 'no-such-canvas'), 404, 'NOT_FOUND');
    expect(w.fake.requests.length).toBe(0);
  });

  test('413 BODY_TOO_LARGE on Content-Length, before parsing or any other check', async () => {
    // Invalid JSON, unknown model, a guest on a canvas without guest AI: still 413.
    const huge = JSON.stringify({ model: 'nope', messages: [{ role: 'user', content: 'x'.repeat(BIG) }] });
    for (const who of ['editor', 'viewer', 'guest'] as const) await expectError(await w.chat(huge, who), 413, 'BODY_TOO_LARGE');
    await expectError(await w.chat('{'.repeat(BIG + 1)), 413, 'BODY_TOO_LARGE');
  });

  test('413 BODY_TOO_LARGE while reading a chunked body with no Content-Length', async () => {
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent++ < 6) c.enqueue(chunk);
        else c.close();
      },
    });
    const res = await w.chat(stream);
    await expectError(res, 413, 'BODY_TOO_LARGE');
    expect(sent).toBeLessThan(7);
  });

  test('a body of exactly 256 KiB is read', async () => {
    const base = JSON.stringify(ask(''));
    const padded = base.slice(0, -1) + ' '.repeat(BIG - base.length) + '}';
    expect(padded.length).toBe(BIG);
    // Valid size, but the only message is empty: the next check (400) answers.
    await expectError(await w.chat(padded), 400, 'INVALID_BODY');
  });

  test.each([
    ['not JSON', '{oops'],
    ['an array', '[]'],
    ['null', 'null'],
    ['no model', JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] })],
    ['model not a string', JSON.stringify({ model: 7, messages: [{ role: 'user', content: 'hi' }] })],
    ['no messages', JSON.stringify({ model: MODEL })],
    ['empty messages', JSON.stringify({ model: MODEL, messages: [] })],
    ['messages not an array', JSON.stringify({ model: MODEL, messages: 'hi' })],
    ['a system role', JSON.stringify({ model: MODEL, messages: [{ role: 'system', content: 'hi' }] })],
    ['content not a string', JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] })],
    ['a message that is not an object', JSON.stringify({ model: MODEL, messages: ['hi'] })],
    ['only empty messages', JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: '' }] })],
    [
      'only whitespace messages',
      JSON.stringify({
        model: MODEL,
        messages: [
          { role: 'user', content: '  \n\t ' },
          { role: 'assistant', content: ' ' },
        ],
      }),
    ],
    [
      'only empty and whitespace messages, with a system prompt',
      JSON.stringify({
        model: MODEL,
        system: 'Be brief.',
        messages: [
          { role: 'user', content: '' },
          { role: 'user', content: '\u00a0\r\n' },
        ],
      }),
    ],
    ['system not a string', JSON.stringify({ ...ask(), system: ['x'] })],
    ['maxTokens 0', JSON.stringify({ ...ask(), maxTokens: 0 })],
    ['maxTokens negative', JSON.stringify({ ...ask(), maxTokens: -5 })],
    ['maxTokens fractional', JSON.stringify({ ...ask(), maxTokens: 1.5 })],
    ['maxTokens a string', JSON.stringify({ ...ask(), maxTokens: '100' })],
    ['an unsupported option', JSON.stringify({ ...ask(), temperature: 0.2 })],
    ['empty body', ''],
  ])('400 INVALID_BODY: %s', async (_name, raw) => {
    await expectError(await w.chat(raw), 400, 'INVALID_BODY');
    expect(w.fake.requests.length).toBe(0);
  });

  test('400 comes before MODEL_NOT_ALLOWED', async () => {
    await expectError(await w.chat({ model: 'gpt-4', messages: [] }), 400, 'INVALID_BODY');
  });

  test('403 MODEL_NOT_ALLOWED: not on the allowlist, or listed without a price', async () => {
    await expectError(await w.chat(ask('hi', { model: 'gpt-4' })), 403, 'MODEL_NOT_ALLOWED');
    await expectError(await w.chat(ask('hi', { model: MODEL.toUpperCase() })), 403, 'MODEL_NOT_ALLOWED');
    await adminSettings(w.app, w.cookie.admin, { aiModels: [MODEL, 'claude-new'] });
    await expectError(await w.chat(ask('hi', { model: 'claude-new' })), 403, 'MODEL_NOT_ALLOWED');
    // Priced but taken off the allowlist by an admin.
    await adminSettings(w.app, w.cookie.admin, { aiModels: ['claude-new'] });
    await expectError(await w.chat(ask()), 403, 'MODEL_NOT_ALLOWED');
    // Priced and listed: allowed (settings are read per request).
    await adminSettings(w.app, w.cookie.admin, { aiModels: ['claude-new'], aiPrices: { 'claude-new': { input: 1, output: 2 } } });
    const ok = await w.chat(ask('hi', { model: 'claude-new' }));
    expect(ok.status).toBe(200);
    await ok.text();
    expect(w.fake.requests.length).toBe(1);
  });

  test('MODEL_NOT_ALLOWED comes before GUEST_AI_DISABLED, CAPABILITY_DISABLED and the audience', async () => {
    await w.setCanvas({ cap_ai: 0 });
    for (const who of ['guest', 'viewer', 'editor'] as const)
      await expectError(await w.chat(ask('hi', { model: 'nope' }), who), 403, 'MODEL_NOT_ALLOWED');
  });

  test('403 GUEST_AI_DISABLED unless the owner opted guests in; before the caps, the capability and the audience', async () => {
    await recordSpend(w.app, { canvasId: w.canvas.id, actorId: w.ids.guest, usd: 100, at: w.clock.now, kind: 'guest' });
    await w.setCanvas({ cap_ai: 0, guest_ai_monthly_usd: 1 });
    await expectError(await w.chat(ask(), 'guest'), 403, 'GUEST_AI_DISABLED');
    expect(w.fake.requests.length).toBe(0);
  });

  test('429 GUEST_AI_CAP (scope guest) before QUOTA_EXCEEDED and CAPABILITY_DISABLED', async () => {
    await w.setCanvas({ guest_ai: 1, guest_ai_monthly_usd: 0.5, cap_ai: 0 });
    await recordSpend(w.app, { canvasId: w.canvas.id, actorId: w.ids.guest, usd: 100, at: w.clock.now, kind: 'guest' });
    const b = await expectError(await w.chat(ask(), 'guest'), 429, 'GUEST_AI_CAP');
    expect(b.scope).toBe('guest');
  });

  test('429 QUOTA_EXCEEDED: user_daily is checked before canvas_monthly, both before CAPABILITY_DISABLED and the audience', async () => {
    await adminSettings(w.app, w.cookie.admin, { aiUserDailyUsd: 1, aiCanvasMonthlyUsd: 2 });
    await recordSpend(w.app, { canvasId: w.canvas.id, actorId: w.ids.viewer, usd: 5, at: w.clock.now });
    await w.setCanvas({ cap_ai: 0 });
    const daily = await expectError(await w.chat(ask(), 'viewer'), 429, 'QUOTA_EXCEEDED');
    expect(daily.scope).toBe('user_daily');
    const monthly = await expectError(await w.chat(ask(), 'viewer2'), 429, 'QUOTA_EXCEEDED');
    expect(monthly.scope).toBe('canvas_monthly');
    // A guest (opted in) counts against the canvas month too.
    await w.setCanvas({ guest_ai: 1 });
    expect((await expectError(await w.chat(ask(), 'guest'), 429, 'QUOTA_EXCEEDED')).scope).toBe('canvas_monthly');
  });

  test('403 CAPABILITY_DISABLED (feature_off, backend_off, no provider key) before the audience', async () => {
    await w.setCanvas({ cap_ai: 0 });
    const off = await expectError(await w.chat(ask(), 'viewer'), 403, 'CAPABILITY_DISABLED');
    expect(off).toMatchObject({ capability: 'ai', backendEnabled: true, reason: 'feature_off', hint: expect.any(String) });
    await w.setCanvas({ cap_ai: 1, cap_backend: 0 });
    expect(await expectError(await w.chat(ask(), 'editor'), 403, 'CAPABILITY_DISABLED')).toMatchObject({
      reason: 'backend_off',
      backendEnabled: false,
    });
    await w.setCanvas({ cap_backend: 1 });
    await w.app.ctx.settings.update({ aiApiKey: '' });
    expect(await expectError(await w.chat(ask(), 'owner'), 403, 'CAPABILITY_DISABLED')).toMatchObject({ reason: 'operator_disabled' });
    expect(w.fake.requests.length).toBe(0);
  });

  test('403 PERMISSION_DENIED for viewers unless aiAudience is viewers; owners and editors always pass', async () => {
    await expectError(await w.chat(ask(), 'viewer'), 403, 'PERMISSION_DENIED');
    expect(w.fake.requests.length).toBe(0);
    expect(await calls(w.app, w.canvas.id)).toEqual([]);
    for (const who of ['owner', 'editor'] as const) {
      const res = await w.chat(ask(), who);
      expect(res.status).toBe(200);
      await res.text();
    }
    await w.setCanvas({ ai_audience: 'viewers' });
    const res = await w.chat(ask(), 'viewer');
    expect(res.status).toBe(200);
    await res.text();
  });

  test('an opted-in guest is admitted whatever the member audience', async () => {
    await w.setCanvas({ guest_ai: 1 });
    const res = await w.chat(ask(), 'guest');
    expect(res.status).toBe(200);
    await res.text();
    expect((await calls(w.app, w.canvas.id))[0]).toMatchObject({ actor_id: w.ids.guest, actor_kind: 'guest', outcome: 'ok' });
  });

  test('an instance admin who is not a member gets no bypass', async () => {
    await expectError(await w.chat(ask(), 'admin'), 404, 'OWNER_ONLY');
  });

  test('the ai rate-limit class: per user across canvases, 429 RATE_LIMITED with headers', async () => {
    const limited = await makeAiWorld({ env: { EASEL_RATELIMIT_ENABLED: 'true', EASEL_RATELIMIT_AI_PER_MIN: '2' } });
    try {
      for (let i = 0; i < 2; i++) await limited.chat({}, 'editor');
      const res = await limited.chat(ask(), 'editor');
      await expectError(res, 429, 'RATE_LIMITED');
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(res.headers.get('x-ratelimit-limit')).toBe('2');
      // Another canvas: the same bucket.
      const other = await apiCanvas(limited.app, limited.cookie.owner, {
        capabilities: { ai: true },
        members: [[limited.ids.editor, 'editor']],
      });
      await expectError(await limited.chat(ask(), 'editor', other.slug), 429, 'RATE_LIMITED');
      // Another user still has calls left.
      expect((await limited.chat({}, 'owner')).status).toBe(400);
    } finally {
      await limited.close();
    }
  });
});

describe('AI chat: the stream and what is sent to the provider', () => {
  let w: AiWorld;
  useAiWorld((world) => (w = world));

  test('200 text/event-stream: one JSON data line per event, deltas then done with usage and cost', async () => {
    const res = await w.chat(ask('Say hello'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.headers.get('cache-control')).toContain('no-store');
    const events = await sseEvents(res);
    expect(events).toEqual([
      { type: 'delta', text: 'Hello' },
      { type: 'delta', text: ', ' },
      { type: 'delta', text: 'world' },
      { type: 'delta', text: '!' },
      {
        type: 'done',
        usage: { inputTokens: 20, outputTokens: 7, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 },
        cost: (20 * PRICE.input + 7 * PRICE.output) / 1e6,
      },
    ]);
    const row = (await calls(w.app, w.canvas.id)).at(-1);
    expect(row).toMatchObject({
      state: 'settled',
      outcome: 'ok',
      model: MODEL,
      actor_id: w.ids.editor,
      actor_kind: 'member',
      input_tokens: 20,
      output_tokens: 7,
      day: '2025-01-15',
      month: '2025-01',
    });
    expect(row.cost_usd).toBeCloseTo((20 * 2 + 7 * 10) / 1e6, 12);
  });

  test('the provider gets the key from the settings; the key never shows in responses or logs', async () => {
    const res = await w.chat(ask());
    const text = await res.text();
    const got = w.fake.requests[0]!;
    expect(got.apiKey ?? got.bearer).toBe(AI_KEY);
    expect(text).not.toContain(AI_KEY);
    expect(JSON.stringify(w.app.logs)).not.toContain(AI_KEY);
    // An admin's runtime key replaces the env one at once.
    await adminSettings(w.app, w.cookie.admin, { aiApiKey: 'sk-ant-admin-set-key' });
    await (await w.chat(ask())).text();
    const second = w.fake.requests[1]!;
    expect(second.apiKey ?? second.bearer).toBe('sk-ant-admin-set-key');
    await adminSettings(w.app, w.cookie.admin, { aiApiKey: null });
    expect(JSON.stringify(w.app.logs)).not.toContain('sk-ant-admin-set-key');
  });

  test('the cost formula: uncached input at the input rate, cache writes 1.25x, cache reads 0.1x, output at the output rate', async () => {
    w.fake.script({ kind: 'stream', usage: { input: 100, cacheCreation: 1000, cacheRead: 5000, output: 50 } });
    const events = await sseEvents(await w.chat(ask()));
    const done = events.at(-1);
    // inputTokens is the total input, both cache counts included.
    expect(done.usage).toEqual({ inputTokens: 6100, outputTokens: 50, cacheCreationInputTokens: 1000, cacheReadInputTokens: 5000 });
    const expected = (100 * 2 + 1000 * 1.25 * 2 + 5000 * 0.1 * 2 + 50 * 10) / 1e6;
    expect(done.cost).toBeCloseTo(expected, 12);
    expect(done.cost).toBeCloseTo(0.0042, 12);
    const row = (await calls(w.app, w.canvas.id)).at(-1);
    expect(row).toMatchObject({ input_tokens: 6100, output_tokens: 50, cache_creation_input_tokens: 1000, cache_read_input_tokens: 5000 });
    expect(row.cost_usd).toBeCloseTo(expected, 12);
  });

  test('the price table is per model (admin-tunable)', async () => {
    await adminSettings(w.app, w.cookie.admin, { aiPrices: { [MODEL]: { input: 10, output: 100 } } });
    try {
      w.fake.script({ kind: 'stream', usage: { input: 1000, output: 1000 } });
      const done = (await sseEvents(await w.chat(ask()))).at(-1);
      expect(done.cost).toBeCloseTo(0.11, 12);
    } finally {
      await adminSettings(w.app, w.cookie.admin, { aiPrices: null });
    }
  });

  test('cache breakpoints: the system prompt, and the last non-empty message before the newest user turn', async () => {
    const messages = [
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'first answer' },
      { role: 'user', content: 'second question', id: 'app-field-ignored' },
      { role: 'assistant', content: '' },
      { role: 'user', content: 'newest question' },
    ];
    await (await w.chat({ model: MODEL, system: 'You are terse.', messages })).text();
    const sent = w.fake.requests[0]!.body;
    expect(sent.system).toEqual([{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }]);
    expect(sent.messages).toEqual([
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'first answer' },
      { role: 'user', content: [{ type: 'text', text: 'second question', cache_control: { type: 'ephemeral' } }] },
      { role: 'user', content: 'newest question' },
    ]);
    expect(sent.stream).toBe(true);
    expect(sent.model).toBe(MODEL);
  });

  test('no breakpoint without a system prompt or an earlier message; a trailing assistant turn keeps the newest user turn', async () => {
    await (await w.chat({ model: MODEL, system: '', messages: [{ role: 'user', content: 'only' }] })).text();
    const one = w.fake.requests[0]!.body;
    expect(one.system).toBeUndefined();
    expect(one.messages).toEqual([{ role: 'user', content: 'only' }]);

    const prefill = [
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'a1' },
      { role: 'user', content: 'q2' },
      { role: 'assistant', content: 'Sure:' },
    ];
    await (await w.chat({ model: MODEL, messages: prefill })).text();
    const two = w.fake.requests[1]!.body;
    expect(two.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'a1', cache_control: { type: 'ephemeral' } }] });
    expect(two.messages.filter((m: any) => Array.isArray(m.content))).toHaveLength(1);
  });

  test('whitespace-only text counts as empty: left out, never a breakpoint, never the newest user turn; a blank system prompt is not sent', async () => {
    const messages = [
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'first answer' },
      { role: 'user', content: 'second question' },
      { role: 'assistant', content: ' \n\t ' },
      { role: 'user', content: 'newest question' },
      { role: 'assistant', content: '   ' },
      { role: 'user', content: '\n\n' },
    ];
    const res = await w.chat({ model: MODEL, system: '  \n ', messages });
    expect(res.status).toBe(200);
    await res.text();
    const sent = w.fake.requests[0]!.body;
    expect(sent.system).toBeUndefined();
    expect(sent.messages).toEqual([
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'first answer' },
      { role: 'user', content: [{ type: 'text', text: 'second question', cache_control: { type: 'ephemeral' } }] },
      { role: 'user', content: 'newest question' },
    ]);
  });

  test('maxTokens: default 1024, kept up to 8192, clamped above', async () => {
    const cases: Array<[number | undefined, number]> = [
      [undefined, 1024],
      [1, 1],
      [8192, 8192],
      [8193, 8192],
      [1_000_000, 8192],
    ];
    for (const [given, sent] of cases) {
      w.fake.reset();
      await (await w.chat(ask('hi', given === undefined ? {} : { maxTokens: given }))).text();
      expect(w.fake.requests[0]!.body.max_tokens).toBe(sent);
    }
  });

  test('an answer with no text still ends with done', async () => {
    w.fake.script({ kind: 'stream', chunks: [], usage: { input: 5, output: 0 } });
    const events = await sseEvents(await w.chat(ask()));
    expect(events).toEqual([
      { type: 'done', usage: { inputTokens: 5, outputTokens: 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 }, cost: 10 / 1e6 },
    ]);
  });
});

describe('AI chat: the admin price table (PATCH /api/admin/settings)', () => {
  let w: AiWorld;
  useAiWorld(
    (world) => (w = world),
    (w) => w.app.ctx.settings.update({ aiModels: null, aiPrices: null }),
  );
  const patch = async (json: unknown) => {
    const res = await w.app.request('/api/admin/settings', { method: 'PATCH', cookie: w.cookie.admin, json });
    expect(res.status).toBe(200);
    return body(res);
  };
  const view = async () => body(await w.app.request('/api/admin/settings', { cookie: w.cookie.admin }));
  const chatStatus = async (model: string) => {
    const res = await w.chat(ask('hi', { model }));
    await res.text();
    return res.status;
  };

  test('a price for a new model is merged in: the built-in prices stay, and the default models keep working', async () => {
    const added = { input: 1, output: 3 };
    const models = [...w.app.ctx.config.aiModels, 'claude-new'];
    const after = await patch({ aiModels: models, aiPrices: { 'claude-new': added } });
    expect(after.aiPrices).toEqual({ ...DEFAULT_AI_PRICES, 'claude-new': added });
    expect((await view()).aiPrices).toEqual({ ...DEFAULT_AI_PRICES, 'claude-new': added });
    expect(await chatStatus(MODEL)).toBe(200);
    expect(await chatStatus('claude-new')).toBe(200);
    // A second change touches only the model it names.
    const changed = await patch({ aiPrices: { [MODEL]: { input: 7, output: 70 } } });
    expect(changed.aiPrices).toEqual({ ...DEFAULT_AI_PRICES, [MODEL]: { input: 7, output: 70 }, 'claude-new': added });
    expect(w.app.ctx.settings.get().aiPrices['claude-new']).toEqual(added);
  });

  test('null for a model removes its price (built-in or not); aiPrices: null puts the built-in table back', async () => {
    await patch({ aiModels: [...w.app.ctx.config.aiModels, 'claude-new'], aiPrices: { 'claude-new': { input: 1, output: 3 } } });
    const removed = await patch({ aiPrices: { [MODEL]: null, 'claude-new': null } });
    const { [MODEL]: _gone, ...rest } = DEFAULT_AI_PRICES;
    expect(removed.aiPrices).toEqual(rest);
    expect((await view()).aiPrices).toEqual(rest);
    await expectError(await w.chat(ask()), 403, 'MODEL_NOT_ALLOWED');
    await expectError(await w.chat(ask('hi', { model: 'claude-new' })), 403, 'MODEL_NOT_ALLOWED');
    // Other changes leave the removal in place.
    expect((await patch({ aiUserDailyUsd: 4 })).aiPrices).toEqual(rest);
    const reset = await patch({ aiPrices: null, aiUserDailyUsd: null });
    expect(reset.aiPrices).toEqual(DEFAULT_AI_PRICES);
    expect(await chatStatus(MODEL)).toBe(200);
  });

  test('bad prices are refused and nothing changes', async () => {
    const before = (await view()).aiPrices;
    for (const json of [
      { aiPrices: { [MODEL]: { input: 1 } } },
      { aiPrices: { [MODEL]: 5 } },
      { aiPrices: { [MODEL]: { input: -1, output: 1 } } },
    ]) {
      const res = await w.app.request('/api/admin/settings', { method: 'PATCH', cookie: w.cookie.admin, json });
      expect(res.status).toBe(400);
    }
    expect((await view()).aiPrices).toEqual(before);
  });
});
