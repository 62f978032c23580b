// passes: embedded, cluster
// Insights without tracking (issue 39 item 3): page views, signed-in visitors
// (hashed per day, once across nodes), the busiest paths and runtime API
// calls per canvas and UTC day, counted in memory and written only by the
// flush (the timer's, or shutdown's); the insights route's rights and `days`.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setCollections } from './collections-fixtures.ts';
import { expectCode } from './expect-code.ts';
import { body, startTestApp, type TestApp } from './harness.ts';
import { ManualClock } from './manual-clock.ts';
import { connect } from './realtime-helpers.ts';
import { World, type Who } from './world.ts';

const DAY = 86_400_000;
const clock = new ManualClock(Date.UTC(2030, 4, 10, 8));
const w = new World({ reset: 'none', listen: true, now: clock.now, scheduler: clock.scheduler });
const today = () => new Date(clock.now()).toISOString().slice(0, 10);

const insights = async (who: Who = 'owner', query = '?days=2', canvasId = w.canvas.id) =>
  w.app.request(`/api/canvases/${canvasId}/insights${query}`, { cookie: w.cookie[who as keyof typeof w.cookie] });
const read = async (query = '?days=2') => {
  const res = await insights('owner', query);
  expect(res.status).toBe(200);
  return body(res);
};
/** A page as `who`, on one node (every node in turn on the cluster). */
const page = (node: TestApp, path: string, who: Who) =>
  node.request(`/c/${w.canvas.slug}/${path}`, { cookie: w.cookie[who as keyof typeof w.cookie] });
