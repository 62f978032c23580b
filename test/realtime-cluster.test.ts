// passes: embedded — starts its own Postgres and Redis
// Realtime across two nodes (issue 21 item 3): two app instances in this
// process share one data directory and one Redis (test/support/cluster.ts),
// with real WebSockets on each. A message crosses once, presence lists each
// person once, the caps count both nodes, channel rights hold on the
// receiving node, and a node that dies is reaped after the TTL, driven by
// the manual clock.
//
// Proving that nothing more came from the other node: a node sends what it
// owes other nodes before the signal a test waits on (the answer to a
// frame, `realtime.closed`), and Redis hands each node the frames in the
// order they were published. So a marker published after that signal
// arrives after anything the action sent: the frames before the marker are
// everything it sent.
import { RedisClient } from 'bun';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { REALTIME_LIMITS } from '../src/runtime/realtime/limits.ts';
import { keys } from '../src/runtime/realtime/redis/keys.ts';
import { RedisUnavailableAtStart } from '../src/runtime/realtime/redis/start-error.ts';
import { startTestApp, type TestApp } from './harness.ts';
import { ManualClock } from './manual-clock.ts';
import { connect, type Client, type Frame } from './realtime-helpers.ts';
import { nextEvent } from './signals.ts';
import { startCluster, type Cluster } from './support/cluster.ts';
import { startPgCluster, type PgCluster } from './support/pg-cluster.ts';
import { ADMIN_EMAIL, World, type Person } from './world.ts';

const ENV = { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_RATELIMIT_ENABLED: 'false' };

const user = (c: World, who: Person) => ({ id: c.ids[who], name: c.names[who] });
const messages = (frames: Frame[]) => frames.filter((f) => f.type === 'message').map((f) => f.data);
const isMessage = (data: unknown) => (f: Frame) => f.type === 'message' && JSON.stringify(f.data) === JSON.stringify(data);

/** Subscribes and waits for `subscribed` (and the snapshot when one comes, returned). */
async function join(s: Client, channel: string, snapshot = true): Promise<Frame | null> {
  expect((await s.subscribe(channel))[0]).toEqual({ type: 'subscribed', channel });
  return snapshot ? s.next((f) => f.type === 'presence' && f.channel === channel) : null;
}

/** The socket's next presence answer on `channel`. */
async function presence(s: Client, channel: string): Promise<unknown> {
  s.send({ type: 'presence', channel });
  return (await s.next((f) => f.type === 'presence' && f.channel === channel)).users;
}

/** Waits until the socket holds its slot (its frames are handled), or throws when it was refused. */
async function holding(s: Client): Promise<Client> {
  await s.sync();
  return s;
}

/** Closes the socket and waits until its node recorded the departure (presence, slot) in Redis. */
async function closeOn(node: TestApp, c: World, s: Client): Promise<void> {
  const gone = nextEvent(node, 'realtime.closed', (e) => e.canvasId === c.canvas.id);
  await s.close();
  await gone;
}

