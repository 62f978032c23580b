// passes: embedded, cluster
// The role matrix of every management route (CONTRACT §4 and §9, spec
// "Management API routes"): each request asked by the whole cast. Check
// order: the caller (401 `{error: unauthorized}`: no session, a guest
// session, a deploy key), then their right to the canvas (404 for anyone
// who may not manage it, 403 for an editor on owner-only actions), then the
// body (400). Every refusal proves it stored nothing.
import { describe, expect } from 'bun:test';
import { matrix, scenario, type Expected, type Row } from './scenario.ts';
import { useWorld, type Who, type World } from './world.ts';

const ANON: Expected = { status: 401, error: 'unauthorized' };
const HIDDEN: Expected = { status: 404, code: 'NOT_FOUND' };
const DENIED: Expected = { status: 403, code: 'PERMISSION_DENIED' };
const INVALID: Expected = { status: 400, code: 'INVALID_BODY' };
const nothing = (w: World) => w.stored();

/** Owners, editors and admins may; viewers and strangers learn nothing; no user, no entry. */
const manage = (ok: Expected, editor: Expected = ok): Record<Who, Expected> => ({
  anonymous: ANON,
  stranger: HIDDEN,
  viewer: HIDDEN,
  editor,
  owner: ok,
  admin: ok,
  guest: ANON,
  otherKey: ANON,
});
/** Owner or admin; an editor is told no (CONTRACT "Decided 2026-11-23"). */
const own = (ok: Expected) => manage(ok, DENIED);
/** Instance admins only; to anyone else the route does not exist. */
const adminOnly = (ok: Expected): Record<Who, Expected> => ({ ...manage(HIDDEN), owner: HIDDEN, editor: HIDDEN, admin: ok });
/** Any signed-in user. */
const signedIn = (ok: Expected | ((who: Who) => Expected)): Record<Who, Expected> => {
  const at = (who: Who) => (typeof ok === 'function' ? ok(who) : ok);
  return {
    ...manage(HIDDEN),
    stranger: at('stranger'),
    viewer: at('viewer'),
    editor: at('editor'),
    owner: at('owner'),
    admin: at('admin'),
  };
};

const roleShown: Record<Who, string> = {
  anonymous: '',
  stranger: '',
  viewer: '',
  editor: 'editor',
  owner: 'owner',
  admin: 'admin',
  guest: '',
  otherKey: '',
};
const view = (check?: (b: any, w: World) => void): Expected => ({ status: 200, check: (b, _res, w) => check?.(b, w) });

/** Fills `role` checks per cast member. */
function withRole(m: Record<Who, Expected>): Record<Who, Expected> {
  const out = { ...m };
  for (const who of ['editor', 'owner', 'admin'] as const) {
    const o = out[who];
    if (o.status !== 200) continue;
    const inner = o.check;
    out[who] = { ...o, check: (b, res, w) => (expect(b.role).toBe(roleShown[who]), inner?.(b, res, w)) };
  }
  return out;
}

