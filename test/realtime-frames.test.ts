// passes: embedded, cluster
// Realtime frames between several people: subscribe, presence, join/leave,
// publish with server-stamped `from`, every error frame, and the limits.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { MAX_PAYLOAD_BYTES, REALTIME_LIMITS } from '../src/runtime/realtime/limits.ts';
import { startTestApp, type TestApp } from './harness.ts';
import { connect, type Client } from './realtime-helpers.ts';
import { World, type Person } from './world.ts';

let app: TestApp;
let cast: World;
let clock = Date.UTC(2026, 0, 5, 10, 0, 0);
const sockets: Client[] = [];

beforeAll(async () => {
  // Realtime limits stay on with the HTTP rate limits off.
  app = await startTestApp({ listen: true, now: () => clock, env: { EASEL_RATELIMIT_ENABLED: 'false' } });
  cast = await new World().attach(app);
});
afterAll(() => app.close());

async function open(who: Person, c: World = cast): Promise<Client> {
  const client = await connect(app, c.canvas.slug, c.cookie[who]);
  sockets.push(client);
  return client;
}

const user = (who: Person, c: World = cast) => ({ id: c.ids[who], name: c.names[who] });
const from = (who: Person, canvasRole: string, c: World = cast) => ({ ...user(who, c), canvasRole });

describe('subscribe, presence, join and leave', () => {
  test('subscribe answers `subscribed` and a presence snapshot; the others hear `join`', async () => {
    const c = await new World().attach(app);
    const owner = await open('owner', c);
    expect(await owner.ask({ type: 'subscribe', channel: 'room' })).toEqual({ type: 'subscribed', channel: 'room' });
    expect(await owner.next()).toEqual({ type: 'presence', channel: 'room', users: [user('owner', c)] });

    const viewer = await open('viewer', c);
    expect(await viewer.ask({ type: 'subscribe', channel: 'room' })).toEqual({ type: 'subscribed', channel: 'room' });
    expect(await viewer.next()).toEqual({ type: 'presence', channel: 'room', users: [user('owner', c), user('viewer', c)] });
    expect(await owner.next()).toEqual({ type: 'join', channel: 'room', user: user('viewer', c) });
    // The joiner does not hear its own join.
    expect(await viewer.sync()).toEqual([]);

    expect(await viewer.ask({ type: 'presence', channel: 'room' })).toEqual({
      type: 'presence',
      channel: 'room',
      users: [user('owner', c), user('viewer', c)],
    });
    // Presence of a channel one is not on: allowed (unconfigured channels), empty.
    expect(await viewer.ask({ type: 'presence', channel: 'elsewhere' })).toEqual({ type: 'presence', channel: 'elsewhere', users: [] });
  });

  test('a second socket of the same person: no second join; leave only when the last one goes', async () => {
    const c = await new World().attach(app);
    const owner = await open('owner', c);
    await owner.subscribe('room');
    await owner.next((f) => f.type === 'presence');
    const tab1 = await open('viewer', c);
    const tab2 = await open('viewer', c);
    await tab1.subscribe('room');
    expect(await owner.next()).toEqual({ type: 'join', channel: 'room', user: user('viewer', c) });
    await tab2.subscribe('room');
    expect(await tab2.next()).toEqual({ type: 'presence', channel: 'room', users: [user('owner', c), user('viewer', c)] });
    expect(await owner.sync()).toEqual([]);

    tab1.send({ type: 'unsubscribe', channel: 'room' });
    await tab1.sync(); // the unsubscribe has been handled
    expect(await owner.sync()).toEqual([]);
    await tab2.close();
    expect(await owner.next()).toEqual({ type: 'leave', channel: 'room', user: user('viewer', c) });
  });

  test('unsubscribe: no reply, the others hear leave, and messages stop', async () => {
    const c = await new World().attach(app);
    const editor = await open('editor', c);
    const viewer = await open('viewer', c);
    await editor.subscribe('room');
    await viewer.subscribe('room');
    await editor.next((f) => f.type === 'join');
    viewer.send({ type: 'unsubscribe', channel: 'room' });
    expect(await editor.next()).toEqual({ type: 'leave', channel: 'room', user: user('viewer', c) });
    editor.send({ type: 'publish', channel: 'room', event: 'e', data: 1 });
    await editor.next((f) => f.type === 'message');
    expect((await viewer.sync()).filter((f) => f.type !== 'presence')).toEqual([]);
    // Unsubscribing from a channel one is not on is silent.
    viewer.send({ type: 'unsubscribe', channel: 'never' });
    expect(await viewer.sync()).toEqual([]);
  });

  test('closing the socket is a leave', async () => {
    const c = await new World().attach(app);
    const owner = await open('owner', c);
    const guest = await open('guest', c);
    await owner.subscribe('room');
    await guest.subscribe('room');
    expect(await owner.next((f) => f.type === 'join')).toEqual({
      type: 'join',
      channel: 'room',
      user: { id: c.ids.guest, name: c.names.guest },
    });
    await guest.close();
    expect(await owner.next()).toEqual({ type: 'leave', channel: 'room', user: { id: c.ids.guest, name: c.names.guest } });
  });

  test('subscribing twice answers again and announces nothing', async () => {
    const c = await new World().attach(app);
    const owner = await open('owner', c);
    const viewer = await open('viewer', c);
    await owner.subscribe('room');
    await viewer.subscribe('room');
    await owner.next((f) => f.type === 'join');
    await viewer.next((f) => f.type === 'presence');
    expect(await viewer.ask({ type: 'subscribe', channel: 'room' })).toEqual({ type: 'subscribed', channel: 'room' });
    expect(await owner.sync()).toEqual([]);
  });
});

