// passes: embedded — the body parser, the same on every storage
// Issue 23 item 8: a few kilobytes of `[[[[…` once overflowed the stack in
// JSON.stringify (a 500). Every JSON body is held to MAX_JSON_DEPTH levels:
// deeper is 400 INVALID_BODY, before anything is parsed or stored.
import { describe, expect, test } from 'bun:test';
import { MAX_JSON_DEPTH, parseJsonText } from '../src/http/json-text.ts';
import { ask, MODEL, useAiWorld, type AiWorld } from './ai-fixtures.ts';
import { expectCode } from './expect-code.ts';
import { useWorld } from './world.ts';

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
/** Deep enough to overflow JSON.stringify's recursion without the limit, and under every 256 KiB body cap. */
const BOMB = nested(100_000);

describe('parseJsonText', () => {
  test('counts arrays and objects, not brackets inside strings', () => {
    expect(parseJsonText(nested(MAX_JSON_DEPTH))).toEqual({ ok: true, value: JSON.parse(nested(MAX_JSON_DEPTH)) });
    expect(parseJsonText(nested(MAX_JSON_DEPTH + 1))).toEqual({ ok: false, problem: 'too_deep' });
    expect(parseJsonText('{"a":{"b":[1]}}', 3)).toEqual({ ok: true, value: { a: { b: [1] } } });
    expect(parseJsonText('{"a":{"b":[1]}}', 2)).toEqual({ ok: false, problem: 'too_deep' });
    const brackets = JSON.stringify({ s: '[[[[{{{{ \\" [[[[' });
    expect(parseJsonText(brackets, 1)).toEqual({ ok: true, value: JSON.parse(brackets) });
    expect(parseJsonText('{"a": [}', 5)).toEqual({ ok: false, problem: 'not_json' });
  });
});

describe('deep JSON bodies are 400, never 500', () => {
  const w = useWorld({ canvas: { capabilities: { backend: true, kv: true } } });

  test('KV PUT: 400 INVALID_BODY naming the depth, nothing stored; the limit itself is accepted', async () => {
    const path = () => `/v1/c/${w.canvas.slug}/kv/deep`;
    const refused = await expectCode(await w.request('editor', path(), { method: 'PUT', body: BOMB }), 400, 'INVALID_BODY');
    expect(refused.message).toContain(`${MAX_JSON_DEPTH} levels`);
    await expectCode(await w.request('viewer', path()), 404, 'NOT_FOUND');
    await w.expectOk('PUT', path(), 'editor', JSON.parse(nested(MAX_JSON_DEPTH)));
    expect(await w.expectOk('GET', path(), 'viewer')).toEqual({ value: JSON.parse(nested(MAX_JSON_DEPTH)) });
  });

  test('KV increment: a deep body is a malformed one ({}: by 1), as any malformed body', async () => {
    const res = await w.request('editor', `/v1/c/${w.canvas.slug}/kv/n/increment`, { method: 'POST', body: BOMB });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ value: 1 });
  });

  test('management API (PATCH a canvas): 400 INVALID_BODY', async () => {
    const res = await w.request('owner', `/api/canvases/${w.canvas.id}`, {
      method: 'PATCH',
      body: `{"title":${BOMB}}`,
      headers: { 'content-type': 'application/json' },
    });
    const refused = await expectCode(res, 400, 'INVALID_BODY');
    expect(refused.message).toContain('levels');
  });
});

describe('deep JSON in an AI chat body', () => {
  let w!: AiWorld;
  useAiWorld((world) => (w = world));

  test('400 INVALID_BODY, and nothing reaches the provider', async () => {
    const body = JSON.stringify(ask()).replace(`"${MODEL}"`, `"${MODEL}","x":${BOMB}`);
    await expectCode(await w.chat(body), 400, 'INVALID_BODY');
    expect(w.fake.requests.length).toBe(0);
  });
});
