// passes: embedded, s3, cluster
// Page views answer from memory (sessions, canvases with their owners, member
// roles, manifests, small files). These suites warm those caches and then
// change the world through the real APIs, and behind their backs with direct
// writes: the very next page view must see every change.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { DataVersion } from '../src/db/data-version.ts';
import { VersionedCache } from '../src/db/versioned-cache.ts';
import { createDeployCanvas, deploy, zipOf } from './deploy-fixtures.ts';
import { ON_CLUSTER, startTestApp, type TestApp } from './harness.ts';
import { pageCode } from './serve-fixtures.ts';
import { canvasHostCookie } from './canvas-host-session.ts';
import { ADMIN_EMAIL, World, type Who } from './world.ts';

type Person = Exclude<Who, 'guest' | 'otherKey'>;
const HELLO = { 'index.html': '<h1>hello</h1>' };

const HOUR = 3600_000;

let app: TestApp;
let cast: World;
let clock = Date.now();

beforeAll(async () => {
  app = await startTestApp({ env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL }, now: () => clock });
  cast = await new World().attach(app);
});
afterAll(() => app.close());

function page(c: { slug: string }, who: Person | string, path = ''): Promise<Response> {
  const cookie = who in cast.cookie ? cast.cookie[who as Person] : who;
  return app.request(`/c/${c.slug}/${path}`, { cookie });
}

/** Three views in a row: whatever a page view caches is cached after this. */
async function warm(c: { slug: string }, who: Person | string, path = ''): Promise<void> {
  for (let i = 0; i < 3; i++) {
    const res = await page(c, who, path);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  }
}

async function code(res: Response): Promise<[number, string | null]> {
  return [res.status, pageCode(await res.text())];
}

/** Someone with a session of their own (`{tag}-{canvas id}@example.com`), put on `c`'s list as a viewer. */
async function newViewer(c: { id: string }, tag: string): Promise<{ email: string; cookie: string }> {
  const email = `${tag}-${c.id}@example.com`;
  const cookie = await app.signIn(email);
  expect((await api(`/api/canvases/${c.id}/members`, 'owner', 'PUT', { email, role: 'viewer' })).status).toBe(200);
  return { email, cookie };
}