describe('publish', () => {
  test('fans out to every subscriber, the sender included, with a server-stamped `from`', async () => {
    const c = await new World().attach(app);
    const owner = await open('owner', c);
    const editor = await open('editor', c);
    const viewer = await open('viewer', c);
    const outsider = await open('viewer2', c);
    for (const s of [owner, editor, viewer]) await s.subscribe('room');
    // Drop the snapshots and joins.
    for (const s of [owner, editor, viewer, outsider]) await s.sync();

    editor.send({ type: 'publish', channel: 'room', event: 'chat', data: { text: 'hi', from: { id: 'forged' } } });
    const expected = {
      type: 'message',
      channel: 'room',
      event: 'chat',
      data: { text: 'hi', from: { id: 'forged' } },
      from: from('editor', 'editor', c),
    };
    for (const s of [owner, editor, viewer]) expect(await s.next()).toEqual(expected);
    expect(await outsider.sync()).toEqual([]);
  });

  test('a missing event is sent as "", missing data as null; any JSON data goes through', async () => {
    const c = await new World().attach(app);
    const owner = await open('owner', c);
    await owner.subscribe('room');
    await owner.next((f) => f.type === 'presence');
    expect(await owner.ask({ type: 'publish', channel: 'room' })).toEqual({
      type: 'message',
      channel: 'room',
      event: '',
      data: null,
      from: from('owner', 'owner', c),
    });
    for (const data of [0, 'text', [1, { a: null }], false, { nested: { deep: [true] } }]) {
      expect((await owner.ask({ type: 'publish', channel: 'room', event: 'x', data })).data).toEqual(data);
    }
  });

  test('the sender hears its own message even when not subscribed', async () => {
    const c = await new World().attach(app);
    const owner = await open('owner', c);
    const viewer = await open('viewer', c);
    await viewer.subscribe('news');
    await viewer.next((f) => f.type === 'presence');
    const expected = { type: 'message', channel: 'news', event: 'flash', data: 1, from: from('owner', 'owner', c) };
    expect(await owner.ask({ type: 'publish', channel: 'news', event: 'flash', data: 1 })).toEqual(expected);
    expect(await viewer.next()).toEqual(expected);
  });

  test('unconfigured channels: viewers and guests may not publish…', async () => {
    const c = await new World().attach(app);
    for (const who of ['viewer', 'guest'] as const) {
      const s = await open(who, c);
      await s.subscribe('room');
      await s.next((f) => f.type === 'presence');
      expect(await s.ask({ type: 'publish', channel: 'room', event: 'e', data: 1 })).toEqual({
        type: 'error',
        code: 'PERMISSION_DENIED',
        channel: 'room',
        message: expect.any(String),
      });
    }
  });

  test('…except on `participants:` channels, with attribution', async () => {
    const c = await new World().attach(app);
    const viewer = await open('viewer', c);
    const guest = await open('guest', c);
    await viewer.subscribe('participants:lobby');
    await viewer.next((f) => f.type === 'presence');
    expect(await viewer.ask({ type: 'publish', channel: 'participants:lobby', event: 'hi', data: 'v' })).toEqual({
      type: 'message',
      channel: 'participants:lobby',
      event: 'hi',
      data: 'v',
      from: from('viewer', 'viewer', c),
    });
    guest.send({ type: 'publish', channel: 'participants:lobby', event: 'hi', data: 'g' });
    expect((await viewer.next()).from).toEqual({ id: c.ids.guest, name: c.names.guest, canvasRole: 'viewer' });
  });

  test('`from.canvasRole` is the live role: a promotion shows on the next message', async () => {
    const c = await new World().attach(app);
    const viewer = await open('viewer2', c);
    expect((await viewer.ask({ type: 'publish', channel: 'participants:x', event: 'e' })).from.canvasRole).toBe('viewer');
    // A direct store change, without any event: the next operation reads the live role.
    await app.ctx.canvases.setMember(c.canvas.id, c.ids.viewer2, 'editor', app.ctx.now());
    expect((await viewer.ask({ type: 'publish', channel: 'room', event: 'e' })).from).toEqual(from('viewer2', 'editor', c));
  });

  test('messages stay on their canvas', async () => {
    const a = await new World().attach(app);
    const b = await new World().attach(app);
    const inA = await open('owner', a);
    const inB = await open('owner', b);
    await inA.subscribe('room');
    await inB.subscribe('room');
    await inA.sync();
    await inB.sync();
    inA.send({ type: 'publish', channel: 'room', event: 'e', data: 'a' });
    expect((await inA.next()).data).toBe('a');
    expect(await inB.sync()).toEqual([]);
  });
});

