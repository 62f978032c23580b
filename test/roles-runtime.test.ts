// passes: embedded, cluster
// The role matrix of every runtime route (spec "Runtime API", "Runtime
// pipeline", KV/Files/AI/Connections rules): each request asked by the whole
// cast, on a restricted canvas with its capabilities on. Pipeline order:
// the gateway (401 without a session; a deploy key is not one), then the
// canvas (404 OWNER_ONLY for the stranger and for an admin, who has no
// bypass), then the capability, then the role (403 PERMISSION_DENIED), then
// the body. Every refused write proves it stored nothing.
import { afterAll, describe, expect, test } from 'bun:test';
import { startFakeAnthropic } from './fake-anthropic.ts';
import { makeCert, startUpstream, UPSTREAM_HOST } from './connections-fixtures.ts';
import { handshake } from './realtime-helpers.ts';
import { matrix, scenario, type Expected } from './scenario.ts';
import { CAST, useWorld, type Who, type World } from './world.ts';

const ANON: Expected = { status: 401, error: 'unauthorized' };
const OWNER_ONLY: Expected = { status: 404, code: 'OWNER_ONLY' };
const DENIED: Expected = { status: 403, code: 'PERMISSION_DENIED' };
const nothing = (w: World) => w.stored();
const ON = { backend: true, kv: true, files: true, ai: true, realtime: true };

/** Everyone admitted (owner, editor, viewer, the canvas's guest) gets `ok`; the rest are turned away by the pipeline. */
const admitted = (ok: Expected | ((who: Who) => Expected)): Record<Who, Expected> => {
  const at = (who: Who) => (typeof ok === 'function' ? ok(who) : ok);
  return {
    anonymous: ANON,
    stranger: OWNER_ONLY,
    viewer: at('viewer'),
    editor: at('editor'),
    owner: at('owner'),
    admin: OWNER_ONLY,
    guest: at('guest'),
    otherKey: ANON,
  };
};
/** Owners and editors may; viewers and guests are refused with `refused`. */
const managers = (ok: Expected, refused: Expected = DENIED) => admitted((who) => (who === 'owner' || who === 'editor' ? ok : refused));

const json = (value: unknown): Expected => ({ status: 200, check: (b) => expect(b).toEqual(value) });
const putKv = (key: string, value: unknown) => (w: World) =>
  w.expectOk('PUT', `/v1/c/${w.canvas.slug}/kv/${key}`, 'editor', value).then(() => undefined);

describe('runtime: identity and the pipeline', () => {
  const w = useWorld({ canvas: { capabilities: ON } });
  const roleOf: Record<Who, string> = {
    ...({} as Record<Who, string>),
    owner: 'owner',
    editor: 'editor',
    viewer: 'viewer',
    guest: 'viewer',
  };
  scenario(w, [
    ...matrix(
      { method: 'GET', path: '/v1/c/{slug}/me' },
      admitted((who) => ({
        status: 200,
        check: (b, _res, w) => {
          expect(b).toMatchObject({ id: w.ids[who as 'owner'], kind: who === 'guest' ? 'guest' : 'member', canvasRole: roleOf[who] });
          expect(b).not.toHaveProperty('isAdmin');
        },
      })),
    ),
    // Another canvas (the stranger's): this canvas's guest is not invited there.
    ...matrix(
      { method: 'GET', path: '/v1/c/{otherSlug}/me', note: "the stranger's canvas" },
      {
        anonymous: ANON,
        stranger: { status: 200, check: (b) => expect(b.canvasRole).toBe('owner') },
        viewer: OWNER_ONLY,
        editor: OWNER_ONLY,
        owner: OWNER_ONLY,
        admin: OWNER_ONLY,
        guest: { status: 404, code: 'NOT_INVITED' },
        otherKey: ANON,
      },
    ),
    // The gateway runs before the lookup: without a session an unknown slug is 401 too.
    ...matrix(
      { method: 'GET', path: '/v1/c/no-such-canvas/me', note: 'unknown slug' },
      {
        ...admitted({ status: 404, code: 'NOT_FOUND' }),
        stranger: { status: 404, code: 'NOT_FOUND' },
        admin: { status: 404, code: 'NOT_FOUND' },
      },
    ),
    // The capability gate comes after the canvas and before the role.
    ...matrix(
      {
        method: 'PUT',
        path: '/v1/c/{slug}/kv/k',
        body: 1,
        note: 'kv off',
        setup: (w) => w.capabilities({ kv: false }),
        unchanged: nothing,
      },
      admitted({
        status: 403,
        code: 'CAPABILITY_DISABLED',
        check: (b) => expect(b).toMatchObject({ capability: 'kv', reason: 'feature_off' }),
      }),
    ),
    ...matrix(
      {
        method: 'GET',
        path: '/v1/c/{slug}/me',
        note: 'disabled by an admin',
        setup: (w) => w.expectOk('POST', `/api/admin/canvases/${w.canvas.id}/disable`, 'admin', {}),
      },
      admitted({ status: 403, code: 'DISABLED' }),
    ),
    ...matrix(
      {
        method: 'GET',
        path: '/v1/c/{slug}/me',
        note: 'archived',
        setup: (w) => w.expectOk('POST', `/api/canvases/${w.canvas.id}/archive`, 'owner'),
      },
      admitted({ status: 404, code: 'ARCHIVED' }),
    ),
  ]);
});

