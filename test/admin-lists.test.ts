// passes: embedded, cluster
// The admin lists the dashboard's admin page reads: every canvas (searched)
// and the audit log (filtered, paged); anyone but an admin gets 404.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { body, startTestApp, type TestApp } from './harness.ts';
import { expectCode } from './expect-code.ts';
import { ADMIN_EMAIL } from './world.ts';

let app: TestApp;
let admin: string;
let alice: string;
const made: Record<string, { id: string; slug: string }> = {};
beforeAll(async () => {
  app = await startTestApp({ env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_RATELIMIT_ENABLED: 'false' } });
  admin = await app.signIn(ADMIN_EMAIL);
  alice = await app.signIn('alice@corp.example');
  const bob = await app.signIn('bob@other.example');
  for (const [who, cookie, title] of [
    ['sales', alice, 'Sales board'],
    ['percent', alice, '100% done'],
    ['bob', bob, 'Roadmap'],
  ] as const) {
    made[who] = await body(await app.request('/api/canvases', { method: 'POST', cookie, json: { title } }));
  }
});
afterAll(() => app.close());

const get = (path: string, cookie = admin) => app.request(path, { cookie });

describe('GET /api/admin/canvases', () => {
  test('lists every canvas with its owner, searched by title, slug or owner email', async () => {
    const all = await body(await get('/api/admin/canvases'));
    expect(all.canvases.map((c: { id: string }) => c.id).sort()).toEqual(
      Object.values(made)
        .map((c) => c.id)
        .sort(),
    );
    expect(all.canvases.find((c: { id: string }) => c.id === made.bob!.id)).toMatchObject({
      ownerEmail: 'bob@other.example',
      role: 'admin',
      status: 'active',
    });
    const ids = async (q: string) =>
      (await body(await get(`/api/admin/canvases?q=${encodeURIComponent(q)}`))).canvases.map((c: { id: string }) => c.id);
    expect(await ids('SALES')).toEqual([made.sales!.id]);
    expect(await ids('other.example')).toEqual([made.bob!.id]);
    expect(await ids(made.bob!.slug)).toEqual([made.bob!.id]);
    // LIKE's wildcards are literal here.
    expect(await ids('%')).toEqual([made.percent!.id]);
    expect(await ids('_')).toEqual([]);
    expect((await body(await get('/api/admin/canvases?limit=1'))).canvases).toHaveLength(1);
  });

  test('is 404 to anyone but an admin', async () => {
    await expectCode(await get('/api/admin/canvases', alice), 404, 'NOT_FOUND');
    await expectCode(await get('/api/admin/audit', alice), 404, 'NOT_FOUND');
  });
});

describe('GET /api/admin/audit', () => {
  test('newest first, filtered by action prefix, canvas and person, paged with before', async () => {
    const all = await body(await get('/api/admin/audit?limit=200'));
    expect(all.entries.length).toBeGreaterThanOrEqual(3);
    const ids = all.entries.map((e: { id: number }) => e.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => b - a));
    const created = await body(await get('/api/admin/audit?action=canvas.create'));
    expect(created.entries.length).toBe(3);
    expect(created.entries.every((e: { action: string }) => e.action.startsWith('canvas.create'))).toBe(true);
    const one = await body(await get(`/api/admin/audit?canvasId=${made.sales!.id}`));
    expect(one.entries.every((e: { canvasId: string }) => e.canvasId === made.sales!.id)).toBe(true);
    const page1 = await body(await get('/api/admin/audit?action=canvas.create&limit=2'));
    const page2 = await body(await get(`/api/admin/audit?action=canvas.create&limit=2&before=${page1.nextBefore}`));
    expect([...page1.entries, ...page2.entries].map((e: { id: number }) => e.id)).toEqual(created.entries.map((e: { id: number }) => e.id));
  });
  test('each entry names the person and the canvas as they are called now; a deleted canvas and a key have none', async () => {
    const renamed = await app.request(`/api/canvases/${made.bob!.id}`, {
      method: 'PATCH',
      cookie: await app.signIn('bob@other.example', 'Bob Builder'),
      json: { title: 'Roadmap 2027' },
    });
    expect(renamed.status).toBe(200);
    const entries = (await body(await get(`/api/admin/audit?canvasId=${made.bob!.id}`))).entries;
    expect(entries.find((e: { action: string }) => e.action === 'canvas.create')).toMatchObject({
      actor: { name: 'Bob Builder', email: 'bob@other.example' },
      canvas: { title: 'Roadmap 2027', slug: made.bob!.slug },
    });
    // A deleted canvas keeps its name in the log; a row purged for good, or a deploy key, leaves null.
    await app.ctx.audit.record({ actorId: null, actorKind: 'key', canvasId: 'c0000000000000000000', action: 'canvas.deploy' });
    const purged = (await body(await get('/api/admin/audit?canvasId=c0000000000000000000'))).entries;
    expect(purged).toHaveLength(1);
    expect(purged[0]).toMatchObject({ actor: null, canvas: null, actorKind: 'key' });
  });
});

describe('searching the canvases past ASCII', () => {
  // Last in the file: the audit counts above know the canvases made before them.
  test('"équipe δelta" finds "Équipe ΔELTA" on both engines (SQLite\'s own lower() left "É" and "Δ" as they were)', async () => {
    const equipe = await body(await app.request('/api/canvases', { method: 'POST', cookie: alice, json: { title: 'Équipe ΔELTA' } }));
    const ids = async (q: string) =>
      (await body(await get(`/api/admin/canvases?q=${encodeURIComponent(q)}`))).canvases.map((c: { id: string }) => c.id);
    expect(await ids('équipe δelta')).toEqual([equipe.id]);
    expect(await ids('ÉQUIPE')).toEqual([equipe.id]);
  });
});