describe('error frames (the socket stays open)', () => {
  let s: Client;
  beforeAll(async () => {
    s = await open('owner');
  });

  const error = (code: string) => ({ type: 'error', code, message: expect.any(String) });

  test('INVALID_FRAME: not JSON, not an object, no type, no channel, a bad event, a binary frame', async () => {
    for (const frame of ['nope', '[1,2]', '"text"', 'null', '{}', JSON.stringify({ channel: 'c' }), JSON.stringify({ type: 7 })]) {
      expect(await s.ask(frame)).toEqual(error('INVALID_FRAME'));
    }
    for (const frame of [
      { type: 'subscribe' },
      { type: 'publish', channel: '' },
      { type: 'presence', channel: 5 },
      { type: 'publish', channel: 'c', event: 5 },
    ]) {
      expect(await s.ask(frame)).toEqual(error('INVALID_FRAME'));
    }
    s.ws.send(new Uint8Array([123, 125]));
    expect(await s.next()).toEqual(error('INVALID_FRAME'));
    expect(s.closeInfo).toBeNull();
  });

  test('UNKNOWN_FRAME: a type that is not one of the four', async () => {
    expect(await s.ask({ type: 'shout', channel: 'c' })).toEqual(error('UNKNOWN_FRAME'));
    expect(await s.ask({ type: 'SUBSCRIBE', channel: 'c' })).toEqual(error('UNKNOWN_FRAME'));
  });

  test('MESSAGE_TOO_LARGE: a frame over 16 KiB; exactly 16 KiB is fine', async () => {
    const frameOf = (size: number) => {
      const head = JSON.stringify({ type: 'publish', channel: 'big', event: 'e', data: '' });
      return head.replace('"data":""', `"data":"${'x'.repeat(size - head.length)}"`);
    };
    expect(Buffer.byteLength(frameOf(REALTIME_LIMITS.frameBytes))).toBe(16 * 1024);
    expect((await s.ask(frameOf(REALTIME_LIMITS.frameBytes))).type).toBe('message');
    expect(await s.ask(frameOf(REALTIME_LIMITS.frameBytes + 1))).toEqual(error('MESSAGE_TOO_LARGE'));
    // Bytes, not characters: 6,000 euro signs are 18,000 bytes.
    expect(await s.ask({ type: 'publish', channel: 'big', event: 'e', data: '€'.repeat(6000) })).toEqual(error('MESSAGE_TOO_LARGE'));
    expect(s.closeInfo).toBeNull();
  });

  test('a frame over 1 MiB is not read at all: the socket closes with 1009 (message too big)', async () => {
    const c = await new World().attach(app);
    const big = await open('owner', c);
    const bystander = await open('viewer', c);
    // Up to 1 MiB the frame is read and refused like any other oversized one.
    expect(await big.ask({ type: 'publish', channel: 'x', event: 'e', data: 'y'.repeat(MAX_PAYLOAD_BYTES - 100) })).toEqual(
      error('MESSAGE_TOO_LARGE'),
    );
    big.send({ type: 'publish', channel: 'x', event: 'e', data: 'y'.repeat(MAX_PAYLOAD_BYTES) });
    expect((await big.closed).code).toBe(1009);
    // Only that socket: the canvas's others are untouched.
    expect(await bystander.ask({ type: 'subscribe', channel: 'x' })).toEqual({ type: 'subscribed', channel: 'x' });
  });

  test('CHANNEL_NAME_TOO_LARGE: over 128 bytes (UTF-8)', async () => {
    expect(await s.ask({ type: 'subscribe', channel: 'c'.repeat(128) })).toEqual({ type: 'subscribed', channel: 'c'.repeat(128) });
    await s.next((f) => f.type === 'presence');
    for (const frame of [
      { type: 'subscribe', channel: 'c'.repeat(129) },
      { type: 'publish', channel: '€'.repeat(43), event: 'e' },
      { type: 'presence', channel: 'c'.repeat(200) },
    ]) {
      expect(await s.ask(frame)).toEqual(error('CHANNEL_NAME_TOO_LARGE'));
    }
  });

  test('CHANNEL_LIMIT: at most 64 channels per connection; leaving one makes room', async () => {
    const t = await open('editor');
    for (let i = 0; i < REALTIME_LIMITS.channelsPerConnection; i++) {
      t.send({ type: 'subscribe', channel: `ch-${i}` });
      expect(await t.next()).toEqual({ type: 'subscribed', channel: `ch-${i}` });
      expect((await t.next()).type).toBe('presence');
    }
    expect(await t.ask({ type: 'subscribe', channel: 'one-more' })).toEqual(error('CHANNEL_LIMIT'));
    // Re-subscribing to a channel it is on is not a new channel.
    expect(await t.ask({ type: 'subscribe', channel: 'ch-0' })).toEqual({ type: 'subscribed', channel: 'ch-0' });
    await t.next((f) => f.type === 'presence');
    t.send({ type: 'unsubscribe', channel: 'ch-1' });
    expect(await t.ask({ type: 'subscribe', channel: 'one-more' })).toEqual({ type: 'subscribed', channel: 'one-more' });
  });
});

