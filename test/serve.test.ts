// passes: embedded, cluster
// Canvas pages: who gets which answer (the sharing ladder as HTML pages), and the password gate.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { gatePassed, PASS_TTL_MS } from '../src/serve/gate-pass.ts';
import { GATE_ATTEMPTS_PER_MIN } from '../src/serve/canvas-server.ts';
import { ON_CLUSTER, startTestApp, type TestApp } from './harness.ts';
import { pageCode } from './serve-fixtures.ts';
import { ADMIN_EMAIL, deployFiles, World, type Who, type WorldCanvas } from './world.ts';

const PASSWORD = 'correct horse battery staple';
const HELLO = { 'index.html': '<h1>hello</h1>' };

/** Who the page matrix asks (the guest is asked separately, from another canvas). */
const PEOPLE = ['anonymous', 'stranger', 'viewer', 'editor', 'owner', 'admin'] as const satisfies readonly Who[];
type Person = (typeof PEOPLE)[number];

/** A canvas of `w`'s owner (editor and viewers on its list), published with `files` through the Deploy API, then given `settings` through the management API. */
async function published(w: World, settings?: Record<string, unknown>, files: Record<string, string> = HELLO): Promise<WorldCanvas> {
  const c = await w.newCanvas({ files });
  if (settings) await w.settings(settings, c);
  return c;
}

type Expect = number | [number, string];
const LOGIN = 302;

/** Expected answer per person for GET {canvas}/: a status, or [status, easel-code of the page]. */
type Row = Record<Person, Expect>;

const NF: Expect = [404, 'NOT_FOUND'];

let app: TestApp;
let cast: World;
/** A legacy guest session scoped to a canvas of its own, visiting the matrix's canvases. */
let guestElsewhere: string;

beforeAll(async () => {
  app = await startTestApp({ env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL } });
  cast = await new World().attach(app);
  guestElsewhere = (await published(cast)).guestCookie;
});
afterAll(() => app.close());

async function expectAnswer(res: Response, expected: Expect, label: string): Promise<string> {
  const [status, code] = typeof expected === 'number' ? [expected, null] : expected;
  const text = await res.text();
  expect({ label, status: res.status }).toEqual({ label, status });
  if (code) expect({ label, code: pageCode(text) }).toEqual({ label, code });
  if (status === 200) expect(text).toContain('<h1>hello</h1>');
  if (status === LOGIN) expect(res.headers.get('location')).toMatch(/^\/auth\/login\?returnTo=%2Fc%2F/);
  return text;
}