describe('two nodes, one Redis', () => {
  let cluster: Cluster;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    cluster = await startCluster({ env: ENV });
    ({ a, b } = cluster);
  });
  afterAll(() => cluster.close());

  test('a message published on node A reaches a socket on B once, and another socket on A once', async () => {
    const c = await new World().attach(a);
    const editorA = await connect(a, c.canvas.slug, c.cookie.editor);
    const ownerA = await connect(a, c.canvas.slug, c.cookie.owner);
    const viewerB = await connect(b, c.canvas.slug, c.cookie.viewer);
    const editorB = await connect(b, c.canvas.slug, c.cookie.editor);
    for (const s of [editorA, ownerA, viewerB, editorB]) await join(s, 'room');

    editorA.send({ type: 'publish', channel: 'room', event: 'tick', data: { n: 1 } });
    const first = await viewerB.next(isMessage({ n: 1 }));
    expect(first).toEqual({
      type: 'message',
      channel: 'room',
      event: 'tick',
      data: { n: 1 },
      from: { ...user(c, 'editor'), canvasRole: 'editor' },
    });
    // Published on B once B had message 1: a second copy of 1 on A (its own, back from Redis) would come before 2.
    editorB.send({ type: 'publish', channel: 'room', event: 'tick', data: { n: 2 } });
    expect(messages(await ownerA.until(isMessage({ n: 2 })))).toEqual([{ n: 1 }, { n: 2 }]);
    // And the other way round: a second copy of 2 on B would come before 3.
    editorA.send({ type: 'publish', channel: 'room', event: 'tick', data: { n: 3 } });
    expect(messages(await viewerB.until(isMessage({ n: 3 })))).toEqual([{ n: 2 }, { n: 3 }]);
    expect(messages(await editorA.until(isMessage({ n: 3 })))).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(messages(await editorB.until(isMessage({ n: 3 })))).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  });

  test('presence from either node lists both people once; a join on one node is heard on the other', async () => {
    const c = await new World().attach(a);
    const ownerA = await connect(a, c.canvas.slug, c.cookie.owner);
    const viewerB = await connect(b, c.canvas.slug, c.cookie.viewer);
    expect(await join(ownerA, 'room')).toEqual({ type: 'presence', channel: 'room', users: [user(c, 'owner')] });
    expect(await join(viewerB, 'room')).toEqual({ type: 'presence', channel: 'room', users: [user(c, 'owner'), user(c, 'viewer')] });
    expect(await ownerA.next((f) => f.type === 'join')).toEqual({ type: 'join', channel: 'room', user: user(c, 'viewer') });
    expect(await presence(ownerA, 'room')).toEqual([user(c, 'owner'), user(c, 'viewer')]);
    expect(await presence(viewerB, 'room')).toEqual([user(c, 'owner'), user(c, 'viewer')]);
    // The joiner does not hear its own join.
    expect((await viewerB.sync()).filter((f) => f.type === 'join')).toEqual([]);
  });

  test('a person with sockets on both nodes appears once and leaves only when the last one, anywhere, closes', async () => {
    const c = await new World().attach(a);
    const ownerA = await connect(a, c.canvas.slug, c.cookie.owner);
    const editorB = await connect(b, c.canvas.slug, c.cookie.editor);
    await join(ownerA, 'room');
    await join(editorB, 'room');
    await ownerA.next((f) => f.type === 'join');

    const tabB = await connect(b, c.canvas.slug, c.cookie.viewer);
    await join(tabB, 'room');
    await ownerA.next((f) => f.type === 'join' && f.user.id === c.ids.viewer);
    await editorB.next((f) => f.type === 'join' && f.user.id === c.ids.viewer);
    const tabA = await connect(a, c.canvas.slug, c.cookie.viewer);
    const everyone = [user(c, 'owner'), user(c, 'editor'), user(c, 'viewer')];
    expect(await join(tabA, 'room')).toEqual({ type: 'presence', channel: 'room', users: everyone });
    expect(await presence(editorB, 'room')).toEqual(everyone);

    // The first tab goes (on B): nobody hears a leave; the viewer is still listed from both nodes.
    await closeOn(b, c, tabB);
    editorB.send({ type: 'publish', channel: 'room', event: 'marker', data: 'after-tab-b' });
    for (const s of [ownerA, editorB]) {
      const seen = await s.until(isMessage('after-tab-b'));
      expect(seen.filter((f) => f.type === 'join' || f.type === 'leave')).toEqual([]);
    }
    expect(await presence(ownerA, 'room')).toEqual(everyone);
    expect(await presence(editorB, 'room')).toEqual(everyone);

    // The last one goes (on A): both nodes hear the leave.
    await tabA.close();
    const leave = { type: 'leave', channel: 'room', user: user(c, 'viewer') };
    expect(await ownerA.next((f) => f.type === 'leave')).toEqual(leave);
    expect(await editorB.next((f) => f.type === 'leave')).toEqual(leave);
    expect(await presence(editorB, 'room')).toEqual([user(c, 'owner'), user(c, 'editor')]);
  });

  test('channel rights apply on the receiving node: no message without subscribe, no join without seePresence', async () => {
    const c = await new World().attach(a);
    const view = await c.expectOk('GET', `/api/canvases/${c.canvas.id}`, 'owner');
    await c.expectOk('PATCH', `/api/canvases/${c.canvas.id}/capabilities`, 'owner', {
      expectedRuntimePolicy: view.runtimePolicyRevision,
      runtimePolicy: {
        channels: {
          staff: { subscribe: 'editors', publish: 'editors', seePresence: 'editors', participatePresence: 'editors' },
          board: { subscribe: 'viewers', publish: 'editors', seePresence: 'editors', participatePresence: 'editors' },
        },
      },
    });
    const viewerB = await connect(b, c.canvas.slug, c.cookie.viewer);
    const editorB = await connect(b, c.canvas.slug, c.cookie.owner);
    expect(await viewerB.ask({ type: 'subscribe', channel: 'staff' })).toMatchObject({
      type: 'error',
      code: 'PERMISSION_DENIED',
      channel: 'staff',
    });
    await join(viewerB, 'board', false);
    await join(editorB, 'staff');
    await join(editorB, 'board');

    const editorA = await connect(a, c.canvas.slug, c.cookie.editor);
    await join(editorA, 'board');
    expect(await editorB.next((f) => f.type === 'join')).toEqual({ type: 'join', channel: 'board', user: user(c, 'editor') });
    editorA.send({ type: 'publish', channel: 'staff', event: 'note', data: 'staff only' });
    editorA.send({ type: 'publish', channel: 'board', event: 'note', data: 'for everyone' });
    expect(messages(await editorB.until(isMessage('for everyone')))).toEqual(['staff only', 'for everyone']);
    // Staff's message and the editor's join went out on B before the board message: the viewer got neither.
    expect(await viewerB.until(isMessage('for everyone'))).toEqual([
      { type: 'message', channel: 'board', event: 'note', data: 'for everyone', from: { ...user(c, 'editor'), canvasRole: 'editor' } },
    ]);
  });
});

