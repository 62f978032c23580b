// passes: embedded, cluster
// Channel policies (configured and unconfigured), policy and role changes
// applied to open sockets, and the closes: 4401 on lost access, 4403 when
// realtime is switched off mid-session, 1001 on shutdown. Changes go through
// the management and admin APIs, as an owner or admin would make them.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestApp, type TestApp } from './harness.ts';
import { ManualClock } from './manual-clock.ts';
import { connect, type Client } from './realtime-helpers.ts';
import { ADMIN_EMAIL, World, type Person } from './world.ts';
let app: TestApp;
let adminCookie: string;

beforeAll(async () => {
  app = await startTestApp({ listen: true, env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_RATELIMIT_ENABLED: 'false' } });
  adminCookie = await app.signIn(ADMIN_EMAIL, 'Admin');
});
afterAll(() => app.close());

type Right = 'none' | 'editors' | 'viewers';
type Policy = { subscribe: Right; publish: Right; seePresence: Right; participatePresence: Right };

async function api(method: string, path: string, cookie: string, json?: unknown): Promise<any> {
  const res = await app.request(path, { method, cookie, json });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** PATCH …/capabilities with the full policy document, as the owner. */
async function setChannels(c: World, channels: Record<string, Policy>): Promise<void> {
  const view = await api('GET', `/api/canvases/${c.canvas.id}`, c.cookie.owner);
  await api('PATCH', `/api/canvases/${c.canvas.id}/capabilities`, c.cookie.owner, {
    expectedRuntimePolicy: view.runtimePolicyRevision,
    runtimePolicy: { channels },
  });
}

const user = (c: World, who: Person) => ({ id: c.ids[who], name: c.names[who] });
const denied = (channel: string) => ({ type: 'error', code: 'PERMISSION_DENIED', channel, message: expect.any(String) });

/** The owner and a viewer both on channel `room`, the owner past the viewer's join. */
async function ownerAndViewerInRoom(c: World): Promise<{ owner: Client; viewer: Client }> {
  const owner = await open(c, 'owner');
  const viewer = await open(c, 'viewer');
  await join(owner, 'room');
  await join(viewer, 'room');
  await owner.next((f) => f.type === 'join');
  return { owner, viewer };
}

async function open(c: World, who: Person): Promise<Client> {
  return connect(app, c.canvas.slug, c.cookie[who]);
}

/** Subscribes and returns the frames that answered (subscribed, and the snapshot when allowed). */
async function join(s: Client, channel: string): Promise<Array<Record<string, any>>> {
  s.send({ type: 'subscribe', channel });
  const first = await s.next();
  if (first.type !== 'subscribed') return [first];
  // The snapshot, when there is one, came right after `subscribed`.
  return [first, ...(await s.sync()).filter((f) => f.type === 'presence' && f.channel === channel)];
}

describe('configured channels', () => {
  test('each right follows its audience; `none` is nobody, owners included', async () => {
    const c = await new World().attach(app);
    await setChannels(c, {
      board: { subscribe: 'viewers', publish: 'editors', seePresence: 'editors', participatePresence: 'editors' },
      staff: { subscribe: 'editors', publish: 'editors', seePresence: 'editors', participatePresence: 'editors' },
      open: { subscribe: 'viewers', publish: 'viewers', seePresence: 'viewers', participatePresence: 'viewers' },
      frozen: { subscribe: 'viewers', publish: 'none', seePresence: 'none', participatePresence: 'none' },
    });
    const owner = await open(c, 'owner');
    const editor = await open(c, 'editor');
    const viewer = await open(c, 'viewer');

    // board: viewers subscribe but neither see presence nor appear in it.
    expect(await join(editor, 'board')).toEqual([
      { type: 'subscribed', channel: 'board' },
      { type: 'presence', channel: 'board', users: [user(c, 'editor')] },
    ]);
    expect(await join(viewer, 'board')).toEqual([{ type: 'subscribed', channel: 'board' }]);
    expect(await editor.sync()).toEqual([]);
    expect(await viewer.ask({ type: 'presence', channel: 'board' })).toEqual(denied('board'));
    expect(await viewer.ask({ type: 'publish', channel: 'board', event: 'e' })).toEqual(denied('board'));
    editor.send({ type: 'publish', channel: 'board', event: 'e', data: 1 });
    expect((await viewer.next()).from).toEqual({ ...user(c, 'editor'), canvasRole: 'editor' });

    // staff: viewers may not subscribe.
    expect(await viewer.ask({ type: 'subscribe', channel: 'staff' })).toEqual(denied('staff'));
    expect((await join(owner, 'staff')).map((f) => f.type)).toEqual(['subscribed', 'presence']);

    // open: a configured `viewers` publish right, without any prefix.
    await join(viewer, 'open');
    expect((await viewer.ask({ type: 'publish', channel: 'open', event: 'e' })).type).toBe('message');

    // frozen: nobody publishes or sees presence, not even the owner.
    await join(owner, 'frozen');
    expect(await owner.ask({ type: 'publish', channel: 'frozen', event: 'e' })).toEqual(denied('frozen'));
    expect(await owner.ask({ type: 'presence', channel: 'frozen' })).toEqual(denied('frozen'));
  });

  test('a configured `participants:` channel follows its policy, not the prefix default', async () => {
    const c = await new World().attach(app);
    await setChannels(c, {
      'participants:q': { subscribe: 'viewers', publish: 'editors', seePresence: 'viewers', participatePresence: 'viewers' },
    });
    const viewer = await open(c, 'viewer');
    expect(await viewer.ask({ type: 'publish', channel: 'participants:q', event: 'e' })).toEqual(denied('participants:q'));
    expect((await viewer.ask({ type: 'publish', channel: 'participants:other', event: 'e' })).type).toBe('message');
  });
});

/**
 * Who a socket that regained `seePresence` knows is on `room`: its snapshot,
 * plus the joins after it. Each socket is re-checked on its own, so another
 * viewer's arrival can reach the presence store (Redis, on the cluster) after
 * this snapshot was read: it then follows the snapshot as a join.
 */
async function presenceSeen(s: Client): Promise<string[]> {
  const snapshot = await s.next((f) => f.type === 'presence');
  expect(snapshot.channel).toBe('room');
  const joinedSince = (await s.sync()).filter((f) => f.type === 'join').map((f) => f.user.id);
  return [...snapshot.users.map((u: { id: string }) => u.id), ...joinedSince].sort();
}

describe('changes apply to open sockets', () => {
  test('losing `subscribe`: a PERMISSION_DENIED frame for the channel, messages stop, the others hear leave', async () => {
    const c = await new World().attach(app);
    const owner = await open(c, 'owner');
    const viewer = await open(c, 'viewer');
    await join(owner, 'room');
    await join(viewer, 'room');
    expect(await owner.next()).toEqual({ type: 'join', channel: 'room', user: user(c, 'viewer') });

    await setChannels(c, { room: { subscribe: 'editors', publish: 'editors', seePresence: 'viewers', participatePresence: 'viewers' } });
    // Not a reply to anything the viewer sent: `unsubscribed: true` says so.
    expect(await viewer.next()).toEqual({
      type: 'error',
      code: 'PERMISSION_DENIED',
      channel: 'room',
      message: expect.any(String),
      unsubscribed: true,
    });
    expect(await owner.next()).toEqual({ type: 'leave', channel: 'room', user: user(c, 'viewer') });
    owner.send({ type: 'publish', channel: 'room', event: 'secret', data: 1 });
    await owner.next((f) => f.type === 'message');
    expect(await viewer.sync()).toEqual([]);
    expect(viewer.closeInfo).toBeNull();
    expect(await owner.ask({ type: 'presence', channel: 'room' })).toEqual({
      type: 'presence',
      channel: 'room',
      users: [user(c, 'owner')],
    });
  });

  test('losing and regaining `seePresence` and `participatePresence`', async () => {
    const c = await new World().attach(app);
    const owner = await open(c, 'owner');
    const viewer = await open(c, 'viewer');
    const viewer2 = await open(c, 'viewer2');
    await join(owner, 'room');
    await join(viewer, 'room');
    await owner.next((f) => f.type === 'join');

    // Viewers stop appearing and stop seeing: the owner hears the viewer leave.
    await setChannels(c, { room: { subscribe: 'viewers', publish: 'editors', seePresence: 'editors', participatePresence: 'editors' } });
    expect(await owner.next()).toEqual({ type: 'leave', channel: 'room', user: user(c, 'viewer') });
    await join(viewer2, 'room');
    expect(await viewer.sync()).toEqual([]);
    expect(await owner.sync()).toEqual([]);

    // Back to the defaults: both viewers appear (join) and see others again,
    // starting from a snapshot of who is there now.
    await setChannels(c, {});
    const joins = [await owner.next(), await owner.next()].map((f) => f.user.id).sort();
    expect(joins).toEqual([c.ids.viewer, c.ids.viewer2].sort());
    const everyone = [c.ids.owner, c.ids.viewer, c.ids.viewer2].sort();
    expect(await presenceSeen(viewer2)).toEqual(everyone);
    expect(await presenceSeen(viewer)).toEqual(everyone);
    await owner.close();
    expect(await viewer.next()).toEqual({ type: 'leave', channel: 'room', user: user(c, 'owner') });
  });

  test('a role change (PUT members) applies at once: a promoted viewer publishes, a demoted editor no longer does', async () => {
    const c = await new World().attach(app);
    const viewer = await open(c, 'viewer');
    const editor = await open(c, 'editor');
    expect(await viewer.ask({ type: 'publish', channel: 'room', event: 'e' })).toEqual(denied('room'));
    const emailOf = async (who: Person) => (await app.ctx.users.byId(c.ids[who]))!.email;
    await api('PUT', `/api/canvases/${c.canvas.id}/members`, c.cookie.owner, { email: await emailOf('viewer'), role: 'editor' });
    await api('PUT', `/api/canvases/${c.canvas.id}/members`, c.cookie.owner, { email: await emailOf('editor'), role: 'viewer' });
    expect((await viewer.ask({ type: 'publish', channel: 'room', event: 'e' })).from.canvasRole).toBe('editor');
    expect(await editor.ask({ type: 'publish', channel: 'room', event: 'e' })).toEqual(denied('room'));
  });
});

describe('revalidation closes sockets', () => {
  const closedWith = async (s: Client, code: number) => {
    const info = await s.closed;
    expect(info.code).toBe(code);
  };

  test('unpublish: every socket of the canvas, owners included, closes with 4401', async () => {
    const c = await new World().attach(app);
    const other = await new World().attach(app);
    const owner = await open(c, 'owner');
    const viewer = await open(c, 'viewer');
    const elsewhere = await open(other, 'viewer');
    app.ctx.events.emit('canvas.unpublished', { canvasId: c.canvas.id });
    await closedWith(owner, 4401);
    await closedWith(viewer, 4401);
    expect((await elsewhere.ask({ type: 'presence', channel: 'x' })).type).toBe('presence');
  });

  test('delete (DELETE /api/canvases/{id}): 4401', async () => {
    const c = await new World().attach(app);
    const owner = await open(c, 'owner');
    await api('DELETE', `/api/canvases/${c.canvas.id}`, c.cookie.owner);
    await closedWith(owner, 4401);
  });

  const removals: Array<[string, Person, (c: World) => string]> = [
    ['a removed member', 'viewer', (c) => `/api/canvases/${c.canvas.id}/members/${c.ids.viewer}`],
    ['a revoked guest invite', 'guest', (c) => `/api/canvases/${c.canvas.id}/guest-invites/${c.ids.guest.slice('guest:'.length)}`],
  ];
  for (const [what, who, route] of removals) {
    test(`${what}: 4401 for them, the others stay and hear leave`, async () => {
      const c = await new World().attach(app);
      const owner = await open(c, 'owner');
      const removed = await open(c, who);
      await join(owner, 'room');
      await join(removed, 'room');
      await owner.next((f) => f.type === 'join');
      await api('DELETE', route(c), c.cookie.owner);
      await closedWith(removed, 4401);
      expect(await owner.next()).toEqual({ type: 'leave', channel: 'room', user: user(c, who) });
      expect(owner.closeInfo).toBeNull();
    });
  }

  test('the canvas became a Public link: viewers 4401 (static-only), editors stay', async () => {
    const c = await new World().attach(app);
    const viewer = await open(c, 'viewer');
    const editor = await open(c, 'editor');
    await api('PATCH', `/api/canvases/${c.canvas.id}`, c.cookie.owner, { accessMode: 'public_link' });
    await closedWith(viewer, 4401);
    expect((await editor.ask({ type: 'presence', channel: 'x' })).type).toBe('presence');
  });

  test('a password set: viewers without a gate pass 4401, owners and editors stay', async () => {
    const c = await new World().attach(app);
    const viewer = await open(c, 'viewer');
    const owner = await open(c, 'owner');
    await api('PATCH', `/api/canvases/${c.canvas.id}`, c.cookie.owner, { password: 'open sesame' });
    await closedWith(viewer, 4401);
    expect((await owner.ask({ type: 'presence', channel: 'x' })).type).toBe('presence');
  });

  test('a user deactivated by an admin: 4401 on every canvas', async () => {
    const c = await new World().attach(app);
    const viewer = await open(c, 'viewer');
    const owner = await open(c, 'owner');
    await api('PATCH', `/api/admin/users/${c.ids.viewer}`, adminCookie, { active: false });
    await closedWith(viewer, 4401);
    expect(owner.closeInfo).toBeNull();
  });

  test('archived (4401) and admin-disabled (4401)', async () => {
    const c = await new World().attach(app);
    const owner = await open(c, 'owner');
    await api('POST', `/api/canvases/${c.canvas.id}/archive`, c.cookie.owner);
    await closedWith(owner, 4401);
    const d = await new World().attach(app);
    const editor = await open(d, 'editor');
    await api('POST', `/api/admin/canvases/${d.canvas.id}/disable`, adminCookie, { reason: 'abuse' });
    await closedWith(editor, 4401);
  });

  test('signing out: the next operation finds the session gone and closes with 4401', async () => {
    const c = await new World().attach(app);
    const viewer = await open(c, 'viewer');
    const res = await app.request('/auth/logout', { method: 'POST', cookie: c.cookie.viewer });
    expect(res.status).toBeLessThan(400);
    viewer.send({ type: 'presence', channel: 'x' });
    await closedWith(viewer, 4401);
    expect(viewer.frames).toEqual([]);
  });

  test('realtime switched off mid-session: CAPABILITY_DISABLED, then 4403, for everyone on the canvas', async () => {
    const c = await new World().attach(app);
    const owner = await open(c, 'owner');
    const viewer = await open(c, 'viewer');
    await api('PATCH', `/api/canvases/${c.canvas.id}/capabilities`, c.cookie.owner, { realtime: false });
    for (const s of [owner, viewer]) {
      await closedWith(s, 4403);
      expect(s.frames).toEqual([
        {
          type: 'error',
          code: 'CAPABILITY_DISABLED',
          capability: 'realtime',
          backendEnabled: true,
          reason: 'feature_off',
          hint: expect.stringMatching(/\S/),
          message: expect.any(String),
        },
      ]);
    }
  });

  test('a change the store saw without any event is still caught by the next operation', async () => {
    const c = await new World().attach(app);
    const viewer = await open(c, 'viewer');
    // Straight to the store on purpose: the API would emit the event this test does without.
    await app.ctx.canvases.update(c.canvas.id, { cap_backend: 0 }, app.ctx.now());
    viewer.send({ type: 'subscribe', channel: 'x' });
    await closedWith(viewer, 4403);
    expect(viewer.frames).toEqual([
      {
        type: 'error',
        code: 'CAPABILITY_DISABLED',
        capability: 'realtime',
        backendEnabled: false,
        reason: 'backend_off',
        hint: expect.stringMatching(/\S/),
        message: expect.any(String),
      },
    ]);
  });
});

describe('receivers are re-checked before a fan-out', () => {
  test('a listener who signed out elsewhere is closed with 4401 at once, and hears nothing more', async () => {
    const c = await new World().attach(app);
    const { owner, viewer } = await ownerAndViewerInRoom(c);
    // The viewer's own socket sends nothing: the sign-out itself closes it.
    expect((await app.request('/auth/logout', { method: 'POST', cookie: c.cookie.viewer })).status).toBe(200);
    expect((await viewer.closed).code).toBe(4401);
    expect(await owner.next()).toEqual({ type: 'leave', channel: 'room', user: user(c, 'viewer') });
    owner.send({ type: 'publish', channel: 'room', event: 'after' });
    expect((await owner.next((f) => f.type === 'message')).event).toBe('after');
    expect(viewer.frames.filter((f) => f.type === 'message')).toEqual([]);
  });

  test('a session ended straight in the store (no event): the next publish closes the listener instead of reaching it', async () => {
    const c = await new World().attach(app);
    const { owner, viewer } = await ownerAndViewerInRoom(c);
    // Straight to the store on purpose: signing out would emit the event this test does without.
    await app.ctx.sql.run('DELETE FROM sessions WHERE user_id = ?1', c.ids.viewer);
    owner.send({ type: 'publish', channel: 'room', event: 'secret' });
    expect((await owner.next((f) => f.type === 'message')).event).toBe('secret');
    expect((await viewer.closed).code).toBe(4401);
    expect(viewer.frames.filter((f) => f.type === 'message')).toEqual([]);
  });

  test('a share that expires with time alone: viewers are closed by the next publish, editors keep listening', async () => {
    let clock = Date.now();
    const own = await startTestApp({ listen: true, now: () => clock, env: { EASEL_RATELIMIT_ENABLED: 'false' } });
    try {
      const c = await new World().attach(own);
      const patch = await own.request(`/api/canvases/${c.canvas.id}`, {
        method: 'PATCH',
        cookie: c.cookie.owner,
        json: { expiresAt: clock + 60_000 },
      });
      expect(patch.status).toBe(200);
      const owner = await connect(own, c.canvas.slug, c.cookie.owner);
      const editor = await connect(own, c.canvas.slug, c.cookie.editor);
      const viewer = await connect(own, c.canvas.slug, c.cookie.viewer);
      for (const s of [owner, editor, viewer]) await s.subscribe('room');
      clock += 120_000;
      owner.send({ type: 'publish', channel: 'room', event: 'late' });
      expect((await editor.next((f) => f.type === 'message')).event).toBe('late');
      expect((await viewer.closed).code).toBe(4401);
      expect(viewer.frames.filter((f) => f.type === 'message')).toEqual([]);
    } finally {
      await own.close();
    }
  });
});

describe('the periodic sweep', () => {
  test('an idle socket whose share ran out is closed within 15 s, without any operation; editors stay', async () => {
    const clock = new ManualClock(Date.now());
    const own = await startTestApp({ listen: true, now: clock.now, scheduler: clock.scheduler, env: { EASEL_RATELIMIT_ENABLED: 'false' } });
    try {
      const c = await new World().attach(own);
      const patch = await own.request(`/api/canvases/${c.canvas.id}`, {
        method: 'PATCH',
        cookie: c.cookie.owner,
        json: { expiresAt: clock.now() + 60_000 },
      });
      expect(patch.status).toBe(200);
      const editor = await connect(own, c.canvas.slug, c.cookie.editor);
      const viewer = await connect(own, c.canvas.slug, c.cookie.viewer);
      for (const s of [editor, viewer]) await s.subscribe('room');
      await viewer.sync();
      // Sweeps at 15, 30 and 45 s: the share is still good.
      clock.advance(45_000);
      expect(await viewer.sync()).toEqual([]);
      // It runs out at 60 s, and the sweep then finds it with nobody sending anything.
      clock.advance(15_000);
      expect((await viewer.closed).code).toBe(4401);
      expect((await editor.ask({ type: 'presence', channel: 'room' })).type).toBe('presence');
    } finally {
      await own.close();
    }
  });
});

describe('shutdown', () => {
  test('open sockets close with 1001', async () => {
    const own = await startTestApp({ listen: true });
    const c = await new World().attach(own);
    const s = await connect(own, c.canvas.slug, c.cookie.viewer);
    await s.subscribe('room');
    const closing = own.close();
    expect((await s.closed).code).toBe(1001);
    await closing;
  });
});
