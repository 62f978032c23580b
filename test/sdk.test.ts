// passes: embedded — the SDK's client code; the runtime routes it calls run in the cluster pass
// The SDK (sdk/*.ts) under Bun against the running app: the same code the
// bundle runs in browsers, with the cookie passed by hand (Bun has no cookie
// jar). The browser suite (test/browser/) runs the real bundle in Chromium.
import { REALTIME_LIMITS } from '../src/runtime/realtime/limits.ts';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createClient, type Easel } from '../sdk/client.ts';
import { detectTarget } from '../sdk/env.ts';
import {
  CapabilityDisabledError,
  EaselError,
  errorFromResponse,
  PermissionDeniedError,
  QuotaExceededError,
  UnauthorizedError,
} from '../sdk/errors.ts';
import type { RealtimeCloseEvent, RealtimeErrorEvent, RealtimeMessage } from '../sdk/realtime.ts';
import { KvStore } from '../src/runtime/kv/store.ts';
import { startTestApp, type TestApp } from './harness.ts';
import { ADMIN_EMAIL, World, type Person } from './world.ts';
import { setCollections } from './collections-fixtures.ts';
let app: TestApp;
let cast: World;

beforeAll(async () => {
  app = await startTestApp({ listen: true, env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_RATELIMIT_ENABLED: 'false' } });
  cast = await new World().attach(app);
});
afterAll(() => app.close());

interface ClientOptions {
  /** The server's base URL, read on every request (a restarted server has a new port). */
  base?: () => string;
  /** Extra handshake headers (an Origin a proxy rewrote). */
  socketHeaders?: Record<string, string>;
  retry?: { minMs: number; maxMs: number };
}

/** A client for `cookie` on canvas `slug`; `sockets` collects the WebSockets it opens. */
function clientFor(cookie: string, slug = cast.canvas.slug, sockets: WebSocket[] = [], o: ClientOptions = {}): Easel {
  return createClient({
    version: 'test',
    target: () => ({ apiBase: (o.base ?? (() => app.base))(), slug }),
    fetch: (input, init) => {
      const headers = new Headers(init.headers);
      if (cookie) headers.set('cookie', cookie);
      return fetch(input, { ...init, headers });
    },
    openSocket: (url) => {
      const ws = new WebSocket(url, { headers: { ...(cookie ? { cookie } : {}), ...o.socketHeaders } } as unknown as string[]);
      sockets.push(ws);
      return ws;
    },
    retry: o.retry ?? { minMs: 20, maxMs: 100 },
  });
}

const sdk = (who: Person, c: World = cast) => clientFor(c.cookie[who], c.canvas.slug);