describe('runtime: shared KV', () => {
  const w = useWorld({ canvas: { capabilities: ON } });
  scenario(w, [
    ...matrix(
      { method: 'GET', path: '/v1/c/{slug}/kv', setup: putKv('a', 1) },
      admitted(json({ entries: [{ key: 'a', value: 1 }], nextCursor: null })),
    ),
    ...matrix({ method: 'GET', path: '/v1/c/{slug}/kv/a', setup: putKv('a', { n: 1 }) }, admitted(json({ value: { n: 1 } }))),
    ...matrix({ method: 'GET', path: '/v1/c/{slug}/kv/absent', note: 'absent key' }, admitted({ status: 404, code: 'NOT_FOUND' })),
    ...matrix(
      { method: 'PUT', path: '/v1/c/{slug}/kv/a', body: { n: 2 }, setup: putKv('a', 1), unchanged: nothing },
      managers(json({ ok: true })),
    ),
    // The role is checked before the body: a viewer's bad body is still a 403.
    ...matrix(
      {
        method: 'PUT',
        path: '/v1/c/{slug}/kv/a',
        raw: 'null',
        headers: { 'content-type': 'application/json' },
        note: 'null body',
        unchanged: nothing,
      },
      managers({ status: 400, code: 'INVALID_BODY' }),
    ),
    ...matrix({ method: 'DELETE', path: '/v1/c/{slug}/kv/a', setup: putKv('a', 1), unchanged: nothing }, managers(json({ ok: true }))),
    ...matrix(
      { method: 'POST', path: '/v1/c/{slug}/kv/a/increment', body: { by: 2 }, setup: putKv('a', 1), unchanged: nothing },
      managers(json({ value: 3 })),
    ),
  ]);
});

describe('runtime: per-viewer KV', () => {
  const w = useWorld({ canvas: { capabilities: ON } });
  /** The viewer keeps a preference; no one else can see it. */
  const viewerPref = (w: World) => w.expectOk('PUT', `/v1/c/${w.canvas.slug}/kv/user/pref`, 'viewer', 'dark').then(() => undefined);
  scenario(w, [
    // CONTRACT "Decided 2026-11-23": GET /kv/user (no trailing slash) is always the per-viewer list.
    ...matrix(
      { method: 'GET', path: '/v1/c/{slug}/kv/user', setup: viewerPref },
      admitted((who) => ({
        ...json({ entries: who === 'viewer' ? [{ key: 'pref', value: 'dark' }] : [], nextCursor: null }),
      })),
    ),
    ...matrix(
      { method: 'GET', path: '/v1/c/{slug}/kv/user/', note: 'trailing slash', setup: viewerPref },
      admitted((who) => json({ entries: who === 'viewer' ? [{ key: 'pref', value: 'dark' }] : [], nextCursor: null })),
    ),
    // The shared key named `user` is reserved: writing, deleting or incrementing it is 400 INVALID_BODY, even for managers.
    ...(['PUT', 'DELETE'] as const).map((method) => ({
      who: 'editor' as const,
      method,
      path: '/v1/c/{slug}/kv/user',
      body: method === 'PUT' ? 1 : undefined,
      note: 'the shared key `user`',
      status: 400,
      code: 'INVALID_BODY',
      unchanged: nothing,
    })),
    {
      who: 'owner',
      method: 'POST',
      path: '/v1/c/{slug}/kv/user/increment',
      body: {},
      note: 'the shared key `user`',
      status: 400,
      code: 'INVALID_BODY',
      unchanged: nothing,
    },
    ...matrix(
      { method: 'GET', path: '/v1/c/{slug}/kv/user/pref', setup: viewerPref },
      { ...admitted({ status: 404, code: 'NOT_FOUND' }), viewer: json({ value: 'dark' }) },
    ),
    ...matrix(
      { method: 'PUT', path: '/v1/c/{slug}/kv/user/pref', body: 'light', unchanged: nothing },
      admitted((who) => ({
        status: 200,
        check: async (b, _res, w) => {
          expect(b).toEqual({ ok: true });
          // Written in the caller's own scope: they read it back, someone else does not see it.
          const read = (as: Who) => w.request(as, `/v1/c/${w.canvas.slug}/kv/user/pref`).then((r) => r.json());
          expect(await read(who)).toEqual({ value: 'light' });
          expect(await read(who === 'viewer' ? 'editor' : 'viewer')).toMatchObject({ code: 'NOT_FOUND' });
        },
      })),
    ),
    ...matrix({ method: 'DELETE', path: '/v1/c/{slug}/kv/user/pref', unchanged: nothing }, admitted(json({ ok: true }))),
    ...matrix({ method: 'POST', path: '/v1/c/{slug}/kv/user/n/increment', body: {}, unchanged: nothing }, admitted(json({ value: 1 }))),
  ]);
});