describe('management API: canvases', () => {
  const w = useWorld();
  const rows: Row[] = [
    ...matrix(
      { method: 'POST', path: '/api/canvases', body: { title: 'A new one' }, unchanged: nothing },
      signedIn({
        status: 201,
        check: (b) => expect(b).toMatchObject({ title: 'A new one', role: 'owner', apiKey: expect.stringMatching(/^easel_sk_/) }),
      }),
    ),
    ...matrix(
      { method: 'POST', path: '/api/canvases', body: { title: 'x', color: 'red' }, note: 'unknown field', unchanged: nothing },
      signedIn(INVALID),
    ),
    ...matrix(
      { method: 'GET', path: '/api/canvases' },
      signedIn((who) => ({
        status: 200,
        check: (b, _res, w) => {
          const ids = b.canvases.map((c: { id: string }) => c.id);
          // The list holds what the caller owns or is on the list of; an admin is on neither.
          expect(ids.includes(w.canvas.id)).toBe(['viewer', 'editor', 'owner'].includes(who));
          expect(ids.includes(w.other.id)).toBe(who === 'stranger');
        },
      })),
    ),
    ...matrix({ method: 'GET', path: '/api/canvases/{id}' }, withRole(manage(view((b, w) => expect(b.id).toBe(w.canvas.id))))),
    ...matrix({ method: 'GET', path: '/api/canvases/nosuchcanvas', note: 'unknown id' }, signedIn(HIDDEN)),
    ...matrix(
      { method: 'PATCH', path: '/api/canvases/{id}', body: { title: 'Renamed' }, unchanged: nothing },
      withRole(manage(view((b) => expect(b.title).toBe('Renamed')))),
    ),
    ...matrix(
      { method: 'PATCH', path: '/api/canvases/{id}', body: { title: 'Renamed', nope: 1 }, note: 'unknown field', unchanged: nothing },
      manage(INVALID),
    ),
    ...matrix(
      {
        method: 'PATCH',
        path: '/api/canvases/{id}',
        raw: '{not json',
        headers: { 'content-type': 'application/json' },
        note: 'bad JSON',
        unchanged: nothing,
      },
      manage(INVALID),
    ),
    ...matrix(
      { method: 'PATCH', path: '/api/canvases/{id}/capabilities', body: { backend: true, kv: true }, unchanged: nothing },
      manage(view((b) => expect(b.capabilities).toMatchObject({ backend: true, kv: true }))),
    ),
    ...matrix(
      { method: 'PATCH', path: '/api/canvases/{id}/capabilities', body: { kv: 'yes' }, note: 'bad body', unchanged: nothing },
      manage(INVALID),
    ),
    ...matrix(
      { method: 'PATCH', path: '/api/canvases/{id}/capabilities', body: { guestAi: true }, note: 'guest AI', unchanged: nothing },
      own({ status: 200 }),
    ),
    ...matrix(
      { method: 'POST', path: '/api/canvases/{id}/regenerate-key', unchanged: nothing },
      own(
        view(async (b, w) => {
          expect(b.apiKey).toMatch(/^easel_sk_[A-Za-z0-9]{40}$/);
          // The old key stopped working at once.
          const res = await w.app.request(`/v1/canvases/${w.canvas.id}`, { headers: { authorization: `Bearer ${w.canvas.apiKey}` } });
          expect(res.status).toBe(401);
        }),
      ),
    ),
    ...matrix(
      { method: 'POST', path: '/api/canvases/{id}/archive', unchanged: nothing },
      own(view((b) => expect(b.status).toBe('archived'))),
    ),
    ...matrix(
      {
        method: 'POST',
        path: '/api/canvases/{id}/restore',
        setup: (w) => w.expectOk('POST', `/api/canvases/${w.canvas.id}/archive`, 'owner'),
        unchanged: nothing,
      },
      own(view((b) => expect(b.status).toBe('active'))),
    ),
    ...matrix(
      { method: 'DELETE', path: '/api/canvases/{id}', unchanged: nothing },
      own({
        status: 200,
        check: async (b, _res, w) => {
          expect(b).toEqual({ ok: true });
          expect((await w.request('owner', `/api/canvases/${w.canvas.id}`)).status).toBe(404);
        },
      }),
    ),
  ];
  scenario(w, rows);
});