async function rejection(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

// Waiting without sleeps: the server answers a socket's frames in order, so
// once a reply (a presence answer, a publish's own echo) arrives, every frame
// the server had sent that socket before has arrived and been dispatched too.
// `settled(client)` is such a round trip; close events are awaited as promises.

/** A round trip on the client's socket (a presence request on a channel nobody uses). */
async function settled(client: Easel): Promise<void> {
  const probe = client.realtime.channel('sdk-test-sync');
  await probe.presence();
  probe.close();
}

/** The client's next close event. */
const nextClose = (client: Easel) => new Promise<RealtimeCloseEvent>((resolve) => client.realtime.onClose(resolve));

describe('me', () => {
  test('resolves to the runtime identity', async () => {
    const me = await sdk('editor').me();
    expect(me).toMatchObject({ id: cast.ids.editor, name: cast.names.editor, kind: 'member', canvasRole: 'editor' });
    expect(me).not.toHaveProperty('isAdmin');
  });
});

describe('kv', () => {
  test('set, get, increment, list, delete (shared)', async () => {
    const c = await new World().attach(app);
    const owner = sdk('owner', c);
    expect(await owner.kv.set('greeting', { text: 'hi' })).toEqual({ ok: true });
    expect(await owner.kv.get('greeting')).toEqual({ text: 'hi' });
    expect(await owner.kv.increment('count')).toBe(1);
    expect(await owner.kv.increment('count', 41)).toBe(42);
    expect(await owner.kv.increment('count', -2.5)).toBe(39.5);
    await owner.kv.set('a/b c', 'odd key');
    expect(await owner.kv.get('a/b c')).toBe('odd key');
    expect(await owner.kv.list()).toEqual({
      entries: [
        { key: 'a/b c', value: 'odd key' },
        { key: 'count', value: 39.5 },
        { key: 'greeting', value: { text: 'hi' } },
      ],
      nextCursor: null,
    });
    const page = await owner.kv.list({ limit: 2 });
    expect(page.entries.map((e) => e.key)).toEqual(['a/b c', 'count']);
    expect(page.nextCursor).toBe('count');
    expect((await owner.kv.list({ cursor: page.nextCursor, limit: 2 })).entries.map((e) => e.key)).toEqual(['greeting']);
    expect((await owner.kv.list({ prefix: 'gr' })).entries.map((e) => e.key)).toEqual(['greeting']);
    expect(await owner.kv.delete('greeting')).toEqual({ ok: true });
    expect(await owner.kv.delete('greeting')).toEqual({ ok: true });
    // Viewers read shared keys.
    expect(await sdk('viewer', c).kv.get('count')).toBe(39.5);
  });

  test('get: a stored null resolves to null; an absent key rejects with NOT_FOUND (404)', async () => {
    const c = await new World().attach(app);
    await new KvStore(app.ctx.sql).put({ canvasId: c.canvas.id, scope: 'shared', ownerId: '' }, 'nothing', 'null', 10_000, app.ctx.now());
    const viewer = sdk('viewer', c);
    expect(await viewer.kv.get('nothing')).toBeNull();
    const err = await rejection(viewer.kv.get('absent'));
    expect(err).toBeInstanceOf(EaselError);
    expect([err.name, err.code, err.status]).toEqual(['EaselError', 'NOT_FOUND', 404]);
  });

  test('refusals map to their classes and codes', async () => {
    const c = await new World().attach(app);
    const owner = sdk('owner', c);
    const denied = await rejection(sdk('viewer', c).kv.set('k', 1));
    expect(denied).toBeInstanceOf(PermissionDeniedError);
    expect([denied.name, denied.code, denied.status]).toEqual(['PermissionDeniedError', 'PERMISSION_DENIED', 403]);
    await owner.kv.set('word', 'text');
    expect(await rejection(owner.kv.increment('word'))).toMatchObject({ code: 'NOT_NUMERIC', status: 409 });
    expect(await rejection(owner.kv.set('k', null))).toMatchObject({ code: 'INVALID_BODY', status: 400 });
    expect(await rejection(owner.kv.set('k'.repeat(600), 1))).toMatchObject({ code: 'KEY_TOO_LARGE', status: 413 });
    expect(await rejection(owner.kv.get('..'))).toMatchObject({ code: 'INVALID_BODY', status: 400 });
  });

  test('what cannot be a request is an EaselError before anything is sent (an empty key, a BigInt, a cycle, a string as a file or a bundle)', async () => {
    const c = await new World().attach(app);
    const sent: string[] = [];
    const owner = createClient({
      version: 'test',
      target: () => ({ apiBase: app.base, slug: c.canvas.slug }),
      fetch: (input, init) => {
        sent.push(`${init.method} ${String(input)}`);
        return fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init.headers)), cookie: c.cookie.owner } });
      },
    });
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const refusals = [
      // An empty key named the list: get('') answered its first page as if it were a value.
      [owner.kv.get(''), 'INVALID_BODY', 'a KV key is at least one character'],
      [owner.kv.user.set('', 1), 'INVALID_BODY', 'a KV key is at least one character'],
      [owner.kv.set('n', 1n), 'INVALID_BODY', 'the value is not JSON: '],
      [owner.kv.set('c', cycle), 'INVALID_BODY', 'the value is not JSON: '],
      [owner.files.upload('just text' as unknown as Blob), 'INVALID_BODY', 'upload takes a File or a Blob'],
      // A string was zipped one character a file; {} made a canvas that could not be published.
      [owner.canvases.create({ title: 't' }, '<h1>x</h1>' as unknown as Record<string, string>), 'INVALID_BODY', 'a bundle is a ZIP'],
      [owner.canvases.create({ title: 't' }, {}), 'EMPTY_DEPLOY', 'the bundle holds no files'],
      [owner.canvases.zip({ 'a.html': 7 as unknown as string }), 'INVALID_BODY', 'a.html: a file is text, a Blob or a Uint8Array'],
    ] as const;
    for (const [call, code, message] of refusals) {
      const err = await rejection(call);
      expect(err).toBeInstanceOf(EaselError);
      expect({ code: err.code, status: err.status, message: err.message.slice(0, message.length) }).toEqual({ code, status: 400, message });
    }
    expect(sent).toEqual([]);
  });

  test('kv.user is each viewer\'s own; the shared key name "user" is reserved for it', async () => {
    const c = await new World().attach(app);
    const viewer = sdk('viewer', c);
    const viewer2 = sdk('viewer2', c);
    const owner = sdk('owner', c);
    expect(await viewer.kv.user.set('theme', 'dark')).toEqual({ ok: true });
    await viewer2.kv.user.set('theme', 'light');
    expect(await viewer.kv.user.get('theme')).toBe('dark');
    expect(await viewer2.kv.user.get('theme')).toBe('light');
    expect(await rejection(owner.kv.user.get('theme'))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await viewer.kv.user.increment('visits')).toBe(1);
    expect(await viewer.kv.user.increment('visits', 2)).toBe(3);
    expect(await viewer.kv.user.list()).toEqual({
      entries: [
        { key: 'theme', value: 'dark' },
        { key: 'visits', value: 3 },
      ],
      nextCursor: null,
    });
    expect((await viewer2.kv.user.list()).entries).toEqual([{ key: 'theme', value: 'light' }]);
    // Shared scope untouched; `user` cannot be a shared key (its path is the per-viewer list), `user-count` can.
    expect((await owner.kv.list()).entries).toEqual([]);
    for (const refused of [owner.kv.set('user', 'shared value'), viewer.kv.get('user'), owner.kv.increment('user')]) {
      expect(await rejection(refused)).toMatchObject({ code: 'INVALID_BODY', status: 400 });
    }
    expect(await owner.kv.increment('user-count')).toBe(1);
    expect(await rejection(viewer.kv.user.get('user'))).toMatchObject({ code: 'NOT_FOUND' });
    await viewer.kv.user.delete('theme');
    expect(await rejection(viewer.kv.user.get('theme'))).toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('files', () => {
  test('upload, list, url, rename, delete', async () => {
    const c = await new World().attach(app);
    const editor = sdk('editor', c);
    const up = await editor.files.upload(new File(['hello file'], 'hello.txt', { type: 'text/plain' }));
    expect(up).toEqual({
      id: expect.any(String),
      name: 'hello.txt',
      size: 10,
      url: `${app.base}/v1/c/${c.canvas.slug}/files/${up.id}/content`,
    });
    expect(editor.files.url(up.id)).toBe(up.url);
    const listed = await sdk('viewer', c).files.list();
    expect(listed).toEqual([
      {
        id: up.id,
        name: 'hello.txt',
        size: 10,
        mime: 'text/plain',
        createdAt: expect.any(Number),
        scope: 'shared',
        uploadedBy: c.ids.editor,
      },
    ]);
    const content = await fetch(up.url, { headers: { cookie: c.cookie.viewer } });
    expect(await content.text()).toBe('hello file');
    expect(await editor.files.rename(up.id, 'renamed.txt')).toMatchObject({ id: up.id, name: 'renamed.txt' });
    expect(await editor.files.delete(up.id)).toEqual({ ok: true });
    expect(await editor.files.list()).toEqual([]);
  });

  test('a viewer uploads a submission, not a shared file; a Blob without a name is `upload`', async () => {
    const c = await new World().attach(app);
    const viewer = sdk('viewer', c);
    expect(await rejection(viewer.files.upload(new Blob(['x'])))).toBeInstanceOf(PermissionDeniedError);
    const mine = await viewer.files.upload(new Blob(['x']), { scope: 'submission' });
    expect(mine.name).toBe('upload');
    expect((await viewer.files.list()).map((f) => [f.id, f.scope])).toEqual([[mine.id, 'submission']]);
    expect(await sdk('viewer2', c).files.list()).toEqual([]);
  });

  test('over the canvas quota: QuotaExceededError (QUOTA_EXCEEDED, 409)', async () => {
    const c = await new World().attach(app);
    const admin = await app.signIn(ADMIN_EMAIL, 'Admin');
    const res = await app.request('/api/admin/settings', { method: 'PATCH', cookie: admin, json: { filesBytesCanvas: 4 } });
    expect(res.status).toBe(200);
    try {
      const err = await rejection(sdk('owner', c).files.upload(new Blob(['more than four bytes'])));
      expect(err).toBeInstanceOf(QuotaExceededError);
      expect([err.name, err.code, err.status]).toEqual(['QuotaExceededError', 'QUOTA_EXCEEDED', 409]);
      expect(err).not.toHaveProperty('scope');
    } finally {
      await app.request('/api/admin/settings', { method: 'PATCH', cookie: admin, json: { filesBytesCanvas: null } });
    }
  });
});

describe('errors', () => {
  test('no session: {error: "unauthorized"} becomes an UnauthorizedError, UNAUTHORIZED (401), with no sign-in URL outside a page', async () => {
    const err = await rejection(clientFor('').me());
    expect(err).toBeInstanceOf(EaselError);
    expect([err.name, err.code, err.status, (err as any).signInUrl]).toEqual(['UnauthorizedError', 'UNAUTHORIZED', 401, null]);
  });

  test('nothing listening: NETWORK_ERROR with status 0', async () => {
    const client = createClient({ version: 'x', target: () => ({ apiBase: 'http://127.0.0.1:9', slug: 's' }) });
    expect(await rejection(client.kv.get('k'))).toMatchObject({ name: 'EaselError', code: 'NETWORK_ERROR', status: 0 });
  });

  test('a capability switched off: CapabilityDisabledError with capability, reason and hint', async () => {
    const c = await new World().attach(app);
    await c.capabilities({ kv: false });
    const err = await rejection(sdk('viewer', c).kv.get('k'));
    expect(err).toBeInstanceOf(CapabilityDisabledError);
    expect(err).toBeInstanceOf(EaselError);
    expect(err).toBeInstanceOf(Error);
    expect({ name: err.name, code: err.code, status: err.status, capability: err.capability, reason: err.reason }).toEqual({
      name: 'CapabilityDisabledError',
      code: 'CAPABILITY_DISABLED',
      status: 403,
      capability: 'kv',
      reason: 'feature_off',
    });
    expect(err.hint).toEqual(expect.any(String));
  });

  test('response mapping: {code}, {error}, non-JSON, redirects', async () => {
    const json = (status: number, body: unknown) =>
      new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    expect(await errorFromResponse(json(429, { error: 'rate_limited' }))).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect(await errorFromResponse(json(429, { code: 'GUEST_AI_CAP', message: 'm', scope: 'guest' }))).toBeInstanceOf(QuotaExceededError);
    expect(await errorFromResponse(json(413, { code: 'BODY_TOO_LARGE', message: 'm' }))).toBeInstanceOf(QuotaExceededError);
    expect(await errorFromResponse(new Response('<html>bad gateway</html>', { status: 502 }))).toMatchObject({
      name: 'EaselError',
      code: 'HTTP_ERROR',
      status: 502,
    });
    const redirected = createClient({
      version: 'x',
      target: () => ({ apiBase: 'http://localhost', slug: 's' }),
      fetch: async () => new Response(null, { status: 302, headers: { location: '/auth/login' } }),
    });
    expect(await rejection(redirected.me())).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
  });
});

describe('over the runtime rate', () => {
  test('RATE_LIMITED says how many seconds to wait (a page cannot always read Retry-After)', async () => {
    const limited = await startTestApp({ listen: true, env: { EASEL_RATELIMIT_CANVAS_API_PER_MIN: '2' } });
    try {
      const c = await new World().attach(limited);
      const owner = createClient({
        version: 'test',
        target: () => ({ apiBase: limited.base, slug: c.canvas.slug }),
        fetch: (input, init) =>
          fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init.headers)), cookie: c.cookie.owner } }),
      });
      await owner.kv.set('a', 1);
      await owner.kv.set('a', 2);
      const err = await rejection(owner.kv.set('a', 3));
      expect({ code: err.code, status: err.status }).toEqual({ code: 'RATE_LIMITED', status: 429 });
      expect(err.message).toMatch(/ \(try again in [1-9]\d* s\)$/);
    } finally {
      await limited.close();
    }
  });
});