// Issue 21: a revocation on one node takes effect on every node at once. The
// hub's events are its own node's; the other node hears the change through
// Postgres (LISTEN/NOTIFY) and re-checks its sockets then, long before the
// 15 s sweep. The nodes' clock stands still (the sweep never runs, nor does
// the receivers' one-second re-check lapse): only the change can close the
// socket. The tests wait on the close itself.
describe('two nodes on one Postgres: a revocation through node A closes the sockets on node B', () => {
  let cluster: PgCluster;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    const clock = new ManualClock();
    cluster = await startPgCluster({ listen: true, env: ENV, now: clock.now, scheduler: clock.scheduler });
    ({ a, b } = cluster);
  });
  afterAll(() => cluster.close());

  test('signed out on A: the socket on B closes with 4401; the others stay', async () => {
    const c = await new World().attach(a);
    const viewerB = await holding(await connect(b, c.canvas.slug, c.cookie.viewer));
    const editorB = await holding(await connect(b, c.canvas.slug, c.cookie.editor));
    await join(viewerB, 'room');
    await join(editorB, 'room');
    const out = await a.request('/auth/logout', { method: 'POST', cookie: c.cookie.viewer });
    expect(out.status).toBe(200);
    expect(await viewerB.closed).toEqual({ code: 4401, reason: 'access to the canvas was lost' });
    // The editor, still a member, hears the viewer leave and stays connected.
    expect(await editorB.next((f) => f.type === 'leave')).toEqual({ type: 'leave', channel: 'room', user: user(c, 'viewer') });
    expect(await presence(editorB, 'room')).toEqual([user(c, 'editor')]);
  });

  test('removed from the canvas on A: the socket on B closes with 4401', async () => {
    const c = await new World().attach(a);
    const viewerB = await holding(await connect(b, c.canvas.slug, c.cookie.viewer));
    const ownerB = await holding(await connect(b, c.canvas.slug, c.cookie.owner));
    await c.expectOk('DELETE', `/api/canvases/${c.canvas.id}/members/${c.ids.viewer}`, 'owner');
    expect(await viewerB.closed).toEqual({ code: 4401, reason: 'access to the canvas was lost' });
    await ownerB.sync();
    expect(ownerB.closeInfo).toBeNull();
  });

  test('unpublished through A: every socket of the canvas on B closes with 4401, owners included; other canvases stay', async () => {
    const c = await new World().attach(a);
    await c.deploy();
    const ownerB = await holding(await connect(b, c.canvas.slug, c.cookie.owner));
    const viewerB = await holding(await connect(b, c.canvas.slug, c.cookie.viewer));
    const elsewhereB = await holding(await connect(b, c.other.slug, c.cookie.stranger));
    await c.unpublish();
    const lost = { code: 4401, reason: 'the canvas was unpublished' };
    expect(await ownerB.closed).toEqual(lost);
    expect(await viewerB.closed).toEqual(lost);
    await elsewhereB.sync();
    expect(elsewhereB.closeInfo).toBeNull();
  });

  test("a guest invite revoked on A: the guest's socket on B closes with 4401", async () => {
    const c = await new World().attach(a);
    const guestB = await holding(await connect(b, c.canvas.slug, c.cookie.guest));
    const ownerB = await holding(await connect(b, c.canvas.slug, c.cookie.owner));
    await c.expectOk('DELETE', `/api/canvases/${c.canvas.id}/guest-invites/${c.ids.guest.slice('guest:'.length)}`, 'owner');
    expect(await guestB.closed).toEqual({ code: 4401, reason: 'access to the canvas was lost' });
    await ownerB.sync();
    expect(ownerB.closeInfo).toBeNull();
  });
});