describe('management API: members and guest invites', () => {
  const w = useWorld();
  scenario(w, [
    ...matrix(
      { method: 'GET', path: '/api/canvases/{id}/members' },
      manage(
        view((b, w) =>
          expect(b.members.map((m: { userId: string; role: string }) => [m.userId, m.role]).sort()).toEqual(
            [
              [w.ids.owner, 'owner'],
              [w.ids.editor, 'editor'],
              [w.ids.viewer, 'viewer'],
              [w.ids.viewer2, 'viewer'],
            ].sort(),
          ),
        ),
      ),
    ),
    ...matrix(
      {
        method: 'PUT',
        path: '/api/canvases/{id}/members',
        body: (w) => ({ email: w.emails.stranger, role: 'viewer' }),
        unchanged: nothing,
      },
      manage(view((b, w) => expect(b).toMatchObject({ userId: w.ids.stranger, role: 'viewer' }))),
    ),
    ...matrix(
      {
        method: 'PUT',
        path: '/api/canvases/{id}/members',
        body: (w) => ({ email: w.emails.stranger, role: 'owner' }),
        note: 'role owner',
        unchanged: nothing,
      },
      manage(INVALID),
    ),
    ...matrix(
      { method: 'DELETE', path: '/api/canvases/{id}/members/{viewer2Id}', unchanged: nothing },
      manage(
        view(async (b, w) => {
          expect(b).toEqual({ ok: true });
          expect((await w.request('viewer2', `/v1/c/${w.canvas.slug}/me`)).status).toBe(404);
        }),
      ),
    ),
    ...matrix(
      { method: 'POST', path: '/api/canvases/{id}/guest-invites', body: { name: 'Visitor' }, unchanged: nothing },
      manage({
        status: 201,
        check: (b) =>
          expect(b).toEqual({
            inviteId: expect.any(String),
            url: expect.stringContaining('/auth/guest?token='),
            expiresAt: expect.any(Number),
          }),
      }),
    ),
    ...matrix(
      { method: 'POST', path: '/api/canvases/{id}/guest-invites', body: { name: '' }, note: 'empty name', unchanged: nothing },
      manage(INVALID),
    ),
    ...matrix(
      { method: 'GET', path: '/api/canvases/{id}/guest-invites' },
      manage(view((b, w) => expect(b.invites.map((i: { inviteId: string }) => `guest:${i.inviteId}`)).toEqual([w.ids.guest]))),
    ),
    ...matrix(
      { method: 'DELETE', path: '/api/canvases/{id}/guest-invites/{inviteId}', unchanged: nothing },
      manage(
        view(async (b, w) => {
          expect(b).toEqual({ ok: true });
          // The guest's session ended with the invite.
          expect((await w.request('guest', `/v1/c/${w.canvas.slug}/me`)).status).toBe(401);
        }),
      ),
    ),
    ...matrix(
      { method: 'GET', path: '/api/canvases/{id}/ai-usage' },
      manage(view((b, w) => expect(b).toMatchObject({ canvasId: w.canvas.id, budget: expect.any(Object) }))),
    ),
  ]);
});

describe('management API: /api/me', () => {
  const w = useWorld();
  scenario(w, [
    ...matrix(
      { method: 'GET', path: '/api/me' },
      signedIn((who) => ({
        status: 200,
        check: (b, _res, w) =>
          expect(b).toMatchObject({ id: w.ids[who as 'owner'], isAdmin: who === 'admin', isGuest: false, authMode: 'dev' }),
      })),
    ),
  ]);
});

