// passes: embedded, s3, cluster
// Canvas webhooks (CONTRACT §9, tranche 3 "Webhooks") against a real HTTPS
// receiver on loopback: a self-signed certificate for a made-up host name,
// trusted through EASEL_CONNECTIONS_CA_FILE and reached through an
// EASEL_CONNECTIONS_RESOLVE pin, as the Connections tests do. Signatures are
// checked with node:crypto; time moves through the app's injected clock.
import { afterAll, describe, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import { RETRY_FOR_MS } from '../src/notifications/backoff.ts';
import { setCollections } from './collections-fixtures.ts';
import { makeCert, SECRET_KEY_HEX, startTrap, startUpstream, type Received } from './connections-fixtures.ts';
import { expectCode } from './expect-code.ts';
import { body, ON_CLUSTER, startTestApp, type TestApp } from './harness.ts';
import { startRelay } from './smtp-fixture.ts';
import { useWorld, type World } from './world.ts';
import type { EventMap } from '../src/events.ts';

const HOST = 'hooks.receiver.test';
const cert = makeCert(HOST);
const receiver = startUpstream(cert);
const trap = await startTrap();
const relay = await startRelay({ plain: true });
const ALL = [
  'deploy.published',
  'submission.created',
  'submission.updated',
  'submission.deleted',
  'collection.record.created',
  'collection.record.updated',
  'collection.record.deleted',
];
let clock = Date.UTC(2030, 0, 15, 12);
const env = {
  EASEL_SECRET_KEY: SECRET_KEY_HEX,
  EASEL_CONNECTIONS_CA_FILE: cert.certFile,
  EASEL_CONNECTIONS_RESOLVE: `${HOST}:${receiver.port}:127.0.0.1`,
  EASEL_SMTP_URL: relay.url,
};
const base = `https://${HOST}:${receiver.port}`;

afterAll(async () => {
  await receiver.stop();
  trap.stop();
  await relay.stop();
  cert.cleanup();
});

/** Names that are not pinned resolve as a hostile DNS would answer: to loopback (never the machine's DNS). */
function hostileDns(app: TestApp): void {
  for (const node of app.nodes) node.features.connections.egress.resolver = async () => ['127.0.0.1'];
}

type Attempt = EventMap['webhooks.attempted'];

/** The first attempt (already made, or to come) that matches. */
function attempted(app: TestApp, seen: Attempt[], pred: (a: Attempt) => boolean): Promise<Attempt> {
  return new Promise((resolve) => {
    const done = seen.find(pred);
    if (done) return resolve(done);
    const off = app.onEvent('webhooks.attempted', (a) => {
      if (!pred(a)) return;
      off();
      resolve(a);
    });
  });
}

function verify(r: Received, secret: string): void {
  const timestamp = r.headers['x-easel-timestamp']!;
  const expected = `sha256=${createHmac('sha256', secret).update(`${timestamp}.${r.body}`).digest('hex')}`;
  expect(r.headers['x-easel-signature']).toBe(expected);
}

const kickAll = (app: TestApp) => {
  for (const node of app.nodes) node.features.webhooks.kick();
};

describe('webhooks', () => {
  const w: World = useWorld({ now: () => clock, env, canvas: { capabilities: { backend: true, kv: true } } });
  const seen: Attempt[] = [];
  let listening = false;
  const listen = () => {
    if (listening) return;
    listening = true;
    hostileDns(w.app);
    w.app.onEvent('webhooks.attempted', (a) => void seen.push(a));
  };
  const hooksPath = () => `/api/canvases/${w.canvas.id}/webhooks`;
  const put = (who: 'owner' | 'editor' | 'viewer' | 'stranger' | 'admin', hooks: unknown[]) =>
    w.request(who, hooksPath(), { method: 'PUT', json: { hooks } });

  test('owners, editors and admins manage hooks; viewers and strangers get 404 before the body is read', async () => {
    listen();
    const made = await put('owner', [{ url: `${base}/a`, events: ['deploy.published'] }]);
    expect(made.status).toBe(200);
    const [hook] = (await body(made)).hooks;
    expect(hook).toEqual({
      id: expect.any(String),
      url: `${base}/a`,
      events: ['deploy.published'],
      active: true,
      lastDelivery: null,
      secret: expect.stringMatching(/^whsec_[0-9A-Za-z]{32}$/),
    });
    const listed = await w.expectOk('GET', hooksPath(), 'editor');
    expect(listed).toEqual({ hooks: [{ id: hook.id, url: `${base}/a`, events: ['deploy.published'], active: true, lastDelivery: null }] });
    expect(await w.expectOk('GET', hooksPath(), 'admin')).toEqual(listed);
    const edited = await put('editor', [{ id: hook.id, url: `${base}/b`, events: ['submission.created', 'deploy.published'] }]);
    expect((await body(edited)).hooks).toEqual([
      { id: hook.id, url: `${base}/b`, events: ['deploy.published', 'submission.created'], active: true, lastDelivery: null },
    ]);
    expect((await put('admin', [{ id: hook.id, url: `${base}/b`, events: ['deploy.published'] }])).status).toBe(200);
    for (const who of ['viewer', 'stranger'] as const) {
      await expectCode(await w.request(who, hooksPath()), 404, 'NOT_FOUND');
      await expectCode(
        await w.request(who, hooksPath(), { method: 'PUT', body: 'not json', headers: { 'content-type': 'application/json' } }),
        404,
        'NOT_FOUND',
      );
      await expectCode(await w.request(who, `${hooksPath()}/${hook.id}/deliveries`), 404, 'NOT_FOUND');
    }
    await expectCode(await w.request('owner', `${hooksPath()}/nohook/deliveries`), 404, 'NOT_FOUND');
    // A hook not named goes.
    expect((await body(await put('owner', []))).hooks).toEqual([]);
  });

  test('the secret is in the PUT that made the hook only: never in GET, never again, sealed at rest', async () => {
    listen();
    const first = (await body(await put('owner', [{ url: `${base}/s`, events: ['deploy.published'] }]))).hooks[0];
    const secret: string = first.secret;
    const again = await put('owner', [
      { id: first.id, url: `${base}/s`, events: ['deploy.published'] },
      { url: `${base}/t`, events: ['deploy.published'] },
    ]);
    const hooks = (await body(again)).hooks;
    expect(hooks[0].secret).toBeUndefined();
    expect(hooks[1].secret).toEqual(expect.any(String));
    expect(hooks[1].secret).not.toBe(secret);
    const text = await (await w.request('owner', hooksPath())).text();
    expect(text).not.toContain(secret);
    expect(text).not.toContain(hooks[1].secret);
    expect(text).not.toContain('"secret"');
    const stored = await w.app.ctx.sql.all<{ secret: string }>('SELECT secret FROM webhooks WHERE canvas_id = ?1', w.canvas.id);
    expect(stored.length).toBe(2);
    for (const row of stored) {
      expect(row.secret).not.toContain(secret);
      expect(row.secret).not.toContain(hooks[1].secret);
    }
  });

  test('refused: http (loopback too), a private IP literal, userinfo, an unknown event, an id of no hook, more than 10', async () => {
    listen();
    const bad = async (hooks: unknown[], fragment: string) => {
      const err = await expectCode(await put('owner', hooks), 400, 'INVALID_BODY');
      expect(JSON.stringify(err)).toContain(fragment);
    };
    const ev = ['deploy.published'];
    await bad([{ url: 'http://127.0.0.1:9/x', events: ev }], 'only https');
    await bad([{ url: 'http://localhost/x', events: ev }], 'only https');
    await bad([{ url: 'https://127.0.0.1/x', events: ev }], 'non-public');
    await bad([{ url: 'https://[::1]/x', events: ev }], 'non-public');
    await bad([{ url: 'https://10.1.2.3/x', events: ev }], 'non-public');
    await bad([{ url: 'https://u:p@example.com/x', events: ev }], 'userinfo');
    await bad([{ url: `${base}/x`, events: ['deploy.exploded'] }], 'events');
    await bad([{ url: `${base}/x`, events: [] }], 'events');
    await bad([{ id: 'nohook', url: `${base}/x`, events: ev }], 'nohook');
    await bad([{ url: `https://example.com/${'x'.repeat(2100)}`, events: ev }], 'url');
    await bad(
      Array.from({ length: 11 }, (_, i) => ({ url: `${base}/${i}`, events: ev })),
      'hooks',
    );
    expect(await w.expectOk('GET', hooksPath(), 'owner')).toEqual({ hooks: [] });
  });

  test('every event kind is delivered, signed, with the same delivery id in the header and the body', async () => {
    listen();
    await setCollections(w, { c: { preset: 'collaborative' } });
    const hook = (await body(await put('owner', [{ url: `${base}/all?k=1`, events: ALL }]))).hooks[0];
    const mine = (): Received[] => receiver.received.filter((r) => r.path === '/all?k=1');
    const delivered = (n: number) =>
      attempted(w.app, seen, () => seen.filter((a) => a.hookId === hook.id && a.outcome === 'delivered').length >= n);

    await w.deploy();
    await delivered(1);
    const sub = `/v1/c/${w.canvas.slug}/submissions/poll`;
    await w.expectOk('PUT', `${sub}/mine`, 'viewer', { choice: 'a' });
    await w.expectOk('PUT', `${sub}/mine`, 'viewer', { choice: 'b' });
    await w.expectOk('DELETE', `${sub}/mine`, 'viewer');
    const col = `/v1/c/${w.canvas.slug}/collections/c`;
    const record = await w.expectOk('POST', col, 'editor', { n: 1 }, 201);
    await w.expectOk('PUT', `${col}/${record.id}`, 'editor', { n: 2 });
    await w.expectOk('DELETE', `${col}/${record.id}`, 'editor');
    await delivered(7);

    const got = mine();
    expect(got.map((r) => r.headers['x-easel-event']).sort()).toEqual([...ALL].sort());
    const canvasUrl = (await w.expectOk('GET', `/api/canvases/${w.canvas.id}`, 'owner')).url;
    for (const r of got) {
      verify(r, hook.secret);
      expect(r.method).toBe('POST');
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['x-easel-timestamp']).toBe(String(Math.floor(clock / 1000)));
      const b = JSON.parse(r.body);
      expect(b).toEqual({
        id: r.headers['x-easel-delivery'],
        event: r.headers['x-easel-event'],
        canvas: { id: w.canvas.id, slug: w.canvas.slug, url: canvasUrl },
        occurredAt: new Date(clock).toISOString(),
        data: expect.any(Object),
      });
    }
    const data = (event: string) => JSON.parse(got.find((r) => r.headers['x-easel-event'] === event)!.body).data;
    expect(data('deploy.published')).toEqual({ versionId: expect.any(String) });
    expect(data('submission.created')).toEqual({
      collection: 'poll',
      userId: w.ids.viewer,
      updatedAt: expect.any(String),
      value: { choice: 'a' },
    });
    expect(data('submission.updated').value).toEqual({ choice: 'b' });
    expect(data('submission.deleted')).toEqual({ collection: 'poll', userId: w.ids.viewer, count: 1 });
    expect(data('collection.record.created')).toEqual({
      collection: 'c',
      recordId: record.id,
      authorId: w.ids.editor,
      updatedAt: expect.any(String),
      value: { n: 1 },
    });
    expect(data('collection.record.updated').value).toEqual({ n: 2 });
    expect(data('collection.record.deleted')).toEqual({ collection: 'c', recordIds: [record.id] });
    expect(new Set(got.map((r) => r.headers['x-easel-delivery'])).size).toBe(7);

    const { deliveries } = await w.expectOk('GET', `${hooksPath()}/${hook.id}/deliveries`, 'editor');
    expect(deliveries.length).toBe(7);
    for (const d of deliveries) {
      expect(d).toEqual({
        id: expect.any(String),
        event: expect.any(String),
        status: 'delivered',
        httpStatus: 200,
        durationMs: expect.any(Number),
        attempts: 1,
        createdAt: new Date(clock).toISOString(),
        lastAttemptAt: new Date(clock).toISOString(),
        nextAttemptAt: null,
        error: null,
      });
    }
    const listed = (await w.expectOk('GET', hooksPath(), 'owner')).hooks[0];
    expect(listed.lastDelivery).toEqual(expect.objectContaining({ status: 'delivered', httpStatus: 200 }));
  });

  test('a hook only gets the events it asked for', async () => {
    listen();
    const hook = (await body(await put('owner', [{ url: `${base}/only`, events: ['submission.deleted'] }]))).hooks[0];
    const sub = `/v1/c/${w.canvas.slug}/submissions/poll`;
    await w.expectOk('PUT', `${sub}/mine`, 'viewer', 1);
    await w.expectOk('DELETE', `${sub}/mine`, 'viewer');
    await attempted(w.app, seen, (a) => a.hookId === hook.id && a.outcome === 'delivered');
    const { deliveries } = await w.expectOk('GET', `${hooksPath()}/${hook.id}/deliveries`, 'owner');
    expect(deliveries.map((d: { event: string }) => d.event)).toEqual(['submission.deleted']);
  });

  test('a receiver answering 500 then 200 gets the same X-Easel-Delivery twice', async () => {
    listen();
    let calls = 0;
    receiver.handle((_req, r) =>
      r.path === '/flaky' && calls++ === 0 ? new Response('no', { status: 500 }) : Response.json({ ok: true }),
    );
    try {
      const hook = (await body(await put('owner', [{ url: `${base}/flaky`, events: ['deploy.published'] }]))).hooks[0];
      await w.deploy();
      const first = await attempted(w.app, seen, (a) => a.hookId === hook.id);
      expect(first.outcome).toBe('retrying');
      let [d] = (await w.expectOk('GET', `${hooksPath()}/${hook.id}/deliveries`, 'owner')).deliveries;
      expect(d).toEqual(
        expect.objectContaining({
          status: 'pending',
          httpStatus: 500,
          attempts: 1,
          error: 'the receiver answered 500',
          nextAttemptAt: new Date(clock + 60_000).toISOString(),
        }),
      );
      clock += 60_000;
      kickAll(w.app);
      await attempted(w.app, seen, (a) => a.hookId === hook.id && a.outcome === 'delivered');
      const got = receiver.received.filter((r) => r.path === '/flaky');
      expect(got.length).toBe(2);
      expect(got[0]!.headers['x-easel-delivery']).toBe(got[1]!.headers['x-easel-delivery']);
      expect(got[0]!.body).toBe(got[1]!.body);
      for (const r of got) verify(r, hook.secret);
      [d] = (await w.expectOk('GET', `${hooksPath()}/${hook.id}/deliveries`, 'owner')).deliveries;
      expect(d).toEqual(
        expect.objectContaining({ id: got[0]!.headers['x-easel-delivery'], status: 'delivered', httpStatus: 200, attempts: 2 }),
      );
    } finally {
      receiver.handle(null);
    }
  });

  test('a name that resolves to a private address is refused without a pin: nothing connects', async () => {
    listen();
    const before = trap.connections();
    const hook = (await body(await put('owner', [{ url: `https://private.receiver.test:${trap.port}/x`, events: ['deploy.published'] }])))
      .hooks[0];
    await w.deploy();
    const a = await attempted(w.app, seen, (x) => x.hookId === hook.id);
    expect(a.outcome).toBe('retrying');
    const [d] = (await w.expectOk('GET', `${hooksPath()}/${hook.id}/deliveries`, 'owner')).deliveries;
    expect(d.error).toContain('CONNECTION_ADDRESS_REFUSED');
    expect(d.httpStatus).toBeNull();
    expect(trap.connections()).toBe(before);
  });

  test('a redirect is not followed: it counts as a failure', async () => {
    listen();
    receiver.handle((_req, r) =>
      r.path === '/moved' ? new Response(null, { status: 302, headers: { location: '/elsewhere' } }) : Response.json({}),
    );
    try {
      const hook = (await body(await put('owner', [{ url: `${base}/moved`, events: ['deploy.published'] }]))).hooks[0];
      await w.deploy();
      expect((await attempted(w.app, seen, (x) => x.hookId === hook.id)).outcome).toBe('retrying');
      expect(receiver.received.some((r) => r.path === '/elsewhere')).toBe(false);
    } finally {
      receiver.handle(null);
    }
  });

  test('24 hours of failures pause the hook and mail its owner; PUT active: true turns it back on', async () => {
    listen();
    receiver.handle((_req, r) => (r.path === '/down' ? new Response('down', { status: 503 }) : Response.json({})));
    try {
      const hook = (await body(await put('owner', [{ url: `${base}/down`, events: ['deploy.published'] }]))).hooks[0];
      await w.deploy();
      expect((await attempted(w.app, seen, (x) => x.hookId === hook.id)).outcome).toBe('retrying');
      clock += RETRY_FOR_MS;
      kickAll(w.app);
      expect((await attempted(w.app, seen, (x) => x.hookId === hook.id && x.outcome !== 'retrying')).outcome).toBe('paused');
      const listed = (await w.expectOk('GET', hooksPath(), 'owner')).hooks[0];
      expect(listed.active).toBe(false);
      // (The hooks of earlier tests that were still failing are paused by the same jump, each on its own canvas.)
      const title = (await w.app.ctx.canvases.byId(w.canvas.id))!.title;
      const mails = await w.app.ctx.sql.all<{ recipient: string; subject: string }>(
        "SELECT recipient, subject FROM notification_outbox WHERE kind = 'webhook_paused' AND subject = ?1",
        `A webhook of "${title}" was paused`,
      );
      expect(mails).toEqual([{ recipient: w.emails.owner, subject: `A webhook of "${title}" was paused` }]);
      // Paused: new events record nothing for it.
      await w.deploy();
      expect((await w.expectOk('GET', `${hooksPath()}/${hook.id}/deliveries`, 'owner')).deliveries.length).toBe(1);
      // Back on: the next event is delivered.
      receiver.handle(null);
      const on = (await body(await put('editor', [{ id: hook.id, url: `${base}/down`, events: ['deploy.published'], active: true }])))
        .hooks[0];
      expect(on.active).toBe(true);
      await w.deploy();
      await attempted(w.app, seen, (x) => x.hookId === hook.id && x.outcome === 'delivered');
    } finally {
      receiver.handle(null);
    }
  });
});

