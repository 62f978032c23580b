// passes: embedded — one node's own counters
// GET /metrics (issue 20 item 3): who may read it, and that each series moves
// when the thing it counts happens (requests, deploys, KV, realtime, AI,
// rate-limit refusals, sizes, process figures).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { routeClassOf } from '../src/metrics/route-class.ts';
import { AI_KEY, ask, makeAiWorld, MODEL, sseEvents, type AiWorld } from './ai-fixtures.ts';
import { SECRET_KEY_HEX } from './connections-fixtures.ts';
import { expectCode } from './expect-code.ts';
import { startFakeAnthropic, type FakeAnthropic } from './fake-anthropic.ts';
import { connect } from './realtime-helpers.ts';
import { stagedDeploy } from './upload-fixtures.ts';
import { ADMIN_EMAIL, World } from './world.ts';

const TOKEN = 'metrics-token-0123456789abcdef';

/** `name{a="1",b="2"}` → value, with labels in sorted order so lookups need not know prom-client's order. */
function parse(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not exposition format: ${line}`);
    const labels = m[2] ? [...m[2].matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, k, v]) => `${k}="${v}"`).sort() : [];
    out.set(`${m[1]}{${labels.join(',')}}`, Number(m[3]));
  }
  return out;
}

const key = (name: string, labels: Record<string, string> = {}) =>
  `${name}{${Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
    .join(',')}}`;

describe('GET /metrics', () => {
  const w = new World({
    listen: true,
    reset: 'none',
    env: {
      EASEL_ADMIN_EMAILS: ADMIN_EMAIL,
      EASEL_METRICS_TOKEN: TOKEN,
      EASEL_RATELIMIT_ENABLED: 'true',
      EASEL_RATELIMIT_DEPLOY_PER_MIN: '3',
    },
  });
  beforeAll(() => w.start());
  afterAll(() => w.close());

  async function scrape(): Promise<Map<string, number>> {
    const res = await w.app.request('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    return parse(await res.text());
  }
  const value = (m: Map<string, number>, name: string, labels: Record<string, string> = {}) => m.get(key(name, labels)) ?? 0;

  test('the token or an admin session reads it; nobody else, and a wrong token is 401 without echoing anything', async () => {
    expect((await w.app.request('/metrics', { cookie: w.cookie.admin })).status).toBe(200);
    for (const [who, init] of [
      ['anonymous', {}],
      ['a member', { cookie: w.cookie.owner }],
      ['a wrong token', { headers: { authorization: 'Bearer metrics-token-0123456789abcdeX' } }],
      ['the token as a cookie', { cookie: `token=${TOKEN}` }],
    ] as const) {
      const res = await w.app.request('/metrics', init);
      expect({ who, status: res.status, auth: res.headers.get('www-authenticate') }).toEqual({
        who,
        status: 401,
        auth: 'Bearer realm="easel metrics"',
      });
      const text = await res.text();
      expect(JSON.parse(text)).toEqual({ error: 'unauthorized' });
      expect(text).not.toContain(TOKEN);
    }
  });

  test('requests are counted by route class, method and status, with latency buckets', async () => {
    const before = await scrape();
    for (let i = 0; i < 3; i++) expect((await w.app.request('/healthz')).status).toBe(200);
    await w.app.request(`/v1/c/${w.canvas.slug}/kv/missing`, { cookie: w.cookie.viewer });
    const after = await scrape();
    const health = { route: 'health', method: 'GET', status: '200' };
    expect(
      value(after, 'easel_http_request_duration_seconds_count', health) -
        value(before, 'easel_http_request_duration_seconds_count', health),
    ).toBe(3);
    expect(value(after, 'easel_http_request_duration_seconds_bucket', { ...health, le: '+Inf' })).toBe(
      value(after, 'easel_http_request_duration_seconds_count', health),
    );
    expect(
      value(after, 'easel_http_request_duration_seconds_count', { route: 'runtime_kv', method: 'GET', status: '404' }),
    ).toBeGreaterThanOrEqual(1);
  });

  test('deploys by source and outcome, their bytes and duration; rate-limit refusals by class', async () => {
    const before = await scrape();
    const c = await w.newCanvas({ guest: false, members: false });
    const zipped = await w.deploy(c, { 'index.html': '<h1>one</h1>', 'a.js': 'let a = 1;' });
    await stagedDeploy(
      w.app,
      { id: c.id, key: c.apiKey, slug: c.slug, ownerId: '', ownerCookie: w.cookie.owner },
      { 'index.html': '<h1>two</h1>' },
    );
    // The deploy class allows 3 a minute here: empty bodies (400) until one is throttled.
    let throttled = 0;
    for (let i = 0; i < 5 && throttled === 0; i++) {
      const res = await w.app.request(`/v1/canvases/${c.id}/deploy`, {
        method: 'PUT',
        body: new Uint8Array(0),
        headers: { authorization: `Bearer ${c.apiKey}` },
      });
      if (res.status === 429) throttled++;
      else expect(res.status).toBe(400);
    }
    expect(throttled).toBe(1);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => value(after, name, labels) - value(before, name, labels);
    expect(delta('easel_deploys_total', { source: 'api', outcome: 'published' })).toBe(1);
    expect(delta('easel_deploys_total', { source: 'upload', outcome: 'published' })).toBe(1);
    expect(delta('easel_deploy_bytes_total', { source: 'api' })).toBe(zipped.totalBytes);
    expect(delta('easel_deploy_duration_seconds_count', { source: 'upload' })).toBe(1);
    expect(delta('easel_ratelimit_refusals_total', { class: 'deploy' })).toBe(1);
  });

  test('realtime sockets and frames; process memory and event-loop lag', async () => {
    await w.capabilities({ realtime: true });
    const before = await scrape();
    const a = await connect(w.app, w.canvas.slug, w.cookie.editor);
    const b = await connect(w.app, w.canvas.slug, w.cookie.viewer);
    await a.subscribe('room');
    await b.subscribe('room');
    a.send({ type: 'publish', channel: 'room', data: { hi: 1 } });
    await b.next((f) => f.type === 'message');
    const during = await scrape();
    expect(value(during, 'easel_realtime_connections')).toBe(2);
    expect(
      value(during, 'easel_realtime_messages_total', { type: 'message' }) -
        value(before, 'easel_realtime_messages_total', { type: 'message' }),
    ).toBe(1);
    expect(value(during, 'easel_realtime_messages_total', { type: 'join' })).toBeGreaterThanOrEqual(2);
    await a.close();
    await b.close();
    expect(value(during, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(during.get(key('easel_event_loop_lag_max_seconds'))).toBeGreaterThanOrEqual(0);
    expect(value(during, 'process_open_fds')).toBeGreaterThan(2);
  });
});

describe('GET /metrics without EASEL_METRICS_TOKEN', () => {
  const w = new World({ reset: 'none', env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL } });
  beforeAll(() => w.start());
  afterAll(() => w.close());

  // First in its block: the blob store is walked at most once a minute, so an earlier scrape would pin the figure.
  test('database, WAL and blob store sizes', async () => {
    await w.deploy(w.canvas, { 'index.html': '<h1>sized</h1>', 'data.bin': new Uint8Array(5000) });
    const metrics = parse(await (await w.app.request('/metrics', { cookie: w.cookie.admin })).text());
    expect(metrics.get(key('easel_sqlite_database_bytes'))).toBeGreaterThan(0);
    expect(metrics.has(key('easel_sqlite_wal_bytes'))).toBe(true);
    expect(metrics.get(key('easel_blob_bytes'))).toBe(5000 + '<h1>sized</h1>'.length);
    expect(metrics.get(key('easel_blob_files'))).toBe(2);
    expect(metrics.get(key('easel_disk_free_bytes'))).toBeGreaterThan(0);
  });

  test('is for admins only, answering like the admin routes (401 signed out, 404 to others); a bearer token is not a way in', async () => {
    expect((await w.app.request('/metrics', { cookie: w.cookie.admin })).status).toBe(200);
    await expectCode(await w.app.request('/metrics', { cookie: w.cookie.owner }), 404, 'NOT_FOUND');
    for (const init of [{}, { headers: { authorization: `Bearer ${TOKEN}` } }]) {
      const res = await w.app.request('/metrics', init);
      expect({ status: res.status, body: await res.json() }).toEqual({ status: 401, body: { error: 'unauthorized' } });
    }
  });
});

describe('AI calls, tokens and spend', () => {
  let ai: AiWorld;
  beforeAll(async () => {
    ai = await makeAiWorld();
  });
  afterAll(() => ai.close());

  test('a settled call counts by model and outcome, with its tokens and cost', async () => {
    const res = await ai.chat(ask());
    const events = await sseEvents(res);
    const done = events.find((e) => e.type === 'done');
    const metrics = parse(await (await ai.app.request('/metrics', { cookie: ai.cookie.admin })).text());
    expect(metrics.get(key('easel_ai_calls_total', { model: MODEL, outcome: 'ok' }))).toBe(1);
    expect(metrics.get(key('easel_ai_tokens_total', { model: MODEL, direction: 'input' }))).toBe(done.usage.inputTokens);
    expect(metrics.get(key('easel_ai_tokens_total', { model: MODEL, direction: 'output' }))).toBe(done.usage.outputTokens);
    expect(metrics.get(key('easel_ai_spend_usd_total', { model: MODEL }))).toBeCloseTo(done.cost, 9);
  });
});

describe('promtool check metrics', () => {
  let fake: FakeAnthropic;
  let w: World;
  beforeAll(async () => {
    fake = await startFakeAnthropic();
    w = new World({
      listen: true,
      reset: 'none',
      env: {
        EASEL_ADMIN_EMAILS: ADMIN_EMAIL,
        EASEL_RATELIMIT_ENABLED: 'true',
        EASEL_RATELIMIT_DEPLOY_PER_MIN: '1',
        EASEL_AI_API_KEY: AI_KEY,
        EASEL_AI_BASE_URL: fake.url,
        EASEL_SECRET_KEY: SECRET_KEY_HEX,
      },
    });
    await w.start();
  });
  afterAll(async () => {
    await w.close();
    fake.close();
  });

  test('a scrape in which every metric family has samples passes, with no warning', async () => {
    // Something for every family that counts events: a deploy and a throttled one, realtime frames, an AI call.
    const c = await w.newCanvas({ guest: false, members: true, capabilities: { realtime: true, ai: true } });
    await w.deploy(c, { 'index.html': '<h1>scraped</h1>' });
    const throttled = await w.app.request(`/v1/canvases/${c.id}/deploy`, {
      method: 'PUT',
      body: new Uint8Array(0),
      headers: { authorization: `Bearer ${c.apiKey}` },
    });
    expect(throttled.status).toBe(429);
    const a = await connect(w.app, c.slug, w.cookie.editor);
    await a.subscribe('room');
    await a.close();
    const chat = await w.app.request(`/v1/c/${c.slug}/ai/chat`, {
      method: 'POST',
      cookie: w.cookie.editor,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ask()),
    });
    expect((await sseEvents(chat)).at(-1).type).toBe('done');

    const text = await (await w.app.request('/metrics', { cookie: w.cookie.admin })).text();
    const families = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => m[1]!);
    expect(families.length).toBeGreaterThan(20);
    const sampled = new Set(
      text
        .split('\n')
        .filter((l) => l !== '' && !l.startsWith('#'))
        .map((l) => /^[a-zA-Z_:][\w:]*/.exec(l)![0]),
    );
    const empty = families.filter((f) => ![f, `${f}_bucket`, `${f}_count`].some((name) => sampled.has(name)));
    expect(empty).toEqual([]);

    const check = Bun.spawnSync(['promtool', 'check', 'metrics'], { stdin: new TextEncoder().encode(text) });
    const said = `${check.stdout.toString()}${check.stderr.toString()}`;
    expect({ exitCode: check.exitCode, said }).toEqual({ exitCode: 0, said: '' });
  });
});

test('route classes: a fixed set, canvas hosts are pages, runtime split by primitive', () => {
  const suffix = '.canvas.test';
  expect(routeClassOf('http://x.canvas.test/app.js', 'x.canvas.test:8080', suffix)).toBe('page');
  expect(routeClassOf('http://x.canvas.test/v1/c/x/kv/a', 'x.canvas.test', suffix)).toBe('runtime_kv');
  expect(routeClassOf('http://x.canvas.test/sdk/v1.js', 'x.canvas.test', suffix)).toBe('sdk');
  expect(routeClassOf('http://easel.test/c/x/index.html?y=1', 'easel.test', null)).toBe('page');
  expect(routeClassOf('http://easel.test/v1/c/x/collections/notes/records', 'easel.test', null)).toBe('runtime_collections');
  expect(routeClassOf('http://easel.test/v1/c/x/../../etc', 'easel.test', null)).toBe('runtime_other');
  expect(routeClassOf('http://easel.test/v1/canvases/abc/deploy', 'easel.test', null)).toBe('deploy');
  expect(routeClassOf('http://easel.test/api/admin/users', 'easel.test', null)).toBe('admin');
  expect(routeClassOf('http://easel.test/api/canvases', 'easel.test', null)).toBe('api');
  expect(routeClassOf('http://easel.test/some/random/path', 'easel.test', null)).toBe('dashboard');
});