describe('admin API', () => {
  const w = useWorld();
  let n = 0;
  /** A connection profile made by the admin before the request; its name is {profile}. */
  const profile = async (w: World) => {
    w.vars.profile = `crm${++n}`;
    await w.expectOk(
      'POST',
      '/api/admin/connections',
      'admin',
      { name: w.vars.profile, origin: 'https://crm.example.com', methods: ['GET', 'POST'] },
      201,
    );
  };
  const granted = async (w: World) => {
    await profile(w);
    await w.expectOk('PUT', `/api/admin/canvases/${w.canvas.id}/connections/${w.vars.profile}`, 'admin');
  };
  scenario(w, [
    ...matrix(
      { method: 'GET', path: '/api/admin/users' },
      adminOnly(view((b, w) => expect(b.users.map((u: { id: string }) => u.id)).toContain(w.ids.viewer))),
    ),
    ...matrix({ method: 'GET', path: '/api/admin/users/{viewerId}' }, adminOnly(view((b, w) => expect(b.id).toBe(w.ids.viewer)))),
    ...matrix(
      { method: 'PATCH', path: '/api/admin/users/{viewer2Id}', body: { canPublishPublic: false }, unchanged: nothing },
      adminOnly(view((b) => expect(b.canPublishPublic).toBe(false))),
    ),
    ...matrix(
      { method: 'PATCH', path: '/api/admin/users/{viewer2Id}', body: { isAdmin: true }, note: 'unknown field', unchanged: nothing },
      adminOnly(INVALID),
    ),
    ...matrix(
      { method: 'POST', path: '/api/admin/canvases/{id}/disable', body: { reason: 'abuse' }, unchanged: nothing },
      adminOnly(view((b) => expect(b.status).toBe('disabled'))),
    ),
    ...matrix(
      {
        method: 'POST',
        path: '/api/admin/canvases/{id}/enable',
        setup: (w) => w.expectOk('POST', `/api/admin/canvases/${w.canvas.id}/disable`, 'admin', {}),
        unchanged: nothing,
      },
      adminOnly(view((b) => expect(b.status).toBe('active'))),
    ),
    ...matrix({ method: 'GET', path: '/api/admin/settings' }, adminOnly(view((b) => expect(b).toHaveProperty('publicLinks')))),
    ...matrix(
      { method: 'PATCH', path: '/api/admin/settings', body: { aiUserDailyUsd: 5 }, unchanged: nothing },
      adminOnly(view((b) => expect(b.aiUserDailyUsd).toBe(5))),
    ),
    ...matrix(
      { method: 'PATCH', path: '/api/admin/settings', body: { aiUserDailyUsd: -1 }, note: 'negative cap', unchanged: nothing },
      adminOnly(INVALID),
    ),
    ...matrix({ method: 'GET', path: '/api/admin/ai-usage' }, adminOnly(view((b) => expect(b).toHaveProperty('caps')))),
    ...matrix(
      { method: 'GET', path: '/api/admin/connections', setup: profile },
      adminOnly(view((b, w) => expect(b.connections.map((p: { name: string }) => p.name)).toContain(w.vars.profile))),
    ),
    ...matrix(
      {
        method: 'POST',
        path: '/api/admin/connections',
        body: () => ({ name: `new${++n}`, origin: 'https://api.example.com', methods: ['GET'] }),
        unchanged: nothing,
      },
      adminOnly({ status: 201, check: (b) => expect(b).toMatchObject({ origin: 'https://api.example.com', methods: ['GET'] }) }),
    ),
    ...matrix(
      { method: 'GET', path: '/api/admin/connections/{profile}', setup: profile },
      adminOnly(view((b, w) => expect(b.name).toBe(w.vars.profile))),
    ),
    ...matrix(
      { method: 'PATCH', path: '/api/admin/connections/{profile}', body: { enabled: false }, setup: profile, unchanged: nothing },
      adminOnly(view((b) => expect(b.enabled).toBe(false))),
    ),
    ...matrix(
      { method: 'DELETE', path: '/api/admin/connections/{profile}', setup: profile, unchanged: nothing },
      adminOnly(view((b) => expect(b).toEqual({ ok: true }))),
    ),
    ...matrix(
      { method: 'GET', path: '/api/admin/canvases/{id}/connections', setup: granted },
      adminOnly(view((b, w) => expect(JSON.stringify(b.connections)).toContain(w.vars.profile!))),
    ),
    ...matrix(
      { method: 'PUT', path: '/api/admin/canvases/{id}/connections/{profile}', setup: profile, unchanged: nothing },
      adminOnly({ status: 200 }),
    ),
    ...matrix(
      { method: 'DELETE', path: '/api/admin/canvases/{id}/connections/{profile}', setup: granted, unchanged: nothing },
      adminOnly(view((b) => expect(b).toEqual({ ok: true }))),
    ),
  ]);
});

describe('Deploy API keys', () => {
  // A key opens its own canvas only; cookies and guest sessions are not keys.
  const w = useWorld();
  const KEYLESS: Expected = { status: 401, error: 'unauthorized' };
  const all = (o: Expected): Record<Who, Expected> => ({
    anonymous: o,
    stranger: o,
    viewer: o,
    editor: o,
    owner: o,
    admin: o,
    guest: o,
    otherKey: { status: 403, error: 'unauthorized' },
  });
  scenario(w, [
    ...matrix({ method: 'GET', path: '/v1/canvases/{id}' }, all(KEYLESS)),
    ...matrix({ method: 'POST', path: '/v1/canvases/{id}/unpublish', setup: (w) => w.deploy(), unchanged: nothing }, all(KEYLESS)),
    ...matrix(
      { method: 'POST', path: '/v1/canvases/{id}/rollback', body: { version: 1 }, setup: (w) => w.deploy(), unchanged: nothing },
      all(KEYLESS),
    ),
    {
      who: 'anonymous',
      method: 'GET',
      path: '/v1/canvases/{id}',
      note: "the canvas's own key",
      headers: (w) => ({ authorization: `Bearer ${w.canvas.apiKey}` }),
      status: 200,
      check: (b, _res, w) => expect(b).toMatchObject({ id: w.canvas.id, status: 'active', publicationState: 'draft' }),
    },
  ]);
});