describe('runtime: collections and submissions', () => {
  const board = { collections: { board: { preset: 'managed' } } };
  const w = useWorld({ canvas: { capabilities: { ...ON, runtimePolicy: board, expectedRuntimePolicy: null } } });
  /** The editor posts a notice on the board; its id goes in {id}. */
  const notice = async (w: World) => {
    w.vars.id = (await w.expectOk('POST', `/v1/c/${w.canvas.slug}/collections/board`, 'editor', 'lunch at noon', 201)).id;
  };
  /** The viewer answers the RSVP. */
  const rsvp = (w: World) => w.expectOk('PUT', `/v1/c/${w.canvas.slug}/submissions/rsvp/mine`, 'viewer', 'yes').then(() => undefined);
  scenario(w, [
    // Managed: everyone admitted reads; only owners and editors create and change.
    ...matrix({ method: 'GET', path: '/v1/c/{slug}/collections/board/{id}', setup: notice }, admitted({ status: 200 })),
    ...matrix({ method: 'POST', path: '/v1/c/{slug}/collections/board', body: 'x', unchanged: nothing }, managers({ status: 201 })),
    ...matrix(
      { method: 'PUT', path: '/v1/c/{slug}/collections/board/{id}', body: 'changed', setup: notice, unchanged: nothing },
      managers({ status: 200 }),
    ),
    ...matrix(
      { method: 'GET', path: '/v1/c/{slug}/collections/unconfigured', note: 'no policy entry' },
      admitted({ status: 404, code: 'COLLECTION_NOT_CONFIGURED' }),
    ),
    // Submissions: everyone admitted submits their own; owners and editors list.
    ...matrix({ method: 'PUT', path: '/v1/c/{slug}/submissions/rsvp/mine', body: 'yes', unchanged: nothing }, admitted({ status: 200 })),
    ...matrix({ method: 'GET', path: '/v1/c/{slug}/submissions/rsvp', setup: rsvp }, managers({ status: 200 })),
  ]);
});

describe('runtime: files', () => {
  const w = useWorld({ canvas: { capabilities: ON } });
  const form =
    (fields: Record<string, string> = {}) =>
    () => {
      const f = new FormData();
      f.append('file', new File(['hello'], 'hello.txt', { type: 'text/plain' }));
      for (const [k, v] of Object.entries(fields)) f.append(k, v);
      return f;
    };
  /** A shared file uploaded by the editor; its id is {file}. */
  const sharedFile = async (w: World) => {
    const res = await w.request('editor', `/v1/c/${w.canvas.slug}/files`, { method: 'POST', body: form()() });
    expect(res.status).toBe(201);
    w.vars.file = (await res.json()).id;
  };
  scenario(w, [
    ...matrix(
      { method: 'POST', path: '/v1/c/{slug}/files', raw: form(), unchanged: nothing },
      managers({
        status: 201,
        check: (b) =>
          expect(b).toMatchObject({ name: 'hello.txt', size: 5, url: expect.stringMatching(/^\/v1\/c\/.+\/files\/.+\/content$/) }),
      }),
    ),
    ...matrix(
      { method: 'POST', path: '/v1/c/{slug}/files', raw: form({ scope: 'submission' }), note: 'submission', unchanged: nothing },
      admitted({ status: 201 }),
    ),
    ...matrix(
      { method: 'GET', path: '/v1/c/{slug}/files', setup: sharedFile },
      admitted({ status: 200, check: (b, _res, w) => expect(b.files.map((f: { id: string }) => f.id)).toEqual([w.vars.file]) }),
    ),
    ...matrix(
      { method: 'GET', path: '/v1/c/{slug}/files/{file}/content', setup: sharedFile },
      admitted({ status: 200, check: (b) => expect(b).toBe('hello') }),
    ),
    ...matrix(
      { method: 'PATCH', path: '/v1/c/{slug}/files/{file}', body: { name: 'renamed.txt' }, setup: sharedFile, unchanged: nothing },
      managers({ status: 200, check: (b) => expect(b.name).toBe('renamed.txt') }),
    ),
    ...matrix({ method: 'DELETE', path: '/v1/c/{slug}/files/{file}', setup: sharedFile, unchanged: nothing }, managers(json({ ok: true }))),
  ]);
});