// The cluster pass's nodes keep their database between each other, not across a test's restart of one data directory.
test.skipIf(ON_CLUSTER)('a delivery recorded but not yet delivered survives a restart, under the same id', async () => {
  const dataDir = (await import('node:fs')).mkdtempSync(`${(await import('node:os')).tmpdir()}/easel-hooks-`);
  const options = { dataDir, now: () => clock, env };
  const first = await startTestApp(options);
  receiver.handle((_req, r) => (r.path === '/restart' ? new Response('no', { status: 500 }) : Response.json({})));
  let second: TestApp | null = null;
  try {
    const owner = await first.signIn('restart-owner@example.com');
    const canvas = await body(await first.request('/api/canvases', { method: 'POST', cookie: owner, json: { title: 'Restart' } }));
    const res = await first.request(`/api/canvases/${canvas.id}/webhooks`, {
      method: 'PUT',
      cookie: owner,
      json: { hooks: [{ url: `${base}/restart`, events: ['deploy.published'] }] },
    });
    const hook = (await body(res)).hooks[0];
    const tried = new Promise<Attempt>((resolve) => first.onEvent('webhooks.attempted', resolve));
    first.ctx.events.emit('canvas.published', { canvasId: canvas.id, versionId: 'v1' });
    expect((await tried).outcome).toBe('retrying');
    await first.easel.stop();
    await first.ctx.sql.close();

    receiver.handle(null);
    clock += 60_000;
    second = await startTestApp(options);
    const done = await new Promise<Attempt>((resolve) => second!.onEvent('webhooks.attempted', resolve));
    expect(done.outcome).toBe('delivered');
    const got = receiver.received.filter((r) => r.path === '/restart');
    expect(got.length).toBe(2);
    expect(got[1]!.headers['x-easel-delivery']).toBe(got[0]!.headers['x-easel-delivery']);
    verify(got[1]!, hook.secret);
  } finally {
    receiver.handle(null);
    await second?.close();
    (await import('node:fs')).rmSync(dataDir, { recursive: true, force: true });
  }
});