describe('rate limits per connection (on even with EASEL_RATELIMIT_ENABLED=false)', () => {
  test('the 101st publish in a minute: RATE_LIMITED; the next minute is fresh; other sockets are unaffected', async () => {
    const c = await new World().attach(app);
    const s = await open('owner', c);
    const other = await open('owner', c);
    for (let i = 0; i < REALTIME_LIMITS.publishesPerMinute; i++) s.send({ type: 'publish', channel: 'p', event: 'n', data: i });
    for (let i = 0; i < REALTIME_LIMITS.publishesPerMinute; i++) expect((await s.next()).data).toBe(i);
    expect(await s.ask({ type: 'publish', channel: 'p', event: 'n', data: 'over' })).toEqual({
      type: 'error',
      code: 'RATE_LIMITED',
      message: expect.any(String),
    });
    // Subscribe and presence have their own bucket.
    expect((await s.ask({ type: 'presence', channel: 'p' })).type).toBe('presence');
    expect((await other.ask({ type: 'publish', channel: 'p', event: 'n', data: 'other' })).type).toBe('message');
    clock += 60_000;
    expect((await s.ask({ type: 'publish', channel: 'p', event: 'n', data: 'later' })).data).toBe('later');
  });

  test('subscribe and presence frames: the 101st in a minute is RATE_LIMITED', async () => {
    const c = await new World().attach(app);
    const s = await open('viewer', c);
    for (let i = 0; i < REALTIME_LIMITS.controlFramesPerMinute; i++) {
      expect((await s.ask({ type: 'presence', channel: `q${i % 3}` })).type).toBe('presence');
    }
    expect(await s.ask({ type: 'subscribe', channel: 'late' })).toEqual({
      type: 'error',
      code: 'RATE_LIMITED',
      message: expect.any(String),
    });
    expect(await s.ask({ type: 'presence', channel: 'late' })).toEqual({
      type: 'error',
      code: 'RATE_LIMITED',
      message: expect.any(String),
    });
    expect(s.closeInfo).toBeNull();
    clock += 60_000;
    expect((await s.ask({ type: 'subscribe', channel: 'late' })).type).toBe('subscribed');
  });
});