describe('slug and API base from the page URL', () => {
  const page = (href: string) => {
    const u = new URL(href);
    return { href, origin: u.origin, hostname: u.hostname, pathname: u.pathname, protocol: u.protocol, host: u.host };
  };

  test('path mode: /c/{slug}/… on the same origin', () => {
    expect(detectTarget(page('https://easel.example.com/c/team-notes/sub/page.html'), 'https://easel.example.com/sdk/v1.js')).toEqual({
      apiBase: 'https://easel.example.com',
      slug: 'team-notes',
    });
    expect(detectTarget(page('http://localhost:8080/c/my%20slug/'), null)).toEqual({ apiBase: 'http://localhost:8080', slug: 'my slug' });
  });

  test("subdomain mode: the slug is the first label, the API base the script's origin", () => {
    expect(detectTarget(page('https://team-notes.canvas.example.com/index.html'), 'https://easel.example.com/sdk/v1.js')).toEqual({
      apiBase: 'https://easel.example.com',
      slug: 'team-notes',
    });
    // A script served from the canvas host itself: so is the API (same origin, the host's own session).
    expect(detectTarget(page('https://notes.example.com:8443/'), 'https://notes.example.com:8443/sdk/v1.js')).toEqual({
      apiBase: 'https://notes.example.com:8443',
      slug: 'notes',
    });
  });

  test('not a canvas page: NOT_A_CANVAS, only when used', () => {
    expect(() => detectTarget(page('http://localhost:8080/dashboard'), null)).toThrow(EaselError);
  });
});