/** The viewer's cookie with the pass the password gate gives for `form` (`password=…`), after its 303. */
async function viewerWithPass(c: { slug: string }, form: string): Promise<string> {
  const gate = await app.request(`/c/${c.slug}/__easel/gate`, {
    method: 'POST',
    cookie: cast.cookie.viewer,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  expect(gate.status).toBe(303);
  return `${cast.cookie.viewer}; ${gate.headers.get('set-cookie')!.split(';')[0]}`;
}

/** Moves one time of every session `email` holds (written behind the app's back: the memo tests' time rules). */
async function setSessions(email: string, column: 'expires_at' | 'renewed_at', at: number): Promise<void> {
  await app.ctx.sql.run(`UPDATE sessions SET ${column} = ?1 WHERE user_id = (SELECT id FROM users WHERE email = ?2)`, at, email);
}

function api(path: string, who: Person, method: string, json?: unknown): Promise<Response> {
  return app.request(path, { method, cookie: cast.cookie[who], json });
}

describe('access changes show on the next page view', () => {
  test('a member removed through the API, or straight in the store, is refused at once', async () => {
    const c = await cast.newCanvas({ files: HELLO });
    await warm(c, 'viewer');
    expect((await api(`/api/canvases/${c.id}/members/${cast.ids.viewer}`, 'owner', 'DELETE')).status).toBe(200);
    expect(await code(await page(c, 'viewer'))).toEqual([404, 'NOT_FOUND']);

    expect((await api(`/api/canvases/${c.id}/members`, 'owner', 'PUT', { email: cast.emails.viewer, role: 'viewer' })).status).toBe(200);
    await warm(c, 'viewer');
    // No event, no service: the write alone must be enough.
    await app.ctx.canvases.removeMember(c.id, cast.ids.viewer);
    expect(await code(await page(c, 'viewer'))).toEqual([404, 'NOT_FOUND']);
  });

  test('a member added is let in at once (a cached "not on the list" does not linger)', async () => {
    const c = await cast.newCanvas({ files: HELLO });
    expect((await page(c, 'stranger')).status).toBe(404);
    expect((await page(c, 'stranger')).status).toBe(404);
    const email = (await app.ctx.users.byId(cast.ids.stranger))!.email;
    expect((await api(`/api/canvases/${c.id}/members`, 'owner', 'PUT', { email, role: 'viewer' })).status).toBe(200);
    expect((await page(c, 'stranger')).status).toBe(200);
  });

  test('a deactivated user (admin API, or the store) is signed out of pages at once, and back when reactivated', async () => {
    const c = await cast.newCanvas({ files: HELLO });
    const user = `/api/admin/users/${cast.ids.viewer}`;
    await warm(c, 'viewer');
    expect((await api(user, 'admin', 'PATCH', { active: false })).status).toBe(200);
    const refused = await page(c, 'viewer');
    expect(refused.status).toBe(302);
    expect(refused.headers.get('location')).toStartWith('/auth/login?returnTo=');
    expect((await api('/api/me', 'viewer', 'GET')).status).toBe(401);
    expect((await api(user, 'admin', 'PATCH', { active: true })).status).toBe(200);
    await warm(c, 'viewer');

    // Straight in the store (no event): the write alone must be enough.
    await app.ctx.users.update(cast.ids.viewer, { active: false });
    expect((await page(c, 'viewer')).status).toBe(302);
    await app.ctx.users.update(cast.ids.viewer, { active: true });
    expect((await page(c, 'viewer')).status).toBe(200);
  });

  test('logout ends the session for pages at once', async () => {
    const c = await cast.newCanvas({ files: HELLO });
    const { cookie } = await newViewer(c, 'leaver');
    await warm(c, cookie);
    expect((await app.request('/auth/logout', { method: 'POST', cookie })).status).toBe(200);
    expect((await page(c, cookie)).status).toBe(302);
  });

  test('a password set through the API gates a warmed-up viewer; a new password voids the pass', async () => {
    const c = await cast.newCanvas({ files: HELLO });
    await warm(c, 'viewer');
    expect((await api(`/api/canvases/${c.id}`, 'owner', 'PATCH', { password: 'first' })).status).toBe(200);
    expect(await code(await page(c, 'viewer'))).toEqual([403, 'PASSWORD_REQUIRED']);

    const withPass = await viewerWithPass(c, 'password=first');
    await warm(c, withPass);

    expect((await api(`/api/canvases/${c.id}`, 'owner', 'PATCH', { password: 'second' })).status).toBe(200);
    expect(await code(await page(c, withPass))).toEqual([403, 'PASSWORD_REQUIRED']);
    expect((await api(`/api/canvases/${c.id}`, 'owner', 'PATCH', { password: null })).status).toBe(200);
    expect((await page(c, 'viewer')).status).toBe(200);
  });

  test('archive, restore and disable apply at once', async () => {
    const c = await cast.newCanvas({ files: HELLO });
    await warm(c, 'viewer');
    expect((await api(`/api/canvases/${c.id}/archive`, 'owner', 'POST')).status).toBe(200);
    expect(await code(await page(c, 'viewer'))).toEqual([404, 'ARCHIVED']);
    expect((await api(`/api/canvases/${c.id}/restore`, 'owner', 'POST')).status).toBe(200);
    await warm(c, 'viewer');
    expect((await api(`/api/admin/canvases/${c.id}/disable`, 'admin', 'POST', {})).status).toBe(200);
    expect(await code(await page(c, 'viewer'))).toEqual([403, 'DISABLED']);
  });

  test("a deactivated owner's Public link canvas closes to anonymous visitors at once, and so does the instance switch", async () => {
    const c = await cast.newCanvas({ files: HELLO });
    expect((await api(`/api/canvases/${c.id}`, 'owner', 'PATCH', { accessMode: 'public_link' })).status).toBe(200);
    await warm(c, 'anonymous');
    expect((await api('/api/admin/settings', 'admin', 'PATCH', { publicLinks: false })).status).toBe(200);
    expect((await page(c, 'anonymous')).status).toBe(302);
    expect((await api('/api/admin/settings', 'admin', 'PATCH', { publicLinks: null })).status).toBe(200);
    await warm(c, 'anonymous');
    expect((await api(`/api/admin/users/${cast.ids.owner}`, 'admin', 'PATCH', { canPublishPublic: false })).status).toBe(200);
    expect((await page(c, 'anonymous')).status).toBe(302);
    expect((await api(`/api/admin/users/${cast.ids.owner}`, 'admin', 'PATCH', { canPublishPublic: true })).status).toBe(200);
    expect((await page(c, 'anonymous')).status).toBe(200);
  });

  test('an unknown slug is not remembered: a canvas created under it later is found', async () => {
    const slug = `later-${Date.now().toString(36)}`;
    expect(await code(await page({ slug }, 'owner'))).toEqual([404, 'NOT_FOUND']);
    const c = await cast.newCanvas({ slug, files: { 'index.html': 'late' } });
    const res = await page(c, 'owner');
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('late');
  });

  test('a slug renamed through the API: the old one is gone, the new one answers', async () => {
    const c = await cast.newCanvas({ files: HELLO });
    await warm(c, 'viewer');
    const slug = `renamed-${c.id.slice(0, 8)}`;
    expect((await api(`/api/canvases/${c.id}`, 'owner', 'PATCH', { slug })).status).toBe(200);
    expect((await page(c, 'viewer')).status).toBe(404);
    expect((await page({ slug }, 'viewer')).status).toBe(200);
  });
});

describe('a page view from memory', () => {
  test('is answered at once, without a promise (on Postgres it first waits for the changes other nodes committed)', async () => {
    const c = await cast.newCanvas({ files: HELLO });
    await warm(c, 'viewer');
    const answer = app.easel.serve(new Request(`${app.base}/c/${c.slug}/`, { headers: { cookie: cast.cookie.viewer } }), null);
    expect(answer instanceof Promise).toBe(ON_CLUSTER);
    const res = await answer;
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^[a-z0-9]{20}$/);
    expect(await res.text()).toBe(HELLO['index.html']);
  });
});

describe('publications show on the next page view', () => {
  test('a redeploy through the Deploy API serves the new bytes and validators at once', async () => {
    const email = `deployer-${Date.now()}@example.com`;
    const c = await createDeployCanvas(app, email);
    const owner = await app.signIn(email);
    expect((await deploy(app, c, zipOf({ 'index.html': 'one', 'app.js': 'const v = 1;' }))).status).toBe(200);
    await warm(c, owner, 'app.js');
    const first = await page(c, owner, 'app.js');
    expect(await first.text()).toBe('const v = 1;');

    expect((await deploy(app, c, zipOf({ 'index.html': 'two', 'app.js': 'const v = 2;' }))).status).toBe(200);
    const second = await page(c, owner, 'app.js');
    expect(await second.text()).toBe('const v = 2;');
    expect(second.headers.get('etag')).not.toBe(first.headers.get('etag'));
    expect(await (await page(c, owner)).text()).toBe('two');
    // The old validator no longer matches: the client gets the new bytes, not a 304.
    const revalidated = await app.request(`/c/${c.slug}/app.js`, {
      cookie: owner,
      headers: { 'if-none-match': first.headers.get('etag')! },
    });
    expect(revalidated.status).toBe(200);
  });

  test('a live pointer moved by a direct write (no event) shows at once', async () => {
    const c = await cast.newCanvas({ files: { 'index.html': 'before' } });
    await warm(c, 'viewer');
    const old = (await app.ctx.canvases.byId(c.id))!.currentVersionId;
    await cast.deploy(c, { 'index.html': 'after' });
    expect(await (await page(c, 'viewer')).text()).toBe('after');
    await app.ctx.canvases.update(c.id, { current_version_id: old }, clock);
    expect(await (await page(c, 'viewer')).text()).toBe('before');
  });
});

describe('sessions stay correct while cached', () => {
  // Watches node A's SQLite data version (on the cluster every request moves the change signal: the harness's catch-up notification).
  test.skipIf(ON_CLUSTER)('a hit neither reads nor writes the sessions table', async () => {
    const c = await cast.newCanvas({ files: HELLO });
    await warm(c, 'viewer');
    const version = DataVersion.of(app.ctx.db!);
    const before = version.current();
    for (let i = 0; i < 5; i++) expect((await page(c, 'viewer')).status).toBe(200);
    expect(version.current()).toBe(before);
  });
});

// The SQLite change signal itself (src/db/data-version.ts); on the cluster, test/cluster-postgres.test.ts checks that a node's caches hear the other's writes.
describe.skipIf(ON_CLUSTER)('DataVersion', () => {
  test('moves on every insert, update and delete of the watched tables, raw SQL included, and on nothing else', async () => {
    const c = await cast.newCanvas({ members: false, guest: false });
    const db = app.ctx.db!;
    const version = DataVersion.of(db);
    expect(DataVersion.of(db)).toBe(version);
    const moved = async (write: () => unknown): Promise<boolean> => {
      const before = version.current();
      await write();
      return version.current() !== before;
    };
    expect(await moved(() => db.query("UPDATE users SET name = name || '' WHERE id = ?").run(cast.ids.viewer))).toBe(true);
    expect(await moved(() => db.query('UPDATE canvases SET title = ? WHERE id = ?').run('t', c.id))).toBe(true);
    expect(await moved(() => app.ctx.canvases.setMember(c.id, cast.ids.stranger, 'viewer', clock))).toBe(true);
    expect(await moved(() => db.query('DELETE FROM canvas_members WHERE canvas_id = ?').run(c.id))).toBe(true);
    expect(await moved(() => app.ctx.sessions.create(cast.ids.viewer))).toBe(true);
    expect(await moved(() => db.query('UPDATE canvases SET title = ? WHERE id = ?').run('t', 'no-such-canvas'))).toBe(false);
    expect(await moved(() => app.ctx.audit.record({ actorId: cast.ids.owner, actorKind: 'user', canvasId: c.id, action: 'test' }))).toBe(
      false,
    );
    expect(await moved(() => db.query('SELECT * FROM canvases').all())).toBe(false);
  });

  test('nothing read inside a transaction is stored: a rolled-back row is never served afterwards', async () => {
    const c = await cast.newCanvas({ members: false, guest: false, title: 'Committed' });
    const db = app.ctx.db!;
    const version = DataVersion.of(db);
    const cache = new VersionedCache<string>(version, () => clock, 10);
    const title = () =>
      cache.get(c.id, () => db.query<{ title: string }, [string]>('SELECT title FROM canvases WHERE id = ?').get(c.id)!.title);
    expect(title()).toBe('Committed');

    expect(() =>
      db.transaction(() => {
        expect(version.storable()).toBe(false);
        db.query('UPDATE canvases SET title = ? WHERE id = ?').run('uncommitted', c.id);
        expect(title()).toBe('uncommitted');
        throw new Error('roll back');
      })(),
    ).toThrow('roll back');
    expect(version.storable()).toBe(true);
    expect(title()).toBe('Committed');
    expect(cache.size).toBe(1);
  });

  test('entries are trusted for ten seconds at most (writes by another process are not seen)', () => {
    const cache = new VersionedCache<number>(DataVersion.of(app.ctx.db!), () => clock, 10);
    let loads = 0;
    const get = () => cache.get('k', () => ++loads);
    expect(get()).toBe(1);
    expect(get()).toBe(1);
    clock += 10_001;
    expect(get()).toBe(2);
  });
});

describe('subdomain mode shares the caches', () => {
  test('a member removed is refused on the canvas host at once', async () => {
    const HOST = 'easel.test:8080';
    const sub = await startTestApp({
      env: { EASEL_URL_MODE: 'subdomain', EASEL_BASE_URL: `http://${HOST}` },
    });
    try {
      const people = await new World().attach(sub);
      const c = await people.newCanvas({ files: HELLO });
      const cookie = await canvasHostCookie(sub, HOST, c.slug, people.cookie.viewer);
      const view = () => sub.request('/', { cookie, headers: { host: `${c.slug}.${HOST}` } });
      for (let i = 0; i < 3; i++) expect((await view()).status).toBe(200);
      // Straight in the store (no event): the canvas host must see the write alone.
      await sub.ctx.canvases.removeMember(c.id, people.ids.viewer);
      expect((await view()).status).toBe(404);
    } finally {
      await sub.close();
    }
  });
});

/**
 * A page view through a node's own handler, as Bun.serve calls it. On the
 * cluster the harness's requests first send a change notification (so every
 * request it makes moves the change signal, and nothing a node remembers
 * between requests would ever be reused); these do not, so a node keeps its
 * admission memo between them, as in production.
 */
async function direct(node: TestApp, c: { slug: string }, cookie: string, path = ''): Promise<Response> {
  return await node.easel.serve(new Request(`${node.base}/c/${c.slug}/${path}`, { headers: { cookie } }), null);
}

/** Every node's answer to the same page view, one after the other (each node's memo warmed first). */
async function everyNode(c: { slug: string }, cookie: string): Promise<Array<[number, string | null]>> {
  const out: Array<[number, string | null]> = [];
  for (const node of app.nodes) out.push(await code(await direct(node, c, cookie)));
  return out;
}

async function warmEveryNode(c: { slug: string }, cookie: string): Promise<void> {
  for (let i = 0; i < 3; i++) expect(await everyNode(c, cookie)).toEqual(app.nodes.map(() => [200, null]));
}

const refusedEverywhere = (status: number, code: string | null): Array<[number, string | null]> => app.nodes.map(() => [status, code]);

describe('the admission memo (a signed-in page view reuses its admission, on every node)', () => {
  test('after the first view, further views of the canvas do not authenticate again', async () => {
    const c = await cast.newCanvas({ files: HELLO });
    const other = await cast.newCanvas({ files: HELLO });
    await warmEveryNode(c, cast.cookie.viewer);
    const counted = app.nodes.map((node) => {
      const auth = node.ctx.auth;
      const original = auth.authenticate;
      let calls = 0;
      auth.authenticate = (...args) => (calls++, original.apply(auth, args));
      return { calls: () => calls, restore: () => (auth.authenticate = original) };
    });
    try {
      for (let i = 0; i < 3; i++) expect(await everyNode(c, cast.cookie.viewer)).toEqual(app.nodes.map(() => [200, null]));
      expect(counted.map((n) => n.calls())).toEqual(app.nodes.map(() => 0));
      // Another canvas, or another person, is decided on its own.
      await everyNode(other, cast.cookie.viewer);
      await everyNode(c, cast.cookie.editor);
      expect(counted.map((n) => n.calls())).toEqual(app.nodes.map(() => 2));
    } finally {
      for (const n of counted) n.restore();
    }
  });

  test("a password canvas is never remembered: the same session without the gate's pass meets the form", async () => {
    const c = await cast.newCanvas({ files: HELLO, settings: { password: 'open sesame' } });
    const withPass = await viewerWithPass(c, 'password=open%20sesame');
    await warmEveryNode(c, withPass);
    expect(await everyNode(c, cast.cookie.viewer)).toEqual(refusedEverywhere(403, 'PASSWORD_REQUIRED'));
  });

  test('a member removed (API) is refused at once on every node', async () => {
    const c = await cast.newCanvas({ files: HELLO });
    await warmEveryNode(c, cast.cookie.viewer);
    expect((await api(`/api/canvases/${c.id}/members/${cast.ids.viewer}`, 'owner', 'DELETE')).status).toBe(200);
    expect(await everyNode(c, cast.cookie.viewer)).toEqual(refusedEverywhere(404, 'NOT_FOUND'));
  });

  test('a session signed out is signed out of pages at once on every node', async () => {
    const c = await cast.newCanvas({ files: HELLO });
    const { cookie } = await newViewer(c, 'memo-leaver');
    await warmEveryNode(c, cookie);
    expect((await app.request('/auth/logout', { method: 'POST', cookie })).status).toBe(200);
    expect((await everyNode(c, cookie)).map(([status]) => status)).toEqual(app.nodes.map(() => 302));
  });

  test('a deactivated user is signed out of pages at once on every node', async () => {
    const c = await cast.newCanvas({ files: HELLO });
    await warmEveryNode(c, cast.cookie.viewer2);
    await app.ctx.users.update(cast.ids.viewer2, { active: false });
    try {
      expect((await everyNode(c, cast.cookie.viewer2)).map(([status]) => status)).toEqual(app.nodes.map(() => 302));
    } finally {
      await app.ctx.users.update(cast.ids.viewer2, { active: true });
    }
  });

  test('an access mode narrowed shuts out whom it let in, at once on every node', async () => {
    const c = await cast.newCanvas({ files: HELLO, settings: { accessMode: 'whole_org' } });
    await warmEveryNode(c, cast.cookie.stranger);
    expect((await api(`/api/canvases/${c.id}`, 'owner', 'PATCH', { accessMode: 'restricted' })).status).toBe(200);
    expect(await everyNode(c, cast.cookie.stranger)).toEqual(refusedEverywhere(404, 'NOT_FOUND'));
  });

  test('unpublishing shows at once on every node', async () => {
    const c = await cast.newCanvas({ files: HELLO });
    await warmEveryNode(c, cast.cookie.viewer);
    await cast.unpublish(c);
    for (const node of app.nodes) {
      const res = await direct(node, c, cast.cookie.viewer);
      expect([res.status, await res.text()]).toEqual([404, expect.stringContaining('This canvas has no published version right now.')]);
    }
  });

  test('a share that expires while remembered is refused from that moment, on every node', async () => {
    const c = await cast.newCanvas({ files: HELLO });
    await app.ctx.canvases.update(c.id, { expires_at: clock + 500 }, clock);
    await warmEveryNode(c, cast.cookie.viewer);
    clock += 600; // well within the memo's own second
    expect(await everyNode(c, cast.cookie.viewer)).toEqual(refusedEverywhere(404, 'SHARE_EXPIRED'));
  });

  test('a session that expires while remembered ends from that moment, on every node', async () => {
    const c = await cast.newCanvas({ files: HELLO });
    const { email, cookie } = await newViewer(c, 'memo-expiring');
    await setSessions(email, 'expires_at', clock + 500);
    await warmEveryNode(c, cookie);
    clock += 600;
    expect((await everyNode(c, cookie)).map(([status]) => status)).toEqual(app.nodes.map(() => 302));
  });

  test('a session due for its hourly renewal while remembered is renewed on the next view', async () => {
    const c = await cast.newCanvas({ files: HELLO });
    const { email, cookie } = await newViewer(c, 'memo-renewing');
    await setSessions(email, 'renewed_at', clock - HOUR + 500);
    await warmEveryNode(c, cookie);
    for (const node of app.nodes) expect((await direct(node, c, cookie)).headers.get('set-cookie')).toBeNull();
    clock += 600;
    const renewed = await direct(app.nodes[0]!, c, cookie);
    expect(renewed.status).toBe(200);
    expect(renewed.headers.get('set-cookie')).toStartWith('easel_session=');
  });
});

// Last: it moves the shared clock past every session's lifetime.
describe('sessions stay correct while cached (clock moves)', () => {
  test('renewal still slides the expiry at most hourly, and expiry still ends the session', async () => {
    const c = await cast.newCanvas({ files: HELLO });
    const { email, cookie } = await newViewer(c, 'slider');
    const renewedAt = async () =>
      (await app.ctx.sql.get<{ renewed_at: number }>(
        'SELECT renewed_at FROM sessions WHERE user_id = (SELECT id FROM users WHERE email = ?1)',
        email,
      ))!.renewed_at;
    const start = await renewedAt();

    await warm(c, cookie);
    clock += 59 * 60_000;
    const quiet = await page(c, cookie);
    expect(quiet.status).toBe(200);
    expect(quiet.headers.get('set-cookie')).toBeNull();
    expect(await renewedAt()).toBe(start);

    clock += 2 * 60_000;
    const renewed = await page(c, cookie);
    expect(renewed.status).toBe(200);
    expect(renewed.headers.get('set-cookie')).toStartWith('easel_session=');
    expect(await renewedAt()).toBe(clock);
    for (let i = 0; i < 3; i++) expect((await page(c, cookie)).headers.get('set-cookie')).toBeNull();

    clock += app.ctx.config.sessionTtlHours * HOUR + 1;
    expect((await page(c, cookie)).status).toBe(302);
  });
});