describe('the connection caps count both nodes', () => {
  const { connectionsPerCanvas: CANVAS, connectionsPerPerson: PERSON, connectionsReservedForManagers: RESERVED } = REALTIME_LIMITS;
  let cluster: Cluster;
  let a: TestApp;
  let b: TestApp;
  /** Five viewers per canvas (the cast's two and three more), each with PERSON sockets to give. */
  const viewers: string[] = [];
  const emails: string[] = [];
  beforeAll(async () => {
    cluster = await startCluster({ env: ENV });
    ({ a, b } = cluster);
    for (let i = 0; i < (CANVAS - RESERVED) / PERSON + 1 - 2; i++) {
      emails.push(`cap-viewer-${i}@example.com`);
      viewers.push(await a.signIn(emails[i]!));
    }
  });
  afterAll(() => cluster.close());

  /** A canvas with five viewers (and a sixth, `spare`, with no socket yet). */
  async function canvasWithViewers(): Promise<{ c: World; v: string[]; spare: string }> {
    const c = await new World().attach(a);
    for (const email of emails) await c.expectOk('PUT', `/api/canvases/${c.canvas.id}/members`, 'owner', { email, role: 'viewer' });
    const v = [c.cookie.viewer, c.cookie.viewer2, ...viewers];
    return { c, v: v.slice(0, 5), spare: v[5]! };
  }

  const refused = async (s: Client, because: string) => {
    const info = await s.closed;
    expect([info.code, info.reason]).toEqual([4429, expect.stringContaining(because)]);
    expect(s.frames).toEqual([]);
  };

  test(`${CANVAS / 2} sockets on each node fill a canvas: the ${CANVAS + 1}st is refused on either; per person and the managers' reserve count both nodes too`, async () => {
    const { c, v, spare } = await canvasWithViewers();
    const open = (node: TestApp, cookie: string) => connect(node, c.canvas.slug, cookie).then(holding);
    const held: Client[] = [];
    // One viewer across both nodes: 3 on A and 2 on B, then a sixth is refused on either.
    for (let i = 0; i < 3; i++) held.push(await open(a, v[0]!));
    for (let i = 0; i < 2; i++) held.push(await open(b, v[0]!));
    await refused(await connect(a, c.canvas.slug, v[0]!), 'one person');
    await refused(await connect(b, c.canvas.slug, v[0]!), 'one person');
    // Viewers fill the other 20 of their 25, split across the nodes (A: 3 + 5 + 5 + 2 = 15, B: 2 + 5 + 3 = 10).
    for (let i = 0; i < PERSON; i++) held.push(await open(a, v[1]!));
    for (let i = 0; i < PERSON; i++) held.push(await open(b, v[2]!));
    for (let i = 0; i < PERSON; i++) held.push(await open(a, v[3]!));
    for (let i = 0; i < 2; i++) held.push(await open(a, v[4]!));
    for (let i = 0; i < 3; i++) held.push(await open(b, v[4]!));
    // The last 5 are the managers'.
    await refused(await connect(b, c.canvas.slug, spare), 'owners and editors');
    await refused(await connect(a, c.canvas.slug, spare), 'owners and editors');
    for (let i = 0; i < 3; i++) held.push(await open(b, c.cookie.owner));
    for (let i = 0; i < 2; i++) held.push(await open(b, c.cookie.editor));
    expect(held.length).toBe(CANVAS);
    expect([a.features.realtime.openConnections(), b.features.realtime.openConnections()]).toEqual([15, 15]);
    await refused(await connect(a, c.canvas.slug, c.cookie.owner), `at most ${CANVAS}`);
    await refused(await connect(b, c.canvas.slug, c.cookie.editor), `at most ${CANVAS}`);

    // A slot freed on A is taken on B.
    await closeOn(a, c, held[5]!);
    await open(b, c.cookie.owner);
    await refused(await connect(a, c.canvas.slug, c.cookie.editor), `at most ${CANVAS}`);
  });

  test('two nodes racing for the last slot: exactly one gets it', async () => {
    const { c, v } = await canvasWithViewers();
    const open = (node: TestApp, cookie: string) => connect(node, c.canvas.slug, cookie).then(holding);
    for (let i = 0; i < CANVAS - RESERVED; i++) await open(i % 2 ? a : b, v[Math.floor(i / PERSON)]!);
    for (let i = 0; i < RESERVED - 1; i++) await open(i % 2 ? a : b, c.cookie[i % 2 ? 'owner' : 'editor']);
    const racers = await Promise.all([connect(a, c.canvas.slug, c.cookie.owner), connect(b, c.canvas.slug, c.cookie.owner)]);
    const outcomes = await Promise.allSettled(racers.map((s) => s.sync()));
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const loser = racers[outcomes.findIndex((o) => o.status === 'rejected')]!;
    expect((await loser.closed).code).toBe(4429);
  });
});