describe('access matrix for a canvas page', () => {
  const scenarios: Array<[string, (c: WorldCanvas) => Promise<unknown> | unknown, Row]> = [
    ['restricted', () => {}, { anonymous: LOGIN, stranger: NF, viewer: 200, editor: 200, owner: 200, admin: NF }],
    [
      'whole_org',
      (c) => cast.settings({ accessMode: 'whole_org' }, c),
      { anonymous: LOGIN, stranger: 200, viewer: 200, editor: 200, owner: 200, admin: 200 },
    ],
    [
      'public_link',
      (c) => cast.settings({ accessMode: 'public_link' }, c),
      { anonymous: 200, stranger: 200, viewer: 200, editor: 200, owner: 200, admin: 200 },
    ],
    [
      'public_link, public links off for the instance',
      async (c) => {
        await cast.settings({ accessMode: 'public_link' }, c);
        await cast.adminSettings({ publicLinks: false });
      },
      { anonymous: LOGIN, stranger: NF, viewer: 200, editor: 200, owner: 200, admin: NF },
    ],
    [
      'public_link, owner may not publish public links',
      async (c) => {
        await cast.settings({ accessMode: 'public_link' }, c);
        await cast.adminUser('owner', { canPublishPublic: false });
      },
      { anonymous: LOGIN, stranger: NF, viewer: 200, editor: 200, owner: 200, admin: NF },
    ],
    [
      'password',
      (c) => cast.settings({ password: PASSWORD }, c),
      { anonymous: LOGIN, stranger: NF, viewer: [403, 'PASSWORD_REQUIRED'], editor: 200, owner: 200, admin: NF },
    ],
    [
      'public_link with a password',
      (c) => cast.settings({ password: PASSWORD, accessMode: 'public_link' }, c),
      {
        anonymous: [403, 'PASSWORD_REQUIRED'],
        stranger: [403, 'PASSWORD_REQUIRED'],
        viewer: [403, 'PASSWORD_REQUIRED'],
        editor: 200,
        owner: 200,
        admin: [403, 'PASSWORD_REQUIRED'],
      },
    ],
    [
      'expired',
      (c) => cast.settings({ expiresAt: app.ctx.now() - 1000 }, c),
      { anonymous: LOGIN, stranger: NF, viewer: [404, 'SHARE_EXPIRED'], editor: 200, owner: 200, admin: NF },
    ],
    [
      'expired public_link',
      (c) => cast.settings({ accessMode: 'public_link', expiresAt: app.ctx.now() - 1000 }, c),
      {
        anonymous: LOGIN,
        stranger: [404, 'SHARE_EXPIRED'],
        viewer: [404, 'SHARE_EXPIRED'],
        editor: 200,
        owner: 200,
        admin: [404, 'SHARE_EXPIRED'],
      },
    ],
    [
      'archived',
      (c) => cast.archive(c),
      { anonymous: LOGIN, stranger: NF, viewer: [404, 'ARCHIVED'], editor: [404, 'ARCHIVED'], owner: [404, 'ARCHIVED'], admin: NF },
    ],
    [
      'disabled',
      (c) => cast.disable(c, { reason: 'abuse' }),
      { anonymous: LOGIN, stranger: NF, viewer: [403, 'DISABLED'], editor: [403, 'DISABLED'], owner: [403, 'DISABLED'], admin: NF },
    ],
    ['unpublished', (c) => cast.unpublish(c), { anonymous: LOGIN, stranger: NF, viewer: NF, editor: NF, owner: NF, admin: NF }],
    ['deleted', (c) => cast.delete(c), { anonymous: LOGIN, stranger: NF, viewer: NF, editor: NF, owner: NF, admin: NF }],
  ];

  for (const [name, arrange, row] of scenarios) {
    test(name, async () => {
      const canvas = await published(cast);
      // Warm the manifest cache first, so the change must invalidate it.
      expect((await app.request(`/c/${canvas.slug}/`, { cookie: cast.cookie.owner })).status).toBe(200);
      try {
        await arrange(canvas);
        for (const who of PEOPLE) {
          const res = await app.request(`/c/${canvas.slug}/`, { cookie: cast.cookie[who] });
          await expectAnswer(res, row[who], `${name} / ${who}`);
        }
        // A guest of another canvas is nobody here: exactly what an anonymous visitor gets (CONTRACT §5).
        const res = await app.request(`/c/${canvas.slug}/`, { cookie: guestElsewhere });
        await expectAnswer(res, row.anonymous, `${name} / guest of another canvas`);
      } finally {
        await cast.adminSettings({ publicLinks: null });
        await cast.adminUser('owner', { canPublishPublic: true });
      }
    });
  }

  test('a guest gets into its own canvas only, without the password form', async () => {
    const mine = await published(cast);
    const other = await published(cast);
    const guest = mine.guestCookie;
    await expectAnswer(await app.request(`/c/${mine.slug}/`, { cookie: guest }), 200, 'own');
    // Elsewhere the guest session counts for nothing: sent to sign in like anyone without a session.
    await expectAnswer(await app.request(`/c/${other.slug}/`, { cookie: guest }), LOGIN, 'other');
    await expectAnswer(await app.request('/c/no-such-canvas-here/', { cookie: guest }), LOGIN, 'unknown');
    await cast.settings({ password: PASSWORD }, mine);
    await expectAnswer(await app.request(`/c/${mine.slug}/`, { cookie: guest }), 200, 'own with password');
  });

  test("a guest of another canvas: an open Public link page serves, the canvas's runtime API stays NOT_INVITED", async () => {
    const mine = await published(cast);
    const pub = await published(cast, { accessMode: 'public_link' });
    const guest = mine.guestCookie;
    const page = await app.request(`/c/${pub.slug}/`, { cookie: guest });
    await expectAnswer(page, 200, 'public link page');
    expect(page.headers.get('cache-control')).toBe('public, no-cache');
    const api = await app.request(`/v1/c/${pub.slug}/me`, { cookie: guest });
    expect(api.status).toBe(404);
    expect(((await api.json()) as { code: string }).code).toBe('NOT_INVITED');
  });

  test('"no such canvas" and "no route in" are the same page, byte for byte', async () => {
    const canvas = await published(cast);
    // The pages differ only in the address the visitor asked for, echoed in the "sign in as someone else" link.
    const page = async (path: string) => {
      const text = await (await app.request(path, { cookie: cast.cookie.stranger })).text();
      const href = `/auth/login?switch=1&#38;returnTo=${encodeURIComponent(path)}`;
      expect(text).toContain(`href="${href}"`);
      return text.replace(href, 'HREF');
    };
    const unknown = await page('/c/no-such-canvas-here/');
    expect(await page(`/c/${canvas.slug}/`)).toBe(unknown);
    expect(await page(`/c/${canvas.slug}/deep/page.html`)).toBe(unknown);
    expect(unknown).toContain(`Signed in as <strong>${cast.emails.stranger}</strong>`);
    // Anonymous visitors are sent to sign in either way.
    const a = await app.request(`/c/${canvas.slug}/x?y=1`);
    const b = await app.request('/c/no-such-canvas-here/x?y=1');
    expect(a.status).toBe(302);
    expect(b.status).toBe(302);
    expect(a.headers.get('location')).toBe(`/auth/login?returnTo=${encodeURIComponent(`/c/${canvas.slug}/x?y=1`)}`);
  });

  test("refusal pages are HTML, not cached, and carry the canvas's framing rule within Easel's strict page policy", async () => {
    const canvas = await published(cast);
    const res = await app.request(`/c/${canvas.slug}/`, { cookie: cast.cookie.stranger });
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    const policy = res.headers.get('content-security-policy')!;
    expect(policy).toStartWith("default-src 'none'; ");
    expect(policy).toContain("frame-ancestors 'self'");
  });

  // Counts node A's SQLite connection's changes (total_changes()): there is no such counter on Postgres.
  test.skipIf(ON_CLUSTER)('a page view writes nothing to the database', async () => {
    const canvas = await published(cast, undefined, { 'index.html': '<h1>hello</h1>', 'a.js': 'let a = 1;' });
    await app.request(`/c/${canvas.slug}/`, { cookie: cast.cookie.viewer });
    const changes = () => app.ctx.db!.query<{ n: number }, []>('SELECT total_changes() AS n').get()!.n;
    const before = changes();
    for (let i = 0; i < 20; i++) {
      expect((await app.request(`/c/${canvas.slug}/a.js`, { cookie: cast.cookie.viewer })).status).toBe(200);
      expect((await app.request(`/c/${canvas.slug}/missing`, { cookie: cast.cookie.viewer })).status).toBe(404);
    }
    expect(changes()).toBe(before);
  });
});

