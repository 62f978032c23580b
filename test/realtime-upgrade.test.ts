// passes: embedded, cluster
// GET /v1/c/{slug}/realtime: the pipeline before the 101 (its refusals are
// HTTP answers), realtime switched off (101, error frame, 4403), the 31st
// connection (101, 4429), plain GETs.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { dashboardOrigin } from '../src/http/cross-site.ts';
import { REALTIME_LIMITS } from '../src/runtime/realtime/limits.ts';
import { startTestApp, type TestApp } from './harness.ts';
import { connect, handshake, type Client } from './realtime-helpers.ts';
import { ADMIN_EMAIL, World } from './world.ts';
import { nextEvent } from './signals.ts';

describe('the upgrade runs the runtime pipeline first', () => {
  let app: TestApp;
  let cast: World;
  beforeAll(async () => {
    app = await startTestApp({ listen: true, env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL } });
    cast = await new World().attach(app);
  });
  afterAll(() => app.close());

  test('an admitted viewer gets 101 Switching Protocols', async () => {
    const res = await handshake(app, cast.canvas.slug, { cookie: cast.cookie.viewer });
    expect(res.status).toBe(101);
    expect(res.headers.upgrade).toBe('websocket');
  });

  const refusals: Array<[string, () => Record<string, string>, number, unknown]> = [
    ['no session', () => ({}), 401, { error: 'unauthorized' }],
    ['an unknown session cookie', () => ({ cookie: 'easel_session=nope' }), 401, { error: 'unauthorized' }],
    ['a stranger (not on the list)', () => ({ cookie: cast.cookie.stranger }), 404, { code: 'OWNER_ONLY', message: expect.any(String) }],
    [
      'a cross-site request (Sec-Fetch-Site)',
      () => ({ cookie: cast.cookie.viewer, 'sec-fetch-site': 'cross-site' }),
      403,
      { code: 'CROSS_SITE_FORBIDDEN', message: expect.any(String) },
    ],
    [
      'another canvas page (Referer)',
      () => ({ cookie: cast.cookie.viewer, referer: 'http://localhost/c/other/' }),
      403,
      { code: 'CROSS_CANVAS_FORBIDDEN', message: expect.any(String) },
    ],
    [
      'a page on another site (Origin)',
      () => ({ cookie: cast.cookie.viewer, origin: 'https://evil.example' }),
      403,
      { code: 'CROSS_SITE_FORBIDDEN', message: expect.any(String) },
    ],
  ];
  for (const [who, headers, status, body] of refusals) {
    test(`${who}: ${status} with the HTTP error, no upgrade`, async () => {
      const res = await handshake(app, cast.canvas.slug, headers());
      expect(res.status).toBe(status);
      expect(res.body).toEqual(body);
    });
  }

  test('an unknown slug: 404 NOT_FOUND', async () => {
    const res = await handshake(app, 'no-such-canvas', { cookie: cast.cookie.viewer });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });

  test('a page of this instance (Origin = Host) is accepted', async () => {
    const res = await handshake(app, cast.canvas.slug, {
      cookie: cast.cookie.viewer,
      origin: app.base,
      'sec-fetch-site': 'same-origin',
      referer: `${app.base}/c/${cast.canvas.slug}/`,
    });
    expect(res.status).toBe(101);
  });

  test('archived 404 ARCHIVED, disabled 403 DISABLED (owners included)', async () => {
    const other = await new World().attach(app);
    await other.archive();
    let res = await handshake(app, other.canvas.slug, { cookie: other.cookie.owner });
    expect([res.status, res.body.code]).toEqual([404, 'ARCHIVED']);
    await other.archive(other.canvas, false);
    await other.disable();
    res = await handshake(app, other.canvas.slug, { cookie: other.cookie.owner });
    expect([res.status, res.body.code]).toEqual([403, 'DISABLED']);
  });

  test('a live Public link canvas: 403 STATIC_ONLY for its viewers, 101 for its editors', async () => {
    const other = await new World().attach(app);
    await other.settings({ accessMode: 'public_link' });
    const res = await handshake(app, other.canvas.slug, { cookie: other.cookie.viewer });
    expect([res.status, res.body.code]).toEqual([403, 'STATIC_ONLY']);
    expect((await handshake(app, other.canvas.slug, { cookie: other.cookie.editor })).status).toBe(101);
  });

  test('a password gate: 403 PASSWORD_REQUIRED without the gate cookie, 101 for editors', async () => {
    const other = await new World().attach(app);
    await other.settings({ password: 'open sesame' });
    const refused = await handshake(app, other.canvas.slug, { cookie: other.cookie.viewer });
    expect([refused.status, refused.body.code]).toEqual([403, 'PASSWORD_REQUIRED']);
    expect((await handshake(app, other.canvas.slug, { cookie: other.cookie.editor })).status).toBe(101);
  });

  test('an expired share: 404 SHARE_EXPIRED for viewers, 101 for owners and editors', async () => {
    const other = await new World().attach(app);
    await other.settings({ expiresAt: app.ctx.now() - 1000 });
    const refused = await handshake(app, other.canvas.slug, { cookie: other.cookie.viewer });
    expect([refused.status, refused.body.code]).toEqual([404, 'SHARE_EXPIRED']);
    expect((await handshake(app, other.canvas.slug, { cookie: other.cookie.owner })).status).toBe(101);
    expect((await handshake(app, other.canvas.slug, { cookie: other.cookie.editor })).status).toBe(101);
  });

  test('a deleted canvas: 404 NOT_FOUND, owners included', async () => {
    const other = await new World().attach(app);
    const del = await fetch(`${app.base}/api/canvases/${other.canvas.id}`, {
      method: 'DELETE',
      headers: { cookie: other.cookie.owner, origin: dashboardOrigin(app.ctx.config) },
    });
    expect(del.status).toBe(200);
    const refused = await handshake(app, other.canvas.slug, { cookie: other.cookie.owner });
    expect([refused.status, refused.body.code]).toEqual([404, 'NOT_FOUND']);
  });

  test('a legacy guest of another canvas: 404 NOT_INVITED', async () => {
    const other = await new World().attach(app);
    const res = await handshake(app, other.canvas.slug, { cookie: cast.cookie.guest });
    expect([res.status, res.body.code]).toEqual([404, 'NOT_INVITED']);
  });

  test('a WebSocket client sees a refused handshake as a failed connection', async () => {
    const client = await connect(app, cast.canvas.slug, cast.cookie.stranger);
    const closed = await client.closed;
    expect(closed.code).not.toBe(1000);
    expect(client.frames).toEqual([]);
  });

  test('a plain GET (no upgrade): 426 UPGRADE_REQUIRED after the pipeline', async () => {
    const res = await app.request(`/v1/c/${cast.canvas.slug}/realtime`, { cookie: cast.cookie.viewer });
    expect(res.status).toBe(426);
    expect(await res.json()).toEqual({ code: 'UPGRADE_REQUIRED', message: expect.any(String) });
    expect((await app.request(`/v1/c/${cast.canvas.slug}/realtime`)).status).toBe(401);
  });

  test('other methods are not the realtime route', async () => {
    const res = await app.request(`/v1/c/${cast.canvas.slug}/realtime`, { method: 'POST', cookie: cast.cookie.viewer });
    expect(res.status).toBe(404);
  });

  test('the upgrade is logged as 101, without cookies', async () => {
    await handshake(app, cast.canvas.slug, { cookie: cast.cookie.viewer });
    const line = app.logs.filter((l) => l.msg === 'request' && String(l.path).endsWith('/realtime') && l.status === 101).at(-1);
    expect(line).toBeDefined();
    const cookieValue = cast.cookie.viewer.split('=')[1]!;
    expect(JSON.stringify(app.logs)).not.toContain(cookieValue);
  });
});

