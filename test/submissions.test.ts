// passes: embedded, cluster
// Submissions (spec: Submission record, Submissions rules, Limits / KV and
// submissions; CONTRACT §9): one record per person and collection, through
// the real app and the World's cast.
import { describe, expect, test } from 'bun:test';
import { expectCode } from './expect-code.ts';
import { body, ON_CLUSTER } from './harness.ts';
import { useWorld, type World } from './world.ts';
import { tx } from '../src/db/sql.ts';

const ON = { backend: true, kv: true };
type P = 'owner' | 'editor' | 'viewer' | 'viewer2' | 'guest';

const path = (w: World, rest = '', collection = 'poll') => `/v1/c/${w.canvas.slug}/submissions/${collection}${rest}`;
const submit = (w: World, who: P, value: unknown, collection = 'poll') => w.expectOk('PUT', path(w, '/mine', collection), who, value);
const raw = (w: World, who: P, text: string, type = 'application/json', collection = 'poll') =>
  w.request(who, path(w, '/mine', collection), { method: 'PUT', body: text, headers: { 'content-type': type } });

describe('submissions: mine', () => {
  const w = useWorld({ canvas: { capabilities: ON } });

  test('PUT mine upserts {userId, value, updatedAt}; GET mine reads it back; JSON null is a value', async () => {
    const res = await w.request('viewer', path(w, '/mine'), { method: 'PUT', json: { choice: 'a' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(await body(res)).toEqual({ userId: w.ids.viewer, value: { choice: 'a' }, updatedAt: expect.any(Number) });
    for (const value of [{ choice: 'b' }, null, 0, 'text', [1, 2], false]) {
      expect(await submit(w, 'viewer', value)).toEqual({ userId: w.ids.viewer, value, updatedAt: expect.any(Number) });
      expect(await w.expectOk('GET', path(w, '/mine'), 'viewer')).toEqual({ userId: w.ids.viewer, value, updatedAt: expect.any(Number) });
    }
    const rows = await w.app.ctx.sql.all('SELECT user_id FROM submissions WHERE canvas_id = ?1', w.canvas.id);
    expect(rows).toEqual([{ user_id: w.ids.viewer }]);
  });

  test('one record per person and collection', async () => {
    await submit(w, 'viewer', 1);
    await submit(w, 'viewer2', 2);
    await submit(w, 'viewer', 3, 'other.poll_2-x');
    expect((await w.expectOk('GET', path(w, '/mine'), 'viewer')).value).toBe(1);
    expect((await w.expectOk('GET', path(w, '/mine'), 'viewer2')).value).toBe(2);
    expect((await w.expectOk('GET', path(w, '/mine', 'other.poll_2-x'), 'viewer')).value).toBe(3);
    await expectCode(await w.request('viewer2', path(w, '/mine', 'other.poll_2-x')), 404, 'NOT_FOUND');
  });

  test('GET mine without one is 404 NOT_FOUND; DELETE mine is idempotent', async () => {
    const none = await w.request('viewer', path(w, '/mine'));
    expect(none.headers.get('cache-control')).toBe('private, no-store');
    await expectCode(none, 404, 'NOT_FOUND');
    await submit(w, 'viewer', 1);
    for (let i = 0; i < 2; i++) expect(await w.expectOk('DELETE', path(w, '/mine'), 'viewer')).toEqual({ ok: true });
    await expectCode(await w.request('viewer', path(w, '/mine')), 404, 'NOT_FOUND');
  });

  test('a guest submits under their guest id; an owner removes it by that id', async () => {
    expect((await submit(w, 'guest', 'g')).userId).toBe(w.ids.guest);
    expect((await w.expectOk('GET', path(w), 'owner')).entries.map((e: any) => e.userId)).toEqual([w.ids.guest]);
    await w.expectOk('DELETE', path(w, `/${encodeURIComponent(w.ids.guest)}`), 'owner');
    await expectCode(await w.request('guest', path(w, '/mine')), 404, 'NOT_FOUND');
  });

  test('bodies: empty, bad JSON or another content type is 400; over 64 KiB as sent (transport included) is 413', async () => {
    for (const text of ['', ' ', '{oops', 'undefined']) await expectCode(await raw(w, 'viewer', text), 400, 'INVALID_BODY');
    await expectCode(await raw(w, 'viewer', '1', 'text/plain'), 400, 'INVALID_BODY');
    const limit = 64 * 1024;
    expect((await raw(w, 'viewer', JSON.stringify('x'.repeat(limit - 2)))).status).toBe(200);
    await expectCode(await raw(w, 'viewer', JSON.stringify('x'.repeat(limit - 1))), 413, 'VALUE_TOO_LARGE');
    // Whitespace counts: the cap is on the body as sent.
    await expectCode(await raw(w, 'viewer', `${' '.repeat(limit)}1`), 413, 'VALUE_TOO_LARGE');
    // A body whose value grows when serialized again is held to the same cap.
    const growing = `[${Array(16_383).fill('1e9').join(',')}]`;
    expect(growing.length).toBeLessThanOrEqual(limit);
    await expectCode(await raw(w, 'viewer', growing), 413, 'VALUE_TOO_LARGE');
    expect((await w.expectOk('GET', path(w, '/mine'), 'viewer')).value).toBe('x'.repeat(limit - 2));
  });
});

describe('submissions: owners and editors', () => {
  const w = useWorld({ canvas: { capabilities: ON } });

  test('the list is for owners and editors, ordered by userId, paged with limit and cursor', async () => {
    for (const who of ['viewer', 'viewer2', 'editor', 'owner', 'guest'] as const) await submit(w, who, who);
    const ids = (['viewer', 'viewer2', 'editor', 'owner', 'guest'] as const).map((who) => w.ids[who]).sort();
    for (const who of ['owner', 'editor'] as const) {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: any = await w.expectOk('GET', path(w, `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`), who);
        for (const e of page.entries) expect(e).toEqual({ userId: e.userId, value: expect.any(String), updatedAt: expect.any(Number) });
        seen.push(...page.entries.map((e: any) => e.userId));
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen).toEqual(ids);
      const all = await w.expectOk('GET', path(w), who);
      expect(all.nextCursor).toBeNull();
      expect(all.entries.map((e: any) => e.userId)).toEqual(ids);
    }
    for (const who of ['viewer', 'viewer2', 'guest'] as const) await expectCode(await w.request(who, path(w)), 403, 'PERMISSION_DENIED');
  });

  test("DELETE {userId}: owners and editors remove anyone's, a viewer only their own; idempotent", async () => {
    await submit(w, 'viewer', 1);
    await submit(w, 'viewer2', 2);
    await expectCode(await w.request('viewer', path(w, `/${w.ids.viewer2}`), { method: 'DELETE' }), 403, 'PERMISSION_DENIED');
    expect(await w.expectOk('DELETE', path(w, `/${w.ids.viewer}`), 'viewer')).toEqual({ ok: true });
    expect(await w.expectOk('DELETE', path(w, `/${w.ids.viewer2}`), 'editor')).toEqual({ ok: true });
    expect(await w.expectOk('DELETE', path(w, `/${w.ids.viewer2}`), 'owner')).toEqual({ ok: true });
    expect(await w.expectOk('DELETE', path(w, '/no-such-user'), 'owner')).toEqual({ ok: true });
    expect((await w.expectOk('GET', path(w), 'owner')).entries).toEqual([]);
  });

  test('DELETE the collection clears it, for owners and editors only; other collections stay', async () => {
    await submit(w, 'viewer', 1);
    await submit(w, 'viewer2', 2);
    await submit(w, 'viewer', 3, 'kept');
    for (const who of ['viewer', 'guest'] as const)
      await expectCode(await w.request(who, path(w), { method: 'DELETE' }), 403, 'PERMISSION_DENIED');
    expect(await w.expectOk('DELETE', path(w), 'editor')).toEqual({ ok: true });
    expect((await w.expectOk('GET', path(w), 'owner')).entries).toEqual([]);
    expect((await w.expectOk('GET', path(w, '/mine', 'kept'), 'viewer')).value).toBe(3);
  });

  test('the audit log holds who, which collection and whose, never values', async () => {
    await submit(w, 'viewer', { secret: 'hunter2-value' });
    await submit(w, 'viewer', { secret: 'hunter2-value' });
    await w.expectOk('DELETE', path(w, `/${w.ids.viewer}`), 'owner');
    await submit(w, 'viewer2', 'hunter2-value');
    await w.expectOk('DELETE', path(w, '/mine'), 'viewer2');
    await submit(w, 'viewer2', 'hunter2-value');
    await w.expectOk('DELETE', path(w), 'editor');
    const rows = (await w.app.ctx.audit.forCanvas(w.canvas.id)).filter((r) => r.action.startsWith('submission'));
    expect(JSON.stringify(rows)).not.toContain('hunter2');
    expect(rows.reverse().map((r) => [r.action, r.actorId, r.detail])).toEqual([
      ['submission.saved', w.ids.viewer, { collection: 'poll', userId: w.ids.viewer, created: true }],
      ['submission.saved', w.ids.viewer, { collection: 'poll', userId: w.ids.viewer, created: false }],
      ['submission.removed', w.ids.owner, { collection: 'poll', userId: w.ids.viewer }],
      ['submission.saved', w.ids.viewer2, { collection: 'poll', userId: w.ids.viewer2, created: true }],
      ['submission.withdrawn', w.ids.viewer2, { collection: 'poll', userId: w.ids.viewer2 }],
      ['submission.saved', w.ids.viewer2, { collection: 'poll', userId: w.ids.viewer2, created: true }],
      ['submissions.cleared', w.ids.editor, { collection: 'poll', deleted: 1 }],
    ]);
  });
});

describe('submissions: malformed input is 400 INVALID_BODY', () => {
  const w = useWorld({ canvas: { capabilities: ON } });

  test('collection names: 1-80 letters, digits, ".", "_" or "-", alphanumeric first', async () => {
    for (const good of ['a', 'x'.repeat(80), 'A.b_c-1', '9lives']) expect((await submit(w, 'viewer', 1, good)).value).toBe(1);
    const bad = ['-x', '.x', '_x', 'a:b', 'a b', 'x'.repeat(81), 'é', 'a%2Fb', '%E0%A4%A'];
    for (const name of bad) {
      const seg = name.startsWith('%') || name.includes('%2F') ? name : encodeURIComponent(name);
      const base = `/v1/c/${w.canvas.slug}/submissions/${seg}`;
      for (const [method, p, who] of [
        ['PUT', `${base}/mine`, 'viewer'],
        ['GET', `${base}/mine`, 'viewer'],
        ['DELETE', `${base}/mine`, 'viewer'],
        ['GET', base, 'owner'],
        ['DELETE', `${base}/${w.ids.viewer}`, 'owner'],
        ['DELETE', base, 'owner'],
      ] as const) {
        const res = await w.request(who, p, { method, ...(method === 'PUT' ? { json: 1 } : {}) });
        expect({ name, method, p, status: res.status }).toEqual({ name, method, p, status: 400 });
        await expectCode(res, 400, 'INVALID_BODY');
      }
    }
  });

  test('limits, cursors and user ids', async () => {
    await submit(w, 'viewer', 1);
    const bad = [
      ...['0', '1001', '-1', '1.5', 'abc', '', '1e2', ' 5'].map((l) => path(w, `?limit=${encodeURIComponent(l)}`)),
      ...['a b', 'x'.repeat(129), 'a_b', 'a.b', 'é'].map((c) => path(w, `?cursor=${encodeURIComponent(c)}`)),
      path(w, '?cursor=%E0%A4%A'),
    ];
    for (const p of bad) {
      const res = await w.request('owner', p);
      expect({ p, status: res.status }).toEqual({ p, status: 400 });
      await expectCode(res, 400, 'INVALID_BODY');
    }
    for (const id of ['a_b', 'x'.repeat(129), 'a.b', 'é', '%E0%A4%A']) {
      const res = await w.request('owner', path(w, `/${id.startsWith('%') ? id : encodeURIComponent(id)}`), { method: 'DELETE' });
      await expectCode(res, 400, 'INVALID_BODY');
    }
    // At the edges: 1000, 1, a 128-character cursor.
    expect((await w.expectOk('GET', path(w, '?limit=1000'), 'owner')).entries).toHaveLength(1);
    expect((await w.expectOk('GET', path(w, `?limit=1&cursor=${'z'.repeat(128)}`), 'owner')).entries).toEqual([]);
    expect((await w.expectOk('GET', path(w, '?cursor='), 'owner')).entries).toHaveLength(1);
    expect((await w.expectOk('DELETE', path(w, `/${'z'.repeat(128)}`), 'owner')).ok).toBe(true);
  });
});

describe('submissions: quotas, capability and KV', () => {
  const w = useWorld({ canvas: { capabilities: ON } });
  // Direct inserts, on purpose: reaching 10,000 submissions through the API is 10,000 requests with 10,000 people.
  const insert = (userIds: string[], collection = 'poll') =>
    w.app.ctx.sql.write(function* () {
      for (const u of userIds)
        yield* tx.run(
          'INSERT INTO submissions (canvas_id, collection, user_id, value, updated_at) VALUES (?1, ?2, ?3, ?4, 0)',
          w.canvas.id,
          collection,
          u,
          '1',
        );
    });

  test('10,000 per canvas across collections: a new one is 409 KEY_LIMIT; updates and withdrawals still work at the limit', async () => {
    await submit(w, 'viewer', 'v');
    await insert(
      Array.from({ length: 5000 }, (_, i) => `u${i}`),
      'a',
    );
    await insert(
      Array.from({ length: 4999 }, (_, i) => `u${i}`),
      'b',
    );
    const refused = await expectCode(await w.request('viewer2', path(w, '/mine'), { method: 'PUT', json: 1 }), 409, 'KEY_LIMIT');
    expect(refused.quota).toBe('kv.keys.shared');
    expect((await submit(w, 'viewer', 'updated')).value).toBe('updated');
    expect(await w.expectOk('DELETE', path(w, '/mine'), 'viewer')).toEqual({ ok: true });
    expect((await submit(w, 'viewer2', 'now')).value).toBe('now');
    await expectCode(await w.request('viewer', path(w, '/mine'), { method: 'PUT', json: 1 }), 409, 'KEY_LIMIT');
  });

  test('1,000 per author across collections: that author is refused a new one, others are not', async () => {
    for (let i = 0; i < 999; i++) await insert([w.ids.viewer], `c${i}`);
    await submit(w, 'viewer', 1);
    const refused = await expectCode(await w.request('viewer', path(w, '/mine', 'one-more'), { method: 'PUT', json: 1 }), 409, 'KEY_LIMIT');
    expect(refused.quota).toBe('kv.keys.user');
    expect((await submit(w, 'viewer', 2)).value).toBe(2);
    expect((await submit(w, 'viewer2', 1, 'one-more')).userId).toBe(w.ids.viewer2);
    await w.expectOk('DELETE', path(w, '/mine'), 'viewer');
    expect((await submit(w, 'viewer', 1, 'one-more')).value).toBe(1);
  });

  test('kv off: 403 CAPABILITY_DISABLED', async () => {
    await w.capabilities({ kv: false });
    const b = await expectCode(await w.request('viewer', path(w, '/mine')), 403, 'CAPABILITY_DISABLED');
    expect(b.capability).toBe('kv');
  });

  test('the pipeline runs first: 401 without a session, 404 OWNER_ONLY for a stranger or an admin', async () => {
    expect((await w.request('anonymous', path(w, '/mine'), { method: 'PUT', json: 1 })).status).toBe(401);
    await expectCode(await w.request('stranger', path(w, '/mine'), { method: 'PUT', json: 1 }), 404, 'OWNER_ONLY');
    await expectCode(await w.request('admin', path(w)), 404, 'OWNER_ONLY');
  });

  // Usage counters are each node's until its flush: the cluster pass reads node A's only.
  test.skipIf(ON_CLUSTER)("KV's usage counters; per-viewer KV is never exposed", async () => {
    await w.expectOk('PUT', `/v1/c/${w.canvas.slug}/kv/user/poll`, 'viewer', 'pref');
    await expectCode(await w.request('viewer', path(w, '/mine')), 404, 'NOT_FOUND');
    expect((await w.expectOk('GET', path(w), 'owner')).entries).toEqual([]);
    await submit(w, 'viewer', 1);
    await w.app.features.usage.flush();
    const day = new Date(w.app.ctx.now()).toISOString().slice(0, 10);
    // Reads: the GET mine and the list; writes: the KV put and the submission.
    expect(await w.app.features.usage.read(w.canvas.id, day)).toMatchObject({ kvReads: 2, kvWrites: 2 });
  });
});