const fake = await startFakeAnthropic();
const cert = makeCert(UPSTREAM_HOST);
const upstream = startUpstream(cert);
afterAll(async () => {
  await fake.close();
  await upstream.stop();
  cert.cleanup();
});

describe('runtime: AI', () => {
  const w = useWorld({
    env: { EASEL_AI_API_KEY: 'sk-ant-test-key', EASEL_AI_BASE_URL: fake.url },
    canvas: { capabilities: ON },
  });
  const ask = { model: 'claude-sonnet-5-5', messages: [{ role: 'user', content: 'Hi' }] };
  const streamed: Expected = {
    status: 200,
    check: (b) => expect(String(b)).toContain('"type":"done"'),
  };
  scenario(w, [
    // AI is for editors unless the owner opens it to viewers; guests need the owner's opt-in (GUEST_AI_DISABLED comes first).
    ...matrix(
      { method: 'POST', path: '/v1/c/{slug}/ai/chat', body: ask, unchanged: nothing },
      { ...managers(streamed), guest: { status: 403, code: 'GUEST_AI_DISABLED' } },
    ),
    ...matrix(
      {
        method: 'POST',
        path: '/v1/c/{slug}/ai/chat',
        body: ask,
        note: 'aiAudience viewers',
        setup: (w) => w.capabilities({ aiAudience: 'viewers' }),
      },
      { ...admitted(streamed), guest: { status: 403, code: 'GUEST_AI_DISABLED' } },
    ),
    ...matrix(
      { method: 'POST', path: '/v1/c/{slug}/ai/chat', body: { ...ask, model: 'gpt-0' }, note: 'model not allowed', unchanged: nothing },
      admitted({ status: 403, code: 'MODEL_NOT_ALLOWED' }),
    ),
  ]);
});

describe('runtime: Connections', () => {
  const origin = `https://${UPSTREAM_HOST}:${upstream.port}`;
  const w = useWorld({
    env: {
      EASEL_SECRET_KEY: 'a1'.repeat(32),
      EASEL_CONNECTIONS_CA_FILE: cert.certFile,
      EASEL_CONNECTIONS_RESOLVE: `${UPSTREAM_HOST}:${upstream.port}:127.0.0.1`,
    },
    canvas: { capabilities: ON },
  });
  let n = 0;
  /** A profile on the upstream, granted to the canvas: {profile}. */
  const granted = async (w: World) => {
    w.vars.profile = `up${++n}`;
    await w.expectOk('POST', '/api/admin/connections', 'admin', { name: w.vars.profile, origin, methods: ['GET', 'POST'] }, 201);
    await w.expectOk('PUT', `/api/admin/canvases/${w.canvas.id}/connections/${w.vars.profile}`, 'admin');
  };
  const upstreamAnswer: Expected = {
    status: 200,
    check: (b, res) => {
      expect(res.headers.get('x-easel-connection-response')).toBe('upstream');
      expect(b).toMatchObject({ path: '/items?q=1' });
    },
  };
  scenario(w, [
    ...matrix({ method: 'GET', path: '/v1/c/{slug}/connections/{profile}/items?q=1', setup: granted }, managers(upstreamAnswer)),
    ...matrix(
      {
        method: 'GET',
        path: '/v1/c/{slug}/connections/{profile}/items?q=1',
        note: 'connectionsAudience viewers',
        setup: async (w) => {
          await granted(w);
          await w.capabilities({ connectionsAudience: 'viewers' });
        },
      },
      // `viewers` admits signed-in viewers; a legacy guest is not one.
      { ...admitted(upstreamAnswer), guest: DENIED },
    ),
    ...matrix(
      { method: 'DELETE', path: '/v1/c/{slug}/connections/{profile}/items', note: 'method not approved', setup: granted },
      admitted(DENIED),
    ),
  ]);
});

describe('runtime: realtime upgrade refused over HTTP', () => {
  // The pipeline runs before the 101 (spec, Events): refusals are plain HTTP answers.
  const w = useWorld({ listen: true, canvas: { capabilities: ON } });
  const outcomes: Record<Who, Expected> = admitted({ status: 101 });
  for (const who of CAST) {
    const o = outcomes[who];
    test(`${who} GET /v1/c/{slug}/realtime (upgrade) → ${o.status}${(o.code ?? o.error) ? ` ${o.code ?? o.error}` : ''}`, async () => {
      const answer = await handshake(w.app, w.canvas.slug, w.credentials(who));
      expect(answer.status).toBe(o.status);
      if (o.code) expect(answer.body).toMatchObject({ code: o.code, message: expect.any(String) });
      if (o.error) expect(answer.body).toEqual({ error: o.error });
    });
  }
});
