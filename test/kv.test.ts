// passes: embedded, cluster
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { tx } from '../src/db/sql.ts';
import { utcDay } from '../src/runtime/usage.ts';
import { body, ON_CLUSTER, startTestApp, type TestApp } from './harness.ts';
import { expectCode } from './expect-code.ts';
import { ManualClock } from './manual-clock.ts';
import { recordEvents } from './signals.ts';
import { ADMIN_EMAIL, makeWorld, type Who, type World } from './runtime-fixtures.ts';

describe('KV', () => {
  let app: TestApp;
  let w: World;
  beforeAll(async () => {
    app = await startTestApp({ env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_RATELIMIT_ENABLED: 'false' } });
    w = await makeWorld(app);
  });
  afterAll(() => app.close());

  const kv = (path: string, init: RequestInit & { cookie?: string; json?: unknown } = {}) => app.request(`/v1/c/${w.slug}/kv${path}`, init);
  const putRaw = (path: string, raw: string, cookie = w.cookie.editor) =>
    kv(path, { method: 'PUT', cookie, body: raw, headers: { 'content-type': 'application/json' } });
  const put = (path: string, value: unknown, cookie = w.cookie.editor) => putRaw(path, JSON.stringify(value), cookie);
  const get = async (path: string, cookie = w.cookie.viewer) => body(await kv(path, { cookie }));
  // Direct writes, kept on purpose: the quota tests need 10,000 keys in place (through the API that is
  // 10,000 requests), and `clear` empties the canvas between tests (no API deletes a whole scope).
  const insertRows = (scope: 'shared' | 'user', ownerId: string, count: number, prefix: string) =>
    app.ctx.sql.write(function* () {
      for (let i = 0; i < count; i++)
        yield* tx.run(
          'INSERT INTO kv (canvas_id, scope, owner_id, key, value, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, 0)',
          w.canvas.id,
          scope,
          ownerId,
          `${prefix}${String(i).padStart(5, '0')}`,
          '1',
        );
    });
  const clear = () => app.ctx.sql.run('DELETE FROM kv WHERE canvas_id = ?1', w.canvas.id);

  test('PUT any JSON value but null, GET it back as {value}', async () => {
    for (const value of [{ a: [1, 'two', { three: true }] }, [1, 2], 'text', 0, -1.5, true, false, { nested: { deep: null } }]) {
      const res = await put('/v', value);
      expect(res.status).toBe(200);
      expect(await body(res)).toEqual({ ok: true });
      const got = await kv('/v', { cookie: w.cookie.viewer });
      expect(got.headers.get('cache-control')).toBe('private, no-store');
      expect(await body(got)).toEqual({ value });
    }
  });

  test('absent key is 404 NOT_FOUND; DELETE is idempotent', async () => {
    await expectCode(await kv('/never', { cookie: w.cookie.viewer }), 404, 'NOT_FOUND');
    await put('/gone', 1);
    for (let i = 0; i < 2; i++) {
      const res = await kv('/gone', { method: 'DELETE', cookie: w.cookie.editor });
      expect(res.status).toBe(200);
      expect(await body(res)).toEqual({ ok: true });
    }
    await expectCode(await kv('/gone', { cookie: w.cookie.viewer }), 404, 'NOT_FOUND');
  });

  test('PUT null, unparseable JSON or an empty body is 400 INVALID_BODY', async () => {
    for (const raw of ['null', '{oops', '', ' ', 'undefined', "{'a':1}"]) await expectCode(await putRaw('/bad', raw), 400, 'INVALID_BODY');
    await expectCode(await kv('/bad', { cookie: w.cookie.viewer }), 404, 'NOT_FOUND');
  });

  test('a stored null reads as null', async () => {
    // No API can store a null (PUT refuses it); the spec says one "can occur", so it is written directly.
    await app.ctx.sql.run(
      "INSERT INTO kv (canvas_id, scope, owner_id, key, value, updated_at) VALUES (?1, 'shared', '', 'nul', 'null', 0)",
      w.canvas.id,
    );
    expect(await get('/nul')).toEqual({ value: null });
    expect((await get('/?prefix=nul')).entries).toEqual([{ key: 'nul', value: null }]);
  });

  test('keys are one URL-encoded segment: slashes, spaces and non-ASCII survive', async () => {
    for (const key of ['a/b', 'with space', '€uro', 'q?x=1#h', '%41', 'users', 'User']) {
      expect((await put('/' + encodeURIComponent(key), { key })).status).toBe(200);
      expect(await get('/' + encodeURIComponent(key))).toEqual({ value: { key } });
    }
    await expectCode(await kv('/%E0%A4%A', { cookie: w.cookie.viewer }), 400, 'INVALID_BODY');
    await expectCode(await kv('/a/b', { cookie: w.cookie.viewer }), 404, 'NOT_FOUND');
  });

  test('/kv/user is the per-viewer list (with or without the slash); the shared key `user` is reserved', async () => {
    await clear();
    await put('/user/mine', 'v', w.cookie.viewer);
    const mine = { entries: [{ key: 'mine', value: 'v' }], nextCursor: null };
    expect(await get('/user/')).toEqual(mine);
    expect(await get('/user')).toEqual(mine);
    for (const [path, method] of [
      ['/user', 'PUT'],
      ['/user', 'DELETE'],
      ['/user/increment', 'POST'],
    ] as const) {
      const refused = await expectCode(
        await kv(path, { method, cookie: w.cookie.editor, body: method === 'PUT' ? '1' : undefined }),
        400,
        'INVALID_BODY',
      );
      expect(refused.message).toContain('per-viewer');
    }
    // Nothing was written in the shared scope, and the viewer's own keys are untouched.
    expect(await get('/')).toEqual({ entries: [], nextCursor: null });
    expect(await get('/user/mine')).toEqual({ value: 'v' });
  });

  test('keys up to 512 bytes; longer is 413 KEY_TOO_LARGE (UTF-8 bytes, not characters)', async () => {
    expect((await put('/' + 'k'.repeat(512), 1)).status).toBe(200);
    expect((await put('/' + encodeURIComponent('€'.repeat(170)), 1)).status).toBe(200);
    for (const key of ['k'.repeat(513), '€'.repeat(171)]) {
      await expectCode(await put('/' + encodeURIComponent(key), 1), 413, 'KEY_TOO_LARGE');
      await expectCode(await kv('/' + encodeURIComponent(key), { cookie: w.cookie.viewer }), 413, 'KEY_TOO_LARGE');
    }
  });

  test('a key holding a NUL is malformed: 400 INVALID_BODY for every method, in both scopes, and nothing is stored', async () => {
    for (const path of ['/a%00b', '/user/a%00b']) {
      await expectCode(await put(path, 1), 400, 'INVALID_BODY');
      await expectCode(await kv(path, { cookie: w.cookie.viewer }), 400, 'INVALID_BODY');
      await expectCode(await kv(`${path}/increment`, { method: 'POST', cookie: w.cookie.owner, json: {} }), 400, 'INVALID_BODY');
    }
    expect((await get('/')).entries.map((e: { key: string }) => e.key)).not.toContain('a\0b');
  });

  test('values up to 64 KiB serialized; more is 413 VALUE_TOO_LARGE; a pretty-printed body is measured serialized', async () => {
    const fits = 'x'.repeat(64 * 1024 - 2);
    expect((await put('/big', fits)).status).toBe(200);
    expect(((await get('/big')).value as string).length).toBe(fits.length);
    await expectCode(await put('/big', fits + 'x'), 413, 'VALUE_TOO_LARGE');
    const pretty = JSON.stringify({ items: Array.from({ length: 4000 }, (_, i) => i) }, null, 20);
    expect(pretty.length).toBeGreaterThan(64 * 1024);
    expect((await putRaw('/pretty', pretty)).status).toBe(200);
    await expectCode(await putRaw('/huge', '"' + 'x'.repeat(2 * 1024 * 1024) + '"'), 413, 'VALUE_TOO_LARGE');
  });

  test('the body is checked before the value size: a large body that is not JSON is 400, a large valid value 413, past the 4 MiB ceiling 413 unread', async () => {
    const twoMiB = 2 * 1024 * 1024;
    await expectCode(await putRaw('/large', '{' + 'x'.repeat(twoMiB)), 400, 'INVALID_BODY');
    await expectCode(await putRaw('/large', '["' + 'x'.repeat(twoMiB)), 400, 'INVALID_BODY');
    await expectCode(await putRaw('/large', ' '.repeat(twoMiB) + 'null'), 400, 'INVALID_BODY');
    await expectCode(await putRaw('/large', '"' + 'x'.repeat(twoMiB) + '"'), 413, 'VALUE_TOO_LARGE');
    // A small value in a large body fits: the value is measured serialized.
    expect((await putRaw('/large', ' '.repeat(twoMiB) + '{"small":true}')).status).toBe(200);
    expect(await get('/large')).toEqual({ value: { small: true } });
    // Past the hard ceiling the body is not parsed, whether declared or streamed.
    await expectCode(await putRaw('/large', '{' + 'x'.repeat(5 * 1024 * 1024)), 413, 'VALUE_TOO_LARGE');
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 64 * 1024;
        if (pulled > 64 * 1024 * 1024) controller.close();
        else controller.enqueue(new Uint8Array(64 * 1024).fill(0x7b));
      },
    });
    await expectCode(await kv('/large', { method: 'PUT', cookie: w.cookie.editor, body: endless }), 413, 'VALUE_TOO_LARGE');
    expect(pulled).toBeLessThan(8 * 1024 * 1024);
    expect(await get('/large')).toEqual({ value: { small: true } });
  });

  test('checks run in order: key size, body, value size, key count', async () => {
    await clear();
    await insertRows('shared', '', 10_000, 'fill');
    const longKey = '/' + 'k'.repeat(513);
    await expectCode(await putRaw(longKey, '{oops'), 413, 'KEY_TOO_LARGE');
    await expectCode(await putRaw('/new', '{oops'), 400, 'INVALID_BODY');
    await expectCode(await put('/new', 'x'.repeat(70_000)), 413, 'VALUE_TOO_LARGE');
    const limit = await expectCode(await put('/new', 1), 409, 'KEY_LIMIT');
    expect(limit.quota).toBe('kv.keys.shared');
    await clear();
  });

  test('shared quota: 10 000 keys; updates to existing keys always succeed; increment of a new key counts', async () => {
    await clear();
    await insertRows('shared', '', 9_999, 'fill');
    expect((await put('/last', 1)).status).toBe(200);
    await expectCode(await put('/one-more', 1), 409, 'KEY_LIMIT');
    await expectCode(await kv('/one-more/increment', { method: 'POST', cookie: w.cookie.editor }), 409, 'KEY_LIMIT');
    expect((await put('/fill00000', { updated: true })).status).toBe(200);
    expect(await body(await kv('/last/increment', { method: 'POST', cookie: w.cookie.editor }))).toEqual({ value: 2 });
    expect((await kv('/last', { method: 'DELETE', cookie: w.cookie.editor })).status).toBe(200);
    expect((await put('/one-more', 1)).status).toBe(200);
    await clear();
  });

  test('per-viewer quota: 1 000 keys per viewer per canvas, separate from shared and from other viewers', async () => {
    await clear();
    await insertRows('user', w.ids.viewer, 1_000, 'p');
    const limit = await expectCode(await put('/user/extra', 1, w.cookie.viewer), 409, 'KEY_LIMIT');
    expect(limit.quota).toBe('kv.keys.user');
    expect((await put('/user/p00001', 2, w.cookie.viewer)).status).toBe(200);
    expect((await put('/user/extra', 1, w.cookie.viewer2)).status).toBe(200);
    expect((await put('/extra', 1)).status).toBe(200);
    await clear();
  });

  test('list: key order, prefix, cursor pages, nextCursor null on the last page', async () => {
    await clear();
    for (const key of ['b', 'a', 'B', 'ab', 'é', 'aa', 'a%', 'a_']) await put('/' + encodeURIComponent(key), key);
    const all = await get('/');
    expect(all.entries.map((e: any) => e.key)).toEqual(['B', 'a', 'a%', 'a_', 'aa', 'ab', 'b', 'é']);
    expect(all.nextCursor).toBeNull();
    expect((await get('/?prefix=a')).entries.map((e: any) => e.key)).toEqual(['a', 'a%', 'a_', 'aa', 'ab']);
    expect((await get('/?prefix=a%25')).entries.map((e: any) => e.key)).toEqual(['a%']);
    expect((await get('/?prefix=zz')).entries).toEqual([]);
    const p1 = await get('/?prefix=a&limit=2');
    expect(p1).toEqual({
      entries: [
        { key: 'a', value: 'a' },
        { key: 'a%', value: 'a%' },
      ],
      nextCursor: 'a%',
    });
    const p2 = await get(`/?prefix=a&limit=2&cursor=${encodeURIComponent(p1.nextCursor)}`);
    expect(p2.entries.map((e: any) => e.key)).toEqual(['a_', 'aa']);
    const p3 = await get(`/?prefix=a&limit=2&cursor=${encodeURIComponent(p2.nextCursor)}`);
    expect(p3).toEqual({ entries: [{ key: 'ab', value: 'ab' }], nextCursor: null });
    const exact = await get('/?prefix=a&limit=5');
    expect(exact.entries.length).toBe(5);
    expect(exact.nextCursor).toBeNull();
    await expectCode(await kv('/?cursor=' + 'c'.repeat(600), { cookie: w.cookie.viewer }), 400, 'INVALID_BODY');
  });

  test('list limit: below 1 is 1, above 1000 is 1000, non-numeric is ignored (100)', async () => {
    await clear();
    await insertRows('shared', '', 1_100, 'n');
    const count = async (q: string) => (await get('/?' + q)).entries.length;
    expect(await count('limit=0')).toBe(1);
    expect(await count('limit=-5')).toBe(1);
    expect(await count('limit=5000')).toBe(1000);
    expect(await count('limit=abc')).toBe(100);
    expect(await count('limit=')).toBe(100);
    expect(await count('limit=2.7')).toBe(2);
    expect(await count('')).toBe(100);
    await clear();
  });

  test('increment: starts at 0, by defaults to 1, any finite number; a missing or malformed body is {}', async () => {
    await clear();
    const inc = (key: string, init: RequestInit = {}) => kv(`/${key}/increment`, { method: 'POST', cookie: w.cookie.editor, ...init });
    expect(await body(await inc('n'))).toEqual({ value: 1 });
    expect(await body(await inc('n', { body: JSON.stringify({ by: 5 }), headers: { 'content-type': 'application/json' } }))).toEqual({
      value: 6,
    });
    expect(await body(await inc('n', { body: JSON.stringify({ by: -2.5 }) }))).toEqual({ value: 3.5 });
    for (const raw of ['{oops', '[]', '"x"', 'null', '{}'])
      expect(await body(await inc('m', { body: raw }))).toEqual({ value: expect.any(Number) });
    expect(await get('/m')).toEqual({ value: 5 });
    for (const by of ['"2"', 'null', 'true', '{}', '1e400'])
      await expectCode(await inc('n', { body: `{"by":${by}}` }), 400, 'INVALID_BODY');
    expect(await get('/n')).toEqual({ value: 3.5 });
  });

  test('increment of a non-numeric value (null included) is 409 NOT_NUMERIC; overflow is refused and changes nothing', async () => {
    for (const value of ['"text"', 'true', '{"a":1}', '[1]']) {
      await putRaw('/nn', value);
      await expectCode(await kv('/nn/increment', { method: 'POST', cookie: w.cookie.editor }), 409, 'NOT_NUMERIC');
    }
    await app.ctx.sql.run(
      `INSERT INTO kv (canvas_id, scope, owner_id, key, value, updated_at) VALUES (?1, 'shared', '', 'nul', 'null', 0)
       ON CONFLICT (canvas_id, scope, owner_id, key) DO UPDATE SET value = excluded.value`,
      w.canvas.id,
    );
    await expectCode(await kv('/nul/increment', { method: 'POST', cookie: w.cookie.editor }), 409, 'NOT_NUMERIC');
    await put('/huge', 1.7e308);
    await expectCode(await kv('/huge/increment', { method: 'POST', cookie: w.cookie.editor, body: '{"by":1.7e308}' }), 400, 'INVALID_BODY');
    expect(await get('/huge')).toEqual({ value: 1.7e308 });
  });

  test('increment results and stored numbers are spelled as JSON.stringify (and so PUT) spells them: 0, not 0.0', async () => {
    await clear();
    const inc = async (key: string, by: number) =>
      (await kv(`/${key}/increment`, { method: 'POST', cookie: w.cookie.editor, body: JSON.stringify({ by }) })).text();
    const raw = async (key: string) => (await kv(`/${key}`, { cookie: w.cookie.viewer })).text();
    const stored = async (key: string) =>
      (await app.ctx.sql.get<{ value: string }>(
        "SELECT value FROM kv WHERE canvas_id = ?1 AND scope = 'shared' AND key = ?2",
        w.canvas.id,
        key,
      ))!.value;
    expect(await inc('f', 0.5)).toBe('{"value":0.5}');
    expect(await inc('f', 0.5)).toBe('{"value":1}');
    expect(await inc('f', -1)).toBe('{"value":0}');
    expect(await raw('f')).toBe('{"value":0}');
    expect(await stored('f')).toBe('0');
    await put('/large', 1e300);
    expect(await inc('large', 1e300)).toBe('{"value":2e+300}');
    expect(await raw('large')).toBe('{"value":2e+300}');
    expect(await (await kv('/?prefix=large', { cookie: w.cookie.viewer })).text()).toBe(
      '{"entries":[{"key":"large","value":2e+300}],"nextCursor":null}',
    );
    // Past 2^53 the sum is the double a PUT of it would store, not SQLite's exact integer.
    await put('/edge', 2 ** 53);
    expect(await inc('edge', 1)).toBe('{"value":9007199254740992}');
    expect(await stored('edge')).toBe('9007199254740992');
    await clear();
  });

  test('concurrent increments never lose a count', async () => {
    await Promise.all(Array.from({ length: 60 }, () => kv('/counter/increment', { method: 'POST', cookie: w.cookie.editor })));
    expect(await get('/counter')).toEqual({ value: 60 });
  });

  test("two viewers' per-viewer data are isolated; owners do not see viewers' keys", async () => {
    await clear();
    await put('/user/theme', 'dark', w.cookie.viewer);
    await put('/user/theme', 'light', w.cookie.viewer2);
    expect(await get('/user/theme', w.cookie.viewer)).toEqual({ value: 'dark' });
    expect(await get('/user/theme', w.cookie.viewer2)).toEqual({ value: 'light' });
    await expectCode(await kv('/user/theme', { cookie: w.cookie.owner }), 404, 'NOT_FOUND');
    await expectCode(await kv('/theme', { cookie: w.cookie.owner }), 404, 'NOT_FOUND');
    expect(await get('/user/', w.cookie.viewer2)).toEqual({ entries: [{ key: 'theme', value: 'light' }], nextCursor: null });
    expect(await body(await kv('/user/theme', { method: 'DELETE', cookie: w.cookie.viewer2 }))).toEqual({ ok: true });
    expect(await get('/user/theme', w.cookie.viewer)).toEqual({ value: 'dark' });
    const rows = await app.ctx.sql.all<{ owner_id: string }>(
      "SELECT owner_id FROM kv WHERE canvas_id = ?1 AND scope = 'user'",
      w.canvas.id,
    );
    expect(rows).toEqual([{ owner_id: w.ids.viewer }]);
  });

  test('a guest has its own per-viewer scope keyed guest:<inviteId>', async () => {
    await put('/user/g', 1, w.cookie.guest);
    const row = await app.ctx.sql.get<{ owner_id: string }>("SELECT owner_id FROM kv WHERE canvas_id = ?1 AND key = 'g'", w.canvas.id);
    expect(row?.owner_id).toBe(w.ids.guest);
  });

  test('a plain shared-key GET (answered before the router) and the same key spelled with an escape (the router) answer alike', async () => {
    await put('/ab', { same: true });
    const strip = (res: Response) => [...res.headers].filter(([name]) => name !== 'x-request-id');
    const alike = async (plain: string, escaped: string, cookie?: string) => {
      const [a, b] = [await app.request(plain, { cookie }), await app.request(escaped, { cookie })];
      expect([a.status, strip(a), await a.text()]).toEqual([b.status, strip(b), await b.text()]);
      return a.status;
    };
    const base = `/v1/c/${w.slug}/kv`;
    // A value; a missing key; nobody signed in; someone not on the list; an unknown canvas; a query string.
    expect(await alike(`${base}/ab`, `${base}/%61b`, w.cookie.viewer)).toBe(200);
    expect(await alike(`${base}/nope`, `${base}/n%6Fpe`, w.cookie.viewer)).toBe(404);
    expect(await alike(`${base}/ab`, `${base}/%61b`)).toBe(401);
    expect(await alike(`${base}/ab`, `${base}/%61b`, w.cookie.stranger)).toBe(404);
    expect(await alike(`/v1/c/no-such-canvas/kv/ab`, `/v1/c/no-such-canvas/kv/%61b`, w.cookie.viewer)).toBe(404);
    expect(await alike(`${base}/ab?x=1`, `${base}/%61b?x=1`, w.cookie.viewer)).toBe(200);
    // A key over 512 bytes is refused before the read, on both.
    expect(await alike(`${base}/${'k'.repeat(513)}`, `${base}/%6B${'k'.repeat(512)}`, w.cookie.viewer)).toBe(413);
  });

  test('unknown KV routes answer 404 after the pipeline', async () => {
    expect((await kv('/x', { method: 'POST' })).status).toBe(401);
    await expectCode(await kv('/x', { method: 'POST', cookie: w.cookie.editor }), 404, 'NOT_FOUND');
    await expectCode(await kv('/x/decrement', { method: 'POST', cookie: w.cookie.editor }), 404, 'NOT_FOUND');
    await expectCode(await kv('/', { method: 'PUT', cookie: w.cookie.editor, body: '1' }), 404, 'NOT_FOUND');
  });

  // Usage counters are each node's until its flush: the cluster pass reads node A's only.
  test.skipIf(ON_CLUSTER)('values never reach the logs; usage counts KV reads and writes', async () => {
    const usage = app.features.usage;
    await usage.flush();
    const before = (await usage.read(w.canvas.id, utcDay(Date.now()))) ?? { kvReads: 0, kvWrites: 0 };
    await put('/secret', { token: 'sekrit-value-123' });
    await get('/secret');
    await usage.flush();
    const after = (await usage.read(w.canvas.id, utcDay(Date.now())))!;
    expect(after.kvWrites - before.kvWrites).toBe(1);
    expect(after.kvReads - before.kvReads).toBe(1);
    expect(JSON.stringify(app.logs)).not.toContain('sekrit-value-123');
    const audit = JSON.stringify(await app.ctx.sql.all('SELECT * FROM audit_log'));
    expect(audit).not.toContain('sekrit-value-123');
  });

  describe('role matrix', () => {
    const expected: Record<Who, { read: number; write: number; own: number }> = {
      anonymous: { read: 401, write: 401, own: 401 },
      stranger: { read: 404, write: 404, own: 404 },
      admin: { read: 404, write: 404, own: 404 },
      viewer: { read: 200, write: 403, own: 200 },
      guest: { read: 200, write: 403, own: 200 },
      editor: { read: 200, write: 200, own: 200 },
      owner: { read: 200, write: 200, own: 200 },
    };
    for (const [who, want] of Object.entries(expected) as Array<[Who, (typeof expected)[Who]]>) {
      test(`${who}: shared read ${want.read}, shared write ${want.write}, per-viewer ${want.own}`, async () => {
        await put('/present', 7);
        const c = w.cookie[who];
        const routes: Array<[string, string, string | undefined, number]> = [
          ['GET', '/', undefined, want.read],
          ['GET', '/present', undefined, want.read],
          ['PUT', '/k', '1', want.write],
          ['POST', '/present/increment', '{}', want.write],
          ['DELETE', '/k', undefined, want.write],
          ['GET', '/user/', undefined, want.own],
          ['PUT', '/user/k', '1', want.own],
          ['GET', '/user/k', undefined, want.own],
          ['POST', '/user/k/increment', '{}', want.own],
          ['DELETE', '/user/k', undefined, want.own],
        ];
        for (const [method, path, payload, status] of routes) {
          const res = await kv(path, { method, cookie: c, body: payload });
          const b = await body(res);
          expect({ method, path, status: res.status }).toEqual({ method, path, status });
          if (status === 403) expect(b.code).toBe('PERMISSION_DENIED');
          if (status === 404) expect(b.code).toBe('OWNER_ONLY');
          if (status === 401) expect(b).toEqual({ error: 'unauthorized' });
        }
      });
    }
  });
});