const flushAll = () => Promise.all(w.app.nodes.map((node) => node.features.insights.flush()));
const rows = async (table: string) =>
  Number((await w.app.ctx.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE canvas_id = ?1`, w.canvas.id))!.n);

beforeAll(async () => {
  await w.start();
  await w.deploy(w.canvas, { 'index.html': '<h1>home</h1>', 'about.html': '<h1>about</h1>', 'site.css': 'h1{}' });
});
afterAll(() => w.close());

describe('counting', () => {
  test('HTML 200s count as views, signed-in people and guests once a day on every node; nothing is written until the flush', async () => {
    for (const node of w.app.nodes) {
      for (const who of ['viewer', 'viewer', 'editor', 'guest'] as const) expect((await page(node, '', who)).status).toBe(200);
      expect((await page(node, 'about', 'viewer')).status).toBe(200);
      // Not views: a stylesheet, a missing page, a HEAD, a revalidation answered 304.
      expect((await page(node, 'site.css', 'viewer')).status).toBe(200);
      expect((await page(node, 'nowhere', 'viewer')).status).toBe(404);
      expect((await node.request(`/c/${w.canvas.slug}/`, { method: 'HEAD', cookie: w.cookie.viewer })).status).toBe(200);
      const etag = (await page(node, 'about', 'owner')).headers.get('etag')!;
      const revalidated = await node.request(`/c/${w.canvas.slug}/about`, { cookie: w.cookie.owner, headers: { 'if-none-match': etag } });
      expect(revalidated.status).toBe(304);
    }
    expect([await rows('insight_days'), await rows('insight_visitors'), await rows('insight_paths')]).toEqual([0, 0, 0]);

    await flushAll();
    const n = w.app.nodes.length;
    const got = await read();
    expect(got.days).toEqual([
      { date: new Date(clock.now() - DAY).toISOString().slice(0, 10), views: 0, visitors: 0 },
      { date: today(), views: 6 * n, visitors: 4 },
    ]);
    expect(got.topPaths).toEqual([
      { path: '/index.html', views: 4 * n },
      { path: '/about.html', views: 2 * n },
    ]);
    // Who is never stored: the visitor rows are hashes, not ids.
    const stored = await w.app.ctx.sql.all<{ visitor: string }>('SELECT visitor FROM insight_visitors WHERE canvas_id = ?1', w.canvas.id);
    expect(stored).toHaveLength(4);
    for (const { visitor } of stored) expect(Object.values(w.ids)).not.toContain(visitor);
  });

  test('a new UTC day counts its visitors afresh, with new hashes', async () => {
    const before = new Set(
      (await w.app.ctx.sql.all<{ visitor: string }>('SELECT visitor FROM insight_visitors WHERE canvas_id = ?1', w.canvas.id)).map(
        (r) => r.visitor,
      ),
    );
    clock.set(clock.now() + DAY);
    expect((await page(w.app.nodes[0]!, '', 'viewer')).status).toBe(200);
    await flushAll();
    const got = await read('?days=3');
    expect(got.days.map((d: { views: number; visitors: number }) => [d.views, d.visitors])).toEqual([
      [0, 0],
      [6 * w.app.nodes.length, 4],
      [1, 1],
    ]);
    const fresh = await w.app.ctx.sql.all<{ visitor: string }>(
      'SELECT visitor FROM insight_visitors WHERE canvas_id = ?1 AND day = ?2',
      w.canvas.id,
      today(),
    );
    expect(fresh).toHaveLength(1);
    expect(before.has(fresh[0]!.visitor)).toBe(false);
  });

  test('runtime API calls per capability: kv, files, collections, submissions, a realtime connection once', async () => {
    await setCollections(w, { poll: { preset: 'collaborative' } });
    const rt = (path: string, init: RequestInit & { json?: unknown } = {}) =>
      w.app.request(`/v1/c/${w.canvas.slug}${path}`, { cookie: w.cookie.editor, ...init });
    const before = (await read()).api;
    expect((await rt('/kv/a', { method: 'PUT', json: 1 })).status).toBe(200);
    expect((await rt('/kv/a')).status).toBe(200);
    expect((await rt('/collections/poll', { method: 'POST', json: { choice: 'pie' } })).status).toBe(201);
    expect((await rt('/submissions/signup/mine', { method: 'PUT', json: { dish: 'soup' } })).status).toBe(200);
    const form = new FormData();
    form.append('file', new Blob(['x']), 'x.txt');
    expect((await rt('/files', { method: 'POST', body: form })).status).toBe(201);
    const socket = await connect(w.app, w.canvas.slug, w.cookie.editor);
    await socket.subscribe('room');
    await socket.close();
    await flushAll();
    const after = (await read()).api;
    expect(Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - before[k]]))).toEqual({
      kv: 2,
      files: 1,
      ai: 0,
      realtime: 1,
      collections: 1,
      submissions: 1,
    });
  });

  test('the timer flushes: a view is in the route once the interval passed', async () => {
    const views = (await read('?days=1')).days[0].views;
    expect((await page(w.app.nodes[0]!, '', 'owner')).status).toBe(200);
    const flushed = new Promise<void>((resolve) => {
      const off = w.app.onEvent('insights.flushed', () => {
        off();
        resolve();
      });
    });
    clock.advance(10_000);
    await flushed;
    expect((await read('?days=1')).days[0].views).toBe(views + 1);
  });

  test('housekeeping removes days older than 400', async () => {
    const old = new Date(clock.now() - 400 * DAY).toISOString().slice(0, 10);
    await w.app.ctx.sql.run('INSERT INTO insight_days (canvas_id, day, views) VALUES (?1, ?2, 5)', w.canvas.id, old);
    await w.app.ctx.sql.run("INSERT INTO insight_visitors (canvas_id, day, visitor) VALUES (?1, ?2, 'h')", w.canvas.id, old);
    const kept = new Date(clock.now() - 399 * DAY).toISOString().slice(0, 10);
    await w.app.ctx.sql.run('INSERT INTO insight_days (canvas_id, day, views) VALUES (?1, ?2, 7)', w.canvas.id, kept);
    expect((await w.app.features.housekeeping.sweep()).insightRows).toBe(2);
    const got = await read('?days=400');
    expect(got.days).toHaveLength(400);
    expect(got.days[0]).toEqual({ date: kept, views: 7, visitors: 0 });
  });
});

describe('the insights route', () => {
  test('owners, editors and admins (and their tokens); viewers and strangers 404; signed out 401', async () => {
    for (const who of ['owner', 'editor', 'admin'] as const)
      expect({ who, status: (await insights(who)).status }).toEqual({ who, status: 200 });
    for (const who of ['viewer', 'stranger'] as const) await expectCode(await insights(who), 404, 'NOT_FOUND');
    await expectCode(await insights('owner', '', 'no-such-canvas'), 404, 'NOT_FOUND');
    expect((await w.app.request(`/api/canvases/${w.canvas.id}/insights`)).status).toBe(401);
    // A personal access token acts as its person.
    for (const [who, status] of [
      ['owner', 200],
      ['viewer', 404],
    ] as const) {
      const { token } = await body(await w.request(who, '/api/tokens', { method: 'POST', json: { name: 'insights' } }));
      const res = await w.app.request(`/api/canvases/${w.canvas.id}/insights`, { headers: { authorization: `Bearer ${token}` } });
      expect({ who, status: res.status }).toEqual({ who, status });
    }
    const res = await insights('owner', '');
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const got = await body(res);
    expect(got.days).toHaveLength(30);
    expect(got.days.at(-1).date).toBe(today());
  });

  test('days outside 1–400, not a whole number, or another parameter: 400 INVALID_BODY', async () => {
    for (const query of ['?days=0', '?days=401', '?days=-1', '?days=1.5', '?days=abc', '?days=', '?days=3&x=1', '?days=99999'])
      await expectCode(await insights('owner', query), 400, 'INVALID_BODY');
    expect((await body(await insights('owner', '?days=1'))).days).toHaveLength(1);
  });
});

test('shutdown flushes: counts made just before a stop are there after the restart', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'easel-insights-restart-'));
  try {
    const first = await new World({ reset: 'none', dataDir }).start();
    await first.deploy();
    expect((await first.app.request(`/c/${first.canvas.slug}/`, { cookie: first.cookie.viewer })).status).toBe(200);
    await first.close();
    const again = await startTestApp({ dataDir });
    try {
      const res = await again.request(`/api/canvases/${first.canvas.id}/insights?days=1`, { cookie: first.cookie.owner });
      expect((await body(res)).days[0]).toMatchObject({ views: 1, visitors: 1 });
    } finally {
      await again.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