describe('the canvas rate limit applies to upgrades', () => {
  test('past the canvas class: 429 RATE_LIMITED with Retry-After', async () => {
    const app = await startTestApp({ listen: true, env: { EASEL_RATELIMIT_CANVAS_API_PER_MIN: '2' } });
    try {
      const cast = await new World().attach(app);
      expect((await handshake(app, cast.canvas.slug, { cookie: cast.cookie.viewer })).status).toBe(101);
      expect((await handshake(app, cast.canvas.slug, { cookie: cast.cookie.viewer })).status).toBe(101);
      const res = await handshake(app, cast.canvas.slug, { cookie: cast.cookie.viewer });
      expect(res.status).toBe(429);
      expect(res.body).toEqual({ code: 'RATE_LIMITED', message: expect.any(String) });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await app.close();
    }
  });
});

describe('realtime switched off: 101, an error frame, then 4403', () => {
  // The frame carries the same details as the HTTP refusal, so the SDK can show the hint.
  const expectRefused = async (client: Client, reason: string, backendEnabled = true) => {
    const closed = await client.closed;
    expect(closed.code).toBe(4403);
    expect(client.frames).toEqual([
      {
        type: 'error',
        code: 'CAPABILITY_DISABLED',
        capability: 'realtime',
        backendEnabled,
        reason,
        hint: expect.stringMatching(/\S/),
        message: expect.any(String),
      },
    ]);
  };

  test('the canvas switch, and the backend switch', async () => {
    const app = await startTestApp({ listen: true });
    try {
      const cast = await new World().attach(app);
      await cast.capabilities({ realtime: false });
      expect((await handshake(app, cast.canvas.slug, { cookie: cast.cookie.viewer })).status).toBe(101);
      await expectRefused(await connect(app, cast.canvas.slug, cast.cookie.owner), 'feature_off');
      await cast.capabilities({ realtime: true, backend: false });
      await expectRefused(await connect(app, cast.canvas.slug, cast.cookie.viewer), 'backend_off', false);
      // A plain GET answers the capability refusal over HTTP.
      const res = await app.request(`/v1/c/${cast.canvas.slug}/realtime`, { cookie: cast.cookie.viewer });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ code: 'CAPABILITY_DISABLED', capability: 'realtime', reason: 'backend_off' });
    } finally {
      await app.close();
    }
  });

  test('EASEL_REALTIME=off', async () => {
    const app = await startTestApp({ listen: true, env: { EASEL_REALTIME: 'off' } });
    try {
      const cast = await new World().attach(app);
      await expectRefused(await connect(app, cast.canvas.slug, cast.cookie.viewer), 'operator_disabled');
    } finally {
      await app.close();
    }
  });

  test('other refusals still come first: no session is 401, not 4403', async () => {
    const app = await startTestApp({ listen: true, env: { EASEL_REALTIME: 'off' } });
    try {
      const cast = await new World().attach(app);
      expect((await handshake(app, cast.canvas.slug, {})).status).toBe(401);
      expect((await handshake(app, cast.canvas.slug, { cookie: cast.cookie.stranger })).status).toBe(404);
    } finally {
      await app.close();
    }
  });
});