describe('usage counters', () => {
  test.skipIf(ON_CLUSTER)('are counted in memory and folded into usage_daily by the 5 s timer, and at shutdown', async () => {
    const clock = new ManualClock();
    const app = await startTestApp({
      listen: true,
      now: clock.now,
      scheduler: clock.scheduler,
      env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_RATELIMIT_ENABLED: 'false' },
    });
    const flushes = recordEvents(app, 'usage.flushed');
    const usage = app.features.usage;
    const day = utcDay(clock.now());
    try {
      const w = await makeWorld(app);
      const kv = (init: RequestInit & { cookie?: string } = {}) => app.request(`/v1/c/${w.slug}/kv/counted`, init);
      expect(
        (await kv({ method: 'PUT', cookie: w.cookie.editor, body: '1', headers: { 'content-type': 'application/json' } })).status,
      ).toBe(200);
      expect((await kv({ cookie: w.cookie.viewer })).status).toBe(200);
      // Not written yet: a request does not pay for a write.
      clock.advance(4_999);
      expect(await usage.read(w.canvas.id, day)).toBeNull();
      clock.advance(1);
      await flushes.waitFor(() => true);
      expect(await usage.read(w.canvas.id, day)).toMatchObject({ kvReads: 1, kvWrites: 1 });
      // What is counted after the last tick is folded in at shutdown.
      expect((await kv({ cookie: w.cookie.viewer })).status).toBe(200);
    } finally {
      await app.close();
    }
    expect(flushes.seen.length).toBeGreaterThan(1);
    flushes.stop();
  });
});