describe('a node that goes away', () => {
  test('a clean stop: its people leave at once, and nothing of it is left in Redis', async () => {
    const cluster = await startCluster({ env: ENV });
    try {
      const { a, b } = cluster;
      const c = await new World().attach(b);
      const ownerA = await connect(a, c.canvas.slug, c.cookie.owner);
      const viewerB = await connect(b, c.canvas.slug, c.cookie.viewer);
      await join(ownerA, 'room');
      await join(viewerB, 'room');
      await a.close();
      expect((await ownerA.closed).code).toBe(1001);
      expect(await viewerB.next((f) => f.type === 'leave')).toEqual({ type: 'leave', channel: 'room', user: user(c, 'owner') });
      expect(await presence(viewerB, 'room')).toEqual([user(c, 'viewer')]);
      // Nothing of A's is left in Redis: B's one slot, and B alone among the nodes.
      const redis = new RedisClient(cluster.redisUrl);
      try {
        expect(await redis.send('HLEN', [keys.slots(c.canvas.id)])).toBe(1);
        expect(await redis.send('ZCARD', [keys.nodes])).toBe(1);
      } finally {
        redis.close();
      }
    } finally {
      await cluster.close();
    }
  });

  test('cut off without a word: its people and slots stay until the TTL runs out on the clock, then every node hears them leave', async () => {
    const { connectionsPerCanvas: CANVAS, connectionsPerPerson: PERSON } = REALTIME_LIMITS;
    const clock = new ManualClock();
    const TTL = 20_000;
    const HEARTBEAT = 5_000;
    const cluster = await startCluster({
      env: ENV,
      now: clock.now,
      scheduler: clock.scheduler,
      realtime: { nodeTtlMs: TTL, heartbeatMs: HEARTBEAT },
    });
    try {
      const { a, b } = cluster;
      const c = await new World().attach(b);
      const extra: string[] = [];
      for (const email of ['ttl-1@example.com', 'ttl-2@example.com']) {
        extra.push(await b.signIn(email));
        await c.expectOk('PUT', `/api/canvases/${c.canvas.id}/members`, 'owner', { email, role: 'viewer' });
      }
      // A holds 15 sockets (the owner's 5 in `room`), B the other 15: the canvas is full. Viewers first (they may not take the last 5).
      const open = async (node: TestApp, cookie: string) => holding(await connect(node, c.canvas.slug, cookie));
      for (let i = 0; i < PERSON; i++) await open(a, c.cookie.viewer2);
      const viewerB = await open(b, c.cookie.viewer);
      await join(viewerB, 'room');
      for (let i = 1; i < PERSON; i++) await open(b, c.cookie.viewer);
      for (const cookie of extra) for (let i = 0; i < PERSON; i++) await open(b, cookie);
      for (let i = 0; i < PERSON; i++) await join(await open(a, c.cookie.owner), 'room');
      for (let i = 0; i < PERSON; i++) await open(a, c.cookie.editor);
      expect([a.features.realtime.openConnections(), b.features.realtime.openConnections()]).toEqual([CANVAS / 2, CANVAS / 2]);
      await viewerB.next((f) => f.type === 'join');

      // A dies: its Redis connections drop, nothing is given back.
      cluster.cut(a);
      await a.close();
      expect(await presence(viewerB, 'room')).toEqual([user(c, 'viewer'), user(c, 'owner')]);
      const full = await connect(b, c.canvas.slug, c.cookie.editor);
      expect((await full.closed).code).toBe(4429);

      // Still there a heartbeat before the TTL runs out…
      clock.advance(TTL - HEARTBEAT);
      expect(await presence(viewerB, 'room')).toEqual([user(c, 'viewer'), user(c, 'owner')]);
      // …and reaped by B's next heartbeat after it.
      const reaped = nextEvent(b, 'realtime.node-reaped');
      clock.advance(2 * HEARTBEAT);
      expect(await reaped).toMatchObject({ people: 1 });
      expect(await viewerB.next((f) => f.type === 'leave')).toEqual({ type: 'leave', channel: 'room', user: user(c, 'owner') });
      expect(await presence(viewerB, 'room')).toEqual([user(c, 'viewer')]);
      await holding(await connect(b, c.canvas.slug, c.cookie.editor));
    } finally {
      await cluster.close();
    }
  });
});

