// Canvases and role-matrix outcomes for the management API tests. The people
// are the World's cast (test/world.ts), signed in without canvases; canvases
// are made through the real API, so the tests see what a user sees.
import { expect } from 'bun:test';
import { body, type TestApp } from './harness.ts';
import { World, type Who as WorldWho } from './world.ts';

export { ADMIN_EMAIL } from './world.ts';
/** The World's cast as the management API sees it (no guest, no canvas key). */
export const ROLES = ['anonymous', 'stranger', 'viewer', 'editor', 'owner', 'admin'] as const satisfies readonly WorldWho[];
export type Who = (typeof ROLES)[number];

export interface People {
  cookie: Record<Who, string>;
  id: Record<Exclude<Who, 'anonymous'>, string>;
}

let counter = 0;

/** The World's cast signed in, without canvases (emails unique per call). */
export async function people(app: TestApp): Promise<People> {
  const w = await new World().signInCast(app);
  const cookie = { anonymous: '' } as Record<Who, string>;
  const id = {} as People['id'];
  for (const who of ['stranger', 'viewer', 'editor', 'owner', 'admin'] as const) {
    cookie[who] = w.cookie[who];
    id[who] = w.ids[who];
  }
  return { cookie, id };
}

export interface Made {
  id: string;
  slug: string;
  apiKey: string;
  view: Record<string, any>;
}

/** A canvas owned by `p.owner` with `p.editor` and `p.viewer` on its list. */
export async function makeCanvas(app: TestApp, p: People, title = `Canvas ${++counter}`): Promise<Made> {
  const res = await app.request('/api/canvases', { method: 'POST', cookie: p.cookie.owner, json: { title } });
  expect(res.status).toBe(201);
  const created = await body(res);
  for (const [who, role] of [
    ['editor', 'editor'],
    ['viewer', 'viewer'],
  ] as const) {
    const email = (await app.ctx.users.byId(p.id[who]))!.email;
    const put = await app.request(`/api/canvases/${created.id}/members`, { method: 'PUT', cookie: p.cookie.owner, json: { email, role } });
    expect(put.status).toBe(200);
  }
  const { apiKey, ...view } = created;
  return { id: created.id, slug: created.slug, apiKey, view };
}

/** Everything stored about a canvas: its row, its list and its audit trail (to prove a refusal changed nothing). */
export async function snapshot(app: TestApp, canvasId: string): Promise<string> {
  const { sql } = app.ctx;
  return JSON.stringify({
    row: await sql.get('SELECT * FROM canvases WHERE id = ?1', canvasId),
    members: await sql.all('SELECT * FROM canvas_members WHERE canvas_id = ?1 ORDER BY user_id', canvasId),
    audit: await sql.all('SELECT * FROM audit_log WHERE canvas_id = ?1 ORDER BY id', canvasId),
  });
}

/** The expected outcome of one row of a role matrix. */
export type Outcome = { status: number; code?: string; error?: string };

export const ANON: Outcome = { status: 401, error: 'unauthorized' };
export const HIDDEN: Outcome = { status: 404, code: 'NOT_FOUND' };
export const DENIED: Outcome = { status: 403, code: 'PERMISSION_DENIED' };

/** Owner, editor and admin may; viewers and strangers see nothing. */
export const MANAGE_MATRIX: Record<Who, Outcome> = {
  anonymous: ANON,
  stranger: HIDDEN,
  viewer: HIDDEN,
  editor: { status: 200 },
  owner: { status: 200 },
  admin: { status: 200 },
};

/** Owner and admin only; an editor is told no, viewers and strangers see nothing. */
export const OWNER_MATRIX: Record<Who, Outcome> = { ...MANAGE_MATRIX, editor: DENIED };

/** Asserts status and, for refusals, the exact error body code. Returns the parsed body. */
export async function expectOutcome(res: Response, outcome: Outcome, label: string): Promise<any> {
  const parsed = await body(res);
  expect({ label, status: res.status }).toEqual({ label, status: outcome.status });
  if (outcome.error) expect(parsed).toEqual({ error: outcome.error });
  if (outcome.code) expect({ label, code: parsed.code }).toEqual({ label, code: outcome.code });
  return parsed;
}