describe('realtime through the SDK', () => {
  test('subscribe, publish (own message included), presence, join and leave between two people', async () => {
    const c = await new World().attach(app);
    const owner = sdk('owner', c);
    const viewer = sdk('viewer', c);
    const ownerGot: RealtimeMessage[] = [];
    const viewerGot: RealtimeMessage[] = [];
    const joined: unknown[] = [];
    const left: unknown[] = [];
    const room = owner.realtime.channel('participants:room');
    room.onJoin((u) => joined.push(u));
    room.onLeave((u) => left.push(u));
    await room.subscribe((m) => ownerGot.push(m));
    expect(await room.presence()).toEqual([{ id: c.ids.owner, name: c.names.owner }]);

    const vroom = viewer.realtime.channel('participants:room');
    await vroom.subscribe((m) => viewerGot.push(m));
    await settled(owner);
    expect(joined).toEqual([{ id: c.ids.viewer, name: c.names.viewer }]);
    expect(await vroom.presence()).toEqual([
      { id: c.ids.owner, name: c.names.owner },
      { id: c.ids.viewer, name: c.names.viewer },
    ]);

    await room.publish('chat', { text: 'hello' });
    await vroom.publish('chat', { text: 'hi back' });
    // The viewer heard "hello" before its own echo; the owner hears "hi back" by its next reply.
    await settled(owner);
    const expected: RealtimeMessage[] = [
      {
        channel: 'participants:room',
        event: 'chat',
        data: { text: 'hello' },
        from: { id: c.ids.owner, name: c.names.owner, canvasRole: 'owner' },
      },
      {
        channel: 'participants:room',
        event: 'chat',
        data: { text: 'hi back' },
        from: { id: c.ids.viewer, name: c.names.viewer, canvasRole: 'viewer' },
      },
    ];
    expect(ownerGot).toEqual(expected);
    expect(viewerGot).toEqual(expected);

    vroom.close();
    await settled(viewer); // the unsubscribe is handled
    await settled(owner);
    expect(left).toEqual([{ id: c.ids.viewer, name: c.names.viewer }]);
    await room.publish('chat', 'after');
    await settled(viewer);
    expect(viewerGot).toHaveLength(2);
    // A closed channel object is finished; a new one from channel() works.
    expect(await rejection(vroom.publish('x'))).toMatchObject({ code: 'CHANNEL_CLOSED' });
    room.close();
  });

  test('close() leaves only that channel', async () => {
    const c = await new World().attach(app);
    const owner = sdk('owner', c);
    const a: unknown[] = [];
    const b: unknown[] = [];
    const chA = owner.realtime.channel('a');
    const chB = owner.realtime.channel('b');
    await chA.subscribe((m) => a.push(m.data));
    await chB.subscribe((m) => b.push(m.data));
    chA.close();
    await chB.publish('e', 1);
    const other = owner.realtime.channel('a');
    // Its own echo is dispatched by the time the publish resolves (same socket, in order).
    await other.publish('e', 2);
    expect(a).toEqual([]);
    expect(b).toEqual([1]);
    chB.close();
    other.close();
  });

  test('a refused publish rejects with PermissionDeniedError; onError reports the frame', async () => {
    const c = await new World().attach(app);
    const viewer = sdk('viewer', c);
    const errors: RealtimeErrorEvent[] = [];
    viewer.realtime.onError((e) => errors.push(e));
    const room = viewer.realtime.channel('room');
    await room.subscribe(() => {});
    const err = await rejection(room.publish('e', 1));
    expect(err).toBeInstanceOf(PermissionDeniedError);
    expect([err.name, err.code, err.status]).toEqual(['PermissionDeniedError', 'PERMISSION_DENIED', 403]);
    expect(errors).toEqual([{ code: 'PERMISSION_DENIED', channel: 'room', message: expect.any(String) }]);
    // The socket is still good.
    expect(await room.presence()).toHaveLength(1);
    room.close();
  });

  test('a channel taken away while a publish is in flight: the publish still resolves, the channel is off', async () => {
    const c = await new World().attach(app);
    const viewer = sdk('viewer', c);
    const errors: RealtimeErrorEvent[] = [];
    viewer.realtime.onError((e) => errors.push(e));
    const got: unknown[] = [];
    const room = viewer.realtime.channel('participants:room');
    await room.subscribe((m) => got.push(m.data));
    // Viewers may still publish but no longer listen. Written straight to the
    // store, so the server notices while handling the publish below: the
    // unsolicited denial reaches the SDK with that publish in flight.
    const channels = {
      'participants:room': { subscribe: 'editors', publish: 'viewers', seePresence: 'viewers', participatePresence: 'viewers' },
    };
    await app.ctx.canvases.update(
      c.canvas.id,
      { runtime_policy: JSON.stringify({ channels }), runtime_policy_revision: 'rev-taken-away' },
      app.ctx.now(),
    );
    await room.publish('e', 1);
    // Said as taken away, not as a refused call: the handlers will hear nothing more.
    expect(errors).toEqual([{ code: 'PERMISSION_DENIED', channel: 'participants:room', message: expect.any(String), unsubscribed: true }]);
    // The channel knows it is off: a new subscribe asks the server again and is refused.
    expect(await rejection(room.subscribe(() => {}))).toBeInstanceOf(PermissionDeniedError);
    room.close();
  });

  test('an event that is not a name is refused before it is sent (an object went out as "[object Object]")', async () => {
    const room = sdk('owner').realtime.channel('names');
    expect(await rejection(room.publish({ a: 1 } as unknown as string, 1))).toMatchObject({ code: 'INVALID_FRAME', status: 400 });
    room.close();
  });

  test('a frame over 16 KiB is refused before it is sent: MESSAGE_TOO_LARGE', async () => {
    const room = sdk('owner').realtime.channel('big');
    expect(await rejection(room.publish('e', 'x'.repeat(17_000)))).toMatchObject({ code: 'MESSAGE_TOO_LARGE', status: 413 });
    room.close();
  });

  test('realtime off: CapabilityDisabledError, onClose reports 4403 without a reconnect', async () => {
    const c = await new World().attach(app);
    await c.capabilities({ realtime: false });
    const sockets: WebSocket[] = [];
    // Zero back-off: a reconnect, if one were scheduled at the close, would be a 0 ms timer.
    const client = clientFor(c.cookie.viewer, c.canvas.slug, sockets, { retry: { minMs: 0, maxMs: 0 } });
    const closes: RealtimeCloseEvent[] = [];
    client.realtime.onClose((e) => closes.push(e));
    const err = await rejection(client.realtime.channel('room').subscribe(() => {}));
    expect(err).toBeInstanceOf(CapabilityDisabledError);
    expect({ code: err.code, status: err.status, capability: err.capability }).toEqual({
      code: 'CAPABILITY_DISABLED',
      status: 403,
      capability: 'realtime',
    });
    expect(closes).toEqual([{ code: 4403, reason: expect.any(String), willReconnect: false }]);
    // Terminal: later calls reject at once, with no new socket.
    expect(await rejection(client.realtime.channel('other').presence())).toBe(err);
    // Timers of equal delay run in the order they were set: one set now runs after any reconnect timer set at the close.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(sockets).toHaveLength(1);
  });

  test('access lost (4401) is terminal; a 4429 too', async () => {
    const c = await new World().attach(app);
    const client = sdk('viewer', c);
    const room = client.realtime.channel('room');
    await room.subscribe(() => {});
    const closed = nextClose(client);
    app.ctx.events.emit('canvas.unpublished', { canvasId: c.canvas.id });
    expect(await closed).toMatchObject({ code: 4401, willReconnect: false });
    expect(await rejection(room.presence())).toMatchObject({ code: 'ACCESS_LOST', status: 401 });

    // One person's share of a canvas's sockets is full (five): the next is refused the same way as a full canvas.
    const full = await new World().attach(app);
    const holders = Array.from({ length: REALTIME_LIMITS.connectionsPerPerson }, () => sdk('viewer', full).realtime.channel('x'));
    await Promise.all(holders.map((h) => h.subscribe(() => {})));
    const late = sdk('viewer', full);
    expect(await rejection(late.realtime.channel('x').subscribe(() => {}))).toMatchObject({ code: 'TOO_MANY_CONNECTIONS', status: 429 });
    for (const h of holders) h.close();
  });

  test('signed out elsewhere (4401): UnauthorizedError, as the HTTP API says, so the page can send its visitor to sign in', async () => {
    const c = await new World().attach(app);
    const cookie = await app.signIn(`leaver-${c.canvas.id}@example.com`, 'Leaver');
    await app.request(`/api/canvases/${c.canvas.id}/members`, {
      method: 'PUT',
      cookie: c.cookie.owner,
      json: { email: `leaver-${c.canvas.id}@example.com`, role: 'viewer' },
    });
    const client = clientFor(cookie, c.canvas.slug);
    const room = client.realtime.channel('room');
    await room.subscribe(() => {});
    const closed = nextClose(client);
    await app.request('/auth/logout', { method: 'POST', cookie, headers: { origin: new URL(app.ctx.config.baseUrl).origin } });
    expect(await closed).toMatchObject({ code: 4401, willReconnect: false });
    const err = await rejection(room.publish('e', 1));
    expect(err).toBeInstanceOf(UnauthorizedError);
    expect([err.code, err.status]).toEqual(['UNAUTHORIZED', 401]);
  });

  test('after a reconnect onOpen says so, and onJoin/onLeave tell who came and went while the socket was down', async () => {
    const c = await new World().attach(app);
    const sockets: WebSocket[] = [];
    // The viewer's way back to the server is held shut until the owner has left.
    let reachable = true;
    const viewer = clientFor(c.cookie.viewer, c.canvas.slug, sockets, { base: () => (reachable ? app.base : 'http://127.0.0.1:1') });
    const opens: boolean[] = [];
    viewer.realtime.onOpen((e) => opens.push(e.reconnected));
    const vroom = viewer.realtime.channel('room');
    const left = new Promise<unknown>((resolve) => vroom.onLeave(resolve));
    const joined: unknown[] = [];
    vroom.onJoin((u) => joined.push(u));
    await vroom.subscribe(() => {});
    const owner = sdk('owner', c);
    const oroom = owner.realtime.channel('room');
    await oroom.subscribe(() => {});
    await settled(viewer);
    expect(joined).toEqual([{ id: c.ids.owner, name: c.names.owner }]);
    expect(opens).toEqual([false]);

    reachable = false;
    const closed = nextClose(viewer);
    sockets[0]!.close(4000, 'network blip');
    expect(await closed).toMatchObject({ willReconnect: true });
    oroom.close();
    await settled(owner); // the owner's unsubscribe is handled: the owner is gone before the viewer is back
    const back = new Promise<boolean>((resolve) => viewer.realtime.onOpen((e) => resolve(e.reconnected)));
    reachable = true;
    expect(await back).toBe(true);
    expect(await left).toEqual({ id: c.ids.owner, name: c.names.owner });
    await settled(viewer);
    expect(joined).toHaveLength(1);
    vroom.close();
  });

  test('a dropped connection reconnects and resubscribes', async () => {
    const c = await new World().attach(app);
    const sockets: WebSocket[] = [];
    const viewer = clientFor(c.cookie.viewer, c.canvas.slug, sockets);
    const owner = sdk('owner', c);
    const got: unknown[] = [];
    await viewer.realtime.channel('room').subscribe((m) => got.push(m.data));
    const closed = nextClose(viewer);
    sockets[0]!.close(4000, 'network blip');
    expect(await closed).toMatchObject({ willReconnect: true });
    const room = owner.realtime.channel('room');
    // Waits for the new socket; replies come in order: once presence answers, the resubscription is in.
    expect(await viewer.realtime.channel('room').presence()).toEqual([{ id: c.ids.viewer, name: c.names.viewer }]);
    expect(sockets).toHaveLength(2);
    await room.publish('e', 'after the blip');
    await settled(viewer);
    expect(got).toEqual(['after the blip']);
    room.close();
  });

  test('a handshake only sockets are refused (Origin rewritten by a proxy) stops after 3 tries: CROSS_SITE_FORBIDDEN', async () => {
    const c = await new World().attach(app);
    const sockets: WebSocket[] = [];
    const client = clientFor(c.cookie.viewer, c.canvas.slug, sockets, {
      socketHeaders: { origin: 'https://elsewhere.example' },
      retry: { minMs: 10, maxMs: 20 },
    });
    const closes: RealtimeCloseEvent[] = [];
    client.realtime.onClose((e) => closes.push(e));
    const err = await rejection(client.realtime.channel('room').subscribe(() => {}));
    expect(err).toMatchObject({ name: 'EaselError', code: 'CROSS_SITE_FORBIDDEN', status: 403 });
    expect(sockets).toHaveLength(3);
    expect(closes.map((e) => e.willReconnect)).toEqual([true, true, false]);
  });

  test('a refused handshake: the HTTP refusal (asked of /me) rejects the subscription', async () => {
    const c = await new World().attach(app);
    const err = await rejection(
      sdk('stranger', c)
        .realtime.channel('room')
        .subscribe(() => {}),
    );
    expect(err).toMatchObject({ name: 'EaselError', code: 'OWNER_ONLY', status: 404 });
  });
});