describe('whole_org under tenancy', () => {
  test("admits members of the owner's org only", async () => {
    const t = await startTestApp({ env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_TENANCY: 'on' } });
    try {
      const c = await new World().attach(t);
      const setOrg = (who: 'owner' | 'stranger' | 'admin', orgId: string | null) => c.adminUser(who, { orgId });
      await setOrg('owner', 'org-a');
      await setOrg('stranger', 'org-a');
      await setOrg('admin', 'org-b');
      const canvas = await published(c, { accessMode: 'whole_org' });
      const status = async (who: Person) => (await t.request(`/c/${canvas.slug}/`, { cookie: c.cookie[who] })).status;
      expect(await status('stranger')).toBe(200); // same org, not on the list
      expect(await status('admin')).toBe(404); // another org
      expect(await status('viewer')).toBe(200); // no org, but on the list
      expect(await status('anonymous')).toBe(302);
      await setOrg('stranger', null);
      expect(await status('stranger')).toBe(404);
      await setOrg('owner', null); // an owner without an org: nobody beyond the list
      await setOrg('stranger', null);
      expect(await status('stranger')).toBe(404);
      expect(await status('viewer')).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('proxy mode', () => {
  test('no identity: 401 page instead of a redirect; Public link canvases stay open', async () => {
    const t = await startTestApp({ listen: true, env: { EASEL_AUTH_MODE: 'proxy' } });
    try {
      // The proxy (loopback is trusted) names the user in a header: no session cookie.
      const asOwner = { 'x-forwarded-email': 'owner@example.com', 'sec-fetch-site': 'same-origin' };
      const created = await t.request('/api/canvases', { method: 'POST', headers: asOwner, json: { title: 'Proxy' } });
      expect(created.status).toBe(201);
      const canvas: { id: string; slug: string; apiKey: string } = await created.json();
      await deployFiles(t, canvas, HELLO);
      const res = await t.request(`/c/${canvas.slug}/`);
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(pageCode(await res.text())).toBe('UNAUTHORIZED');
      expect((await t.request('/c/nothing-here/')).status).toBe(401);
      const patch = await t.request(`/api/canvases/${canvas.id}`, {
        method: 'PATCH',
        headers: asOwner,
        json: { accessMode: 'public_link' },
      });
      expect(patch.status).toBe(200);
      expect((await t.request(`/c/${canvas.slug}/`)).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('password gate', () => {
  const gatePost = (slug: string, password: string | undefined, cookie: string, extra: Record<string, string> = {}) => {
    const form = new URLSearchParams(extra);
    if (password !== undefined) form.set('password', password);
    return app.request(`/c/${slug}/__easel/gate`, {
      method: 'POST',
      cookie,
      body: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  };
  const gateCookie = (res: Response) => res.headers.get('set-cookie')!.split(';')[0]!;
  const join = (...cookies: string[]) => cookies.filter(Boolean).join('; ');

  test('form → wrong password 403 → right password 303 with the pass → page; a new password voids the pass', async () => {
    const canvas = await published(cast, { password: PASSWORD });
    const form = await app.request(`/c/${canvas.slug}/`, { cookie: cast.cookie.viewer });
    expect(form.status).toBe(403);
    const html = await form.text();
    expect(pageCode(html)).toBe('PASSWORD_REQUIRED');
    expect(html).toContain(`action="/c/${canvas.slug}/__easel/gate"`);
    expect(html).toContain('name="password"');

    const wrong = await gatePost(canvas.slug, 'nope', cast.cookie.viewer);
    expect(wrong.status).toBe(403);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    const wrongHtml = await wrong.text();
    expect(pageCode(wrongHtml)).toBe('PASSWORD_REQUIRED');
    expect(wrongHtml).toContain('not right');
    expect(wrongHtml).not.toContain('nope');

    const right = await gatePost(canvas.slug, PASSWORD, cast.cookie.viewer);
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe(`/c/${canvas.slug}/`);
    const setCookie = right.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/^__easel_gate=[^;]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
    const pass = gateCookie(right);

    await expectAnswer(await app.request(`/c/${canvas.slug}/`, { cookie: join(cast.cookie.viewer, pass) }), 200, 'with pass');
    // The runtime API checks the same pass.
    const req = new Request(`http://localhost/v1/c/${canvas.slug}/me`, { headers: { cookie: join(cast.cookie.viewer, pass) } });
    expect(gatePassed(app.ctx, req, (await app.ctx.canvases.byId(canvas.id))!)).toBe(true);

    await cast.settings({ password: 'a new password' }, canvas);
    const after = await app.request(`/c/${canvas.slug}/`, { cookie: join(cast.cookie.viewer, pass) });
    expect(after.status).toBe(403);
    expect(gatePassed(app.ctx, req, (await app.ctx.canvases.byId(canvas.id))!)).toBe(false);
  });

  test('one cookie holds passes for several canvases; a tampered cookie holds none', async () => {
    const a = await published(cast, { password: PASSWORD });
    const b = await published(cast, { password: 'other secret' });
    const first = gateCookie(await gatePost(a.slug, PASSWORD, cast.cookie.viewer));
    const both = gateCookie(await gatePost(b.slug, 'other secret', join(cast.cookie.viewer, first)));
    for (const c of [a, b]) expect((await app.request(`/c/${c.slug}/`, { cookie: join(cast.cookie.viewer, both) })).status).toBe(200);
    // Changing one canvas's password leaves the other's pass alone.
    await cast.settings({ password: 'changed' }, a);
    expect((await app.request(`/c/${a.slug}/`, { cookie: join(cast.cookie.viewer, both) })).status).toBe(403);
    expect((await app.request(`/c/${b.slug}/`, { cookie: join(cast.cookie.viewer, both) })).status).toBe(200);
    // Any change to the value breaks the signature.
    const value = both.slice('__easel_gate='.length);
    const forged = `__easel_gate=${value.replace(/-(\d+)-/, (_, v) => `-${Number(v) + 1}-`)}`;
    expect((await app.request(`/c/${b.slug}/`, { cookie: join(cast.cookie.viewer, forged) })).status).toBe(403);
    expect((await app.request(`/c/${b.slug}/`, { cookie: join(cast.cookie.viewer, '__easel_gate=garbage') })).status).toBe(403);
  });

  test('a second __easel_gate sent first (tossed by a sibling host) does not hide the real passes', async () => {
    const a = await published(cast, { password: PASSWORD });
    const real = gateCookie(await gatePost(a.slug, PASSWORD, cast.cookie.viewer));
    for (const tossed of ['__easel_gate=garbage', '__easel_gate=']) {
      expect((await app.request(`/c/${a.slug}/`, { cookie: join(cast.cookie.viewer, tossed, real) })).status).toBe(200);
    }
  });

  test('anonymous visitors of a Public link canvas pass the gate too; the page is then private to caches', async () => {
    const canvas = await published(cast, { password: PASSWORD, accessMode: 'public_link' });
    expect((await app.request(`/c/${canvas.slug}/`)).status).toBe(403);
    const right = await gatePost(canvas.slug, PASSWORD, '');
    expect(right.status).toBe(303);
    const res = await app.request(`/c/${canvas.slug}/`, { cookie: gateCookie(right) });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-cache');
  });

  test('the gate reveals nothing to people without a route in, and is a no-op for those who need no pass', async () => {
    const canvas = await published(cast, { password: PASSWORD });
    const stranger = await gatePost(canvas.slug, PASSWORD, cast.cookie.stranger);
    expect(stranger.status).toBe(404);
    expect(stranger.headers.get('set-cookie')).toBeNull();
    expect((await gatePost('no-such-canvas-here', PASSWORD, cast.cookie.stranger)).status).toBe(404);
    const anonymous = await gatePost(canvas.slug, PASSWORD, '');
    expect(anonymous.status).toBe(302);
    const owner = await gatePost(canvas.slug, undefined, cast.cookie.owner);
    expect(owner.status).toBe(303);
    expect(owner.headers.get('set-cookie')).toBeNull();
  });

  test('`next` returns to the page asked for, never outside the canvas', async () => {
    const canvas = await published(cast, { password: PASSWORD }, { 'index.html': '<h1>hello</h1>', 'b.html': 'b' });
    const form = await (await app.request(`/c/${canvas.slug}/b.html?x=1`, { cookie: cast.cookie.viewer })).text();
    expect(form).toContain(`name="next" value="/c/${canvas.slug}/b.html?x=1"`);
    const ok = await gatePost(canvas.slug, PASSWORD, cast.cookie.viewer, { next: `/c/${canvas.slug}/b.html?x=1` });
    expect(ok.headers.get('location')).toBe(`/c/${canvas.slug}/b.html?x=1`);
    for (const next of ['//evil.example/', 'https://evil.example/', '/c/other/', `/c/${canvas.slug}/\\evil`]) {
      const res = await gatePost(canvas.slug, PASSWORD, cast.cookie.viewer, { next });
      expect(res.headers.get('location')).toBe(`/c/${canvas.slug}/`);
    }
  });

  test('multipart forms work; missing, empty and oversized passwords are wrong passwords', async () => {
    const canvas = await published(cast, { password: PASSWORD });
    const fd = new FormData();
    fd.set('password', PASSWORD);
    const multipart = await app.request(`/c/${canvas.slug}/__easel/gate`, { method: 'POST', cookie: cast.cookie.viewer, body: fd });
    expect(multipart.status).toBe(303);
    expect(multipart.headers.get('set-cookie')).toStartWith('__easel_gate=');
    expect((await gatePost(canvas.slug, undefined, cast.cookie.viewer)).status).toBe(403);
    expect((await gatePost(canvas.slug, '', cast.cookie.viewer)).status).toBe(403);
    const huge = await app.request(`/c/${canvas.slug}/__easel/gate`, {
      method: 'POST',
      cookie: cast.cookie.viewer,
      body: `password=${'x'.repeat(20_000)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(huge.status).toBe(403);
  });

  test(`more than ${GATE_ATTEMPTS_PER_MIN} attempts a minute: 429 with Retry-After`, async () => {
    let now = Date.UTC(2030, 0, 1, 0, 0, 5);
    const t = await startTestApp({ now: () => now, env: { EASEL_RATELIMIT_ENABLED: 'false' } });
    try {
      const c = await new World().attach(t);
      const canvas = await published(c, { password: PASSWORD });
      const post = (password: string) =>
        t.request(`/c/${canvas.slug}/__easel/gate`, {
          method: 'POST',
          cookie: c.cookie.viewer,
          body: `password=${encodeURIComponent(password)}`,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        });
      for (let i = 0; i < GATE_ATTEMPTS_PER_MIN; i++) expect((await post('wrong')).status).toBe(403);
      const limited = await post(PASSWORD);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(pageCode(await limited.text())).toBe('RATE_LIMITED');
      now += 60_000;
      expect((await post(PASSWORD)).status).toBe(303);
    } finally {
      await t.close();
    }
  });

  test('the password and the pass never reach the log or a page', async () => {
    const secret = 'log-canary-password-1234';
    const canvas = await published(cast, { password: secret });
    const res = await gatePost(canvas.slug, secret, cast.cookie.viewer);
    const pass = gateCookie(res).split('=')[1]!;
    await gatePost(canvas.slug, `${secret}-wrong`, cast.cookie.viewer);
    const logs = JSON.stringify(app.logs);
    expect(logs).not.toContain(secret);
    expect(logs).not.toContain(pass);
    expect(app.logs.some((l) => l.msg === 'gate passed' && l.canvasId === canvas.id)).toBe(true);
  });
});

describe('anonymous visitors and /sdk/v1.js', () => {
  test('admitted only from a page of a canvas they may see right now', async () => {
    const { anonymousSdkVisitor } = await import('../src/serve/sdk-admission.ts');
    const admit = anonymousSdkVisitor(app.ctx, app.features.access);
    const canvas = await published(cast, { accessMode: 'public_link' });
    const restricted = await published(cast);
    const from = (referer: string | null, cookie = '') => {
      const headers: Record<string, string> = cookie ? { cookie } : {};
      if (referer !== null) headers.referer = referer;
      return admit(new Request('http://localhost/sdk/v1.js', { headers }));
    };
    const base = app.ctx.config.baseUrl;
    expect(await from(`${base}/c/${canvas.slug}/page.html`)).toBe(true);
    expect(await from(`${base}/c/${restricted.slug}/`)).toBe(false);
    expect(await from(`${base}/c/no-such-canvas/`)).toBe(false);
    expect(await from(`https://elsewhere.example/c/${canvas.slug}/`)).toBe(false);
    expect(await from(null)).toBe(false);
    expect(await from('not a url')).toBe(false);
    await cast.settings({ password: PASSWORD }, canvas);
    expect(await from(`${base}/c/${canvas.slug}/`)).toBe(false);
    const res = await app.request(`/c/${canvas.slug}/__easel/gate`, {
      method: 'POST',
      body: `password=${encodeURIComponent(PASSWORD)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(await from(`${base}/c/${canvas.slug}/`, res.headers.get('set-cookie')!.split(';')[0]!)).toBe(true);
    await cast.adminSettings({ publicLinks: false });
    try {
      expect(await from(`${base}/c/${canvas.slug}/`, res.headers.get('set-cookie')!.split(';')[0]!)).toBe(false);
    } finally {
      await cast.adminSettings({ publicLinks: null });
    }
  });
});

describe('pass lifetime', () => {
  test(`a pass lasts ${PASS_TTL_MS / 86_400_000} days`, async () => {
    let now = Date.UTC(2030, 0, 1);
    const t = await startTestApp({ now: () => now });
    try {
      const c = await new World().attach(t);
      const canvas = await published(c, { password: PASSWORD, accessMode: 'public_link' });
      const res = await t.request(`/c/${canvas.slug}/__easel/gate`, {
        method: 'POST',
        body: `password=${encodeURIComponent(PASSWORD)}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      const pass = res.headers.get('set-cookie')!.split(';')[0]!;
      now += PASS_TTL_MS - 1000;
      expect((await t.request(`/c/${canvas.slug}/`, { cookie: pass })).status).toBe(200);
      now += 2000;
      expect((await t.request(`/c/${canvas.slug}/`, { cookie: pass })).status).toBe(403);
    } finally {
      await t.close();
    }
  });
});