describe('Redis itself', () => {
  test('Redis lost its data (a restart without persistence): each node puts its sockets back at its next heartbeat', async () => {
    const clock = new ManualClock();
    const HEARTBEAT = 5_000;
    const cluster = await startCluster({ env: ENV, now: clock.now, scheduler: clock.scheduler, realtime: { heartbeatMs: HEARTBEAT } });
    const redis = new RedisClient(cluster.redisUrl);
    try {
      const { a, b } = cluster;
      const c = await new World().attach(a);
      const ownerA = await connect(a, c.canvas.slug, c.cookie.owner);
      const viewerB = await connect(b, c.canvas.slug, c.cookie.viewer);
      await join(ownerA, 'room');
      await join(viewerB, 'room');
      await ownerA.next((f) => f.type === 'join');

      await redis.send('FLUSHDB', []);
      expect(await presence(viewerB, 'room')).toEqual([]);
      clock.advance(HEARTBEAT);
      // Each node announces the people it put back (joins for those the others may have seen leave).
      await viewerB.next((f) => f.type === 'join' && f.user.id === c.ids.owner);
      await ownerA.next((f) => f.type === 'join' && f.user.id === c.ids.viewer);
      expect((await presence(viewerB, 'room')) as unknown[]).toHaveLength(2);
      expect(await redis.send('HLEN', [keys.slots(c.canvas.id)])).toBe(2);
      expect(await redis.send('ZCARD', [keys.nodes])).toBe(2);
    } finally {
      redis.close();
      await cluster.close();
    }
  });

  test('a Redis that does not answer stops the start with one line naming EASEL_REDIS_URL', async () => {
    const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
    const port = probe.port;
    probe.stop(true);
    const started = startTestApp({ env: { EASEL_REDIS_URL: `redis://127.0.0.1:${port}/0` }, app: { realtime: { startTimeoutMs: 200 } } });
    const refusal = await started.then(
      () => null,
      (err: unknown) => err,
    );
    expect(refusal).toBeInstanceOf(RedisUnavailableAtStart);
    expect(String((refusal as Error).message)).toBe(
      `EASEL_REDIS_URL: cannot use Redis at redis://127.0.0.1:${port}/0: no answer within 0.2 s`,
    );
  });
});