describe('a server restart', () => {
  test('shutdown closes with 1001; the SDK reconnects to the new process and resubscribes', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dataDir = mkdtempSync(join(tmpdir(), 'easel-sdk-restart-'));
    let server = await startTestApp({ listen: true, dataDir, env: { EASEL_RATELIMIT_ENABLED: 'false' } });
    try {
      const c = await new World().attach(server);
      // Sessions live in the database: the same cookie works after the restart.
      const client = clientFor(c.cookie.viewer, c.canvas.slug, [], { base: () => server.base, retry: { minMs: 20, maxMs: 50 } });
      const got: unknown[] = [];
      const room = client.realtime.channel('room');
      await room.subscribe((m) => got.push(m.data));

      const closed = nextClose(client);
      await server.close();
      expect(await closed).toMatchObject({ code: 1001, willReconnect: true });
      server = await startTestApp({ listen: true, dataDir, env: { EASEL_RATELIMIT_ENABLED: 'false' } });

      // Replies come in order: once presence answers on the new socket, the resubscription is in.
      expect(await room.presence()).toEqual([{ id: c.ids.viewer, name: c.names.viewer }]);
      const owner = clientFor(c.cookie.owner, c.canvas.slug, [], { base: () => server.base });
      const ownerRoom = owner.realtime.channel('room');
      await ownerRoom.publish('e', 'after the restart');
      await settled(client);
      expect(got).toEqual(['after the restart']);
      ownerRoom.close();
      room.close();
    } finally {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('easel.collections and easel.submissions (issue 15 item 6)', () => {
  let c: World;
  beforeAll(async () => {
    c = await new World().attach(app);
    await setCollections(c, {
      board: { preset: 'contributions', aggregateCount: 'viewers' },
      notes: { preset: 'personal' },
    });
  });

  test('collections: create, list, get, update, increment, permissions, count, delete, clear; errors map to the SDK classes', async () => {
    const viewer = sdk('viewer', c).collections('board');
    const viewer2 = sdk('viewer2', c).collections('board');
    const owner = sdk('owner', c).collections('board');
    const mine = await viewer.create({ text: 'hello' });
    expect(mine).toEqual({
      id: expect.stringMatching(/^[0-9a-z]{20}$/),
      authorId: c.ids.viewer,
      value: { text: 'hello' },
      updatedAt: expect.any(Number),
    });
    const counter = await viewer.create(1);
    expect((await viewer2.list()).entries.map((r) => r.id)).toEqual([mine.id, counter.id]);
    expect(await viewer2.get(mine.id)).toEqual(mine);
    expect((await viewer.update(mine.id, { text: 'edited' })).value).toEqual({ text: 'edited' });
    expect((await viewer.increment(counter.id, 2)).value).toBe(3);
    // Contributions: others read but may not change what someone else wrote.
    const denied = await rejection(viewer2.update(mine.id, 'x'));
    expect(denied).toBeInstanceOf(PermissionDeniedError);
    expect(await rejection(viewer.increment(mine.id))).toMatchObject({ code: 'NOT_NUMERIC', status: 409 });
    expect(await viewer2.permissions()).toMatchObject({ read: { own: true, any: true }, update: { own: true, any: false } });
    expect(await viewer2.count()).toBe(2);
    expect(await owner.delete(mine.id)).toEqual({ ok: true, attachmentCleanupFailed: false });
    expect(await rejection(viewer.get(mine.id))).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect(await owner.clear()).toEqual({ deleted: 1, attachmentCleanupFailed: false });
    const missing = await rejection(sdk('viewer', c).collections('nowhere').list());
    expect(missing).toBeInstanceOf(EaselError);
    expect(missing).toMatchObject({ code: 'COLLECTION_NOT_CONFIGURED', status: 404 });
    // Personal records are the author's alone, owners included.
    const note = await sdk('viewer', c).collections('notes').create('private');
    expect(await rejection(sdk('owner', c).collections('notes').get(note.id))).toMatchObject({ code: 'NOT_FOUND' });
  });

  test('submissions: submit, mine, withdraw for everyone; list, remove, clear for owners and editors', async () => {
    const viewer = sdk('viewer', c).submissions('rsvp');
    const viewer2 = sdk('viewer2', c).submissions('rsvp');
    const editor = sdk('editor', c).submissions('rsvp');
    expect(await viewer.submit({ coming: true })).toMatchObject({ userId: c.ids.viewer, value: { coming: true } });
    expect((await viewer.submit({ coming: false })).value).toEqual({ coming: false });
    await viewer2.submit('maybe');
    expect((await viewer.mine()).value).toEqual({ coming: false });
    expect(await rejection(viewer.list())).toBeInstanceOf(PermissionDeniedError);
    const all = await editor.list({ limit: 1 });
    expect(all.entries).toHaveLength(1);
    expect(all.nextCursor).not.toBeNull();
    expect((await editor.list({ cursor: all.nextCursor })).entries).toHaveLength(1);
    expect(await editor.remove(c.ids.viewer2)).toEqual({ ok: true });
    expect(await rejection(viewer2.mine())).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect(await viewer.withdraw()).toEqual({ ok: true });
    expect(await viewer.withdraw()).toEqual({ ok: true });
    await viewer.submit(1);
    expect(await editor.clear()).toEqual({ ok: true });
    expect((await editor.list()).entries).toEqual([]);
  });
});