describe('connections per canvas and per person (issue 23 item 15)', () => {
  const { connectionsPerCanvas: CANVAS, connectionsPerPerson: PERSON, connectionsReservedForManagers: RESERVED } = REALTIME_LIMITS;
  let app: TestApp;
  let cast: World;
  /** Viewers beyond the cast's two, each signed in and put on the list. */
  const viewers: string[] = [];
  beforeAll(async () => {
    app = await startTestApp({ listen: true, env: { EASEL_RATELIMIT_ENABLED: 'false' } });
    cast = await new World().attach(app);
    viewers.push(cast.cookie.viewer, cast.cookie.viewer2);
    for (let i = 0; viewers.length < (CANVAS - RESERVED) / PERSON + 1; i++) {
      const email = `rt-viewer-${i}@example.com`;
      viewers.push(await app.signIn(email));
      await cast.expectOk('PUT', `/api/canvases/${cast.canvas.id}/members`, 'owner', { email, role: 'viewer' });
    }
  });
  afterAll(() => app.close());

  const working = async (c: Client) => {
    expect((await c.ask({ type: 'subscribe', channel: 'c' })).type).toBe('subscribed');
    expect(c.closeInfo).toBeNull();
  };
  const refused = async (c: Client, because: string) => {
    const info = await c.closed;
    expect([info.code, info.reason]).toEqual([4429, expect.stringContaining(because)]);
    expect(c.frames).toEqual([]);
  };
  const closeAll = async (clients: Client[]) => {
    for (const c of clients) {
      const gone = nextEvent(app, 'realtime.closed', (e) => e.canvasId === cast.canvas.id);
      await c.close();
      await gone;
    }
  };

  test(`one person holds at most ${PERSON} sockets on a canvas; others still connect`, async () => {
    const mine: Client[] = [];
    for (let i = 0; i < PERSON; i++) mine.push(await connect(app, cast.canvas.slug, viewers[0]!));
    await working(mine.at(-1)!);
    await refused(await connect(app, cast.canvas.slug, viewers[0]!), 'one person');
    const someoneElse = await connect(app, cast.canvas.slug, viewers[1]!);
    await working(someoneElse);
    await closeAll([...mine, someoneElse]);
  });

  test(`viewers fill ${CANVAS - RESERVED}; the last ${RESERVED} are for owners and editors; the ${CANVAS + 1}st is refused; a freed slot is usable again`, async () => {
    const open: Client[] = [];
    for (let i = 0; i < CANVAS - RESERVED; i++) open.push(await connect(app, cast.canvas.slug, viewers[Math.floor(i / PERSON)]!));
    await working(open.at(-1)!);
    // A viewer with no socket yet finds the rest held for managers.
    await refused(await connect(app, cast.canvas.slug, viewers.at(-1)!), 'owners and editors');
    for (let i = 0; i < RESERVED; i++) open.push(await connect(app, cast.canvas.slug, cast.cookie[i % 2 ? 'editor' : 'owner']));
    await working(open.at(-1)!);
    await refused(await connect(app, cast.canvas.slug, cast.cookie.owner), `at most ${CANVAS}`);

    // Another canvas is counted on its own.
    const other = await new World().attach(app);
    const elsewhere = await connect(app, other.canvas.slug, other.cookie.viewer);
    await working(elsewhere);

    await closeAll(open.splice(0, 1));
    await working(await connect(app, cast.canvas.slug, cast.cookie.editor));
  });
});

describe('subdomain mode', () => {
  test("the socket must come from the canvas's own origin (or send none)", async () => {
    const app = await startTestApp({
      listen: true,
      env: {
        EASEL_URL_MODE: 'subdomain',
        EASEL_BASE_URL: 'http://easel.test',
        EASEL_CANVAS_HOST: 'apps.easel.test',
      },
    });
    try {
      const cast = await new World().attach(app);
      const cookie = cast.cookie.viewer;
      expect((await handshake(app, cast.canvas.slug, { cookie, origin: `http://${cast.canvas.slug}.apps.easel.test` })).status).toBe(101);
      expect((await handshake(app, cast.canvas.slug, { cookie })).status).toBe(101);
      const other = await handshake(app, cast.canvas.slug, { cookie, origin: 'http://someone-else.apps.easel.test' });
      expect([other.status, other.body.code]).toEqual([403, 'CROSS_CANVAS_FORBIDDEN']);
    } finally {
      await app.close();
    }
  });
});
