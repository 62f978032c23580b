// People and canvases for runtime API tests: an owner, an editor, two
// viewers, a stranger, an instance admin who is not a member, and a legacy
// guest, around one canvas (restricted unless told otherwise).
import { expect } from 'bun:test';
import type { Canvas } from '../src/canvases/record.ts';
import { body, type TestApp } from './harness.ts';
import { World as TestWorld, type Who as CastMember } from './world.ts';

export { ADMIN_EMAIL } from './world.ts';

/** The cast of world.ts without the deploy key (these suites send cookies only). */
export type Who = Exclude<CastMember, 'otherKey'>;

export interface World {
  canvas: Canvas;
  slug: string;
  /** Cookie header per person ('' for anonymous). */
  cookie: Record<Who, string> & { viewer2: string };
  ids: Record<Exclude<Who, 'anonymous'> | 'viewer2', string>;
  /** The World behind it, for canvases made through the API (world.newCanvas). */
  world: TestWorld;
}

let counter = 0;

export interface ApiCanvasOptions {
  /** PATCH /api/canvases/{id} (accessMode, password, expiresAt…). */
  settings?: Record<string, unknown>;
  /** PATCH /api/canvases/{id}/capabilities. */
  capabilities?: Record<string, unknown>;
  /** People put on the list: [user id, role]. */
  members?: Array<[string, 'viewer' | 'editor']>;
}

/** A canvas made through the management API by the person whose cookie this is; its record (a read of the store). */
export async function apiCanvas(app: TestApp, ownerCookie: string, o: ApiCanvasOptions = {}): Promise<Canvas> {
  const call = async (method: string, path: string, json: unknown, status = 200) => {
    const res = await app.request(path, { method, cookie: ownerCookie, json });
    const answer = await body(res);
    expect({ method, path, status: res.status }).toEqual({ method, path, status });
    return answer;
  };
  const created = await call('POST', '/api/canvases', { title: `Canvas ${++counter}` }, 201);
  for (const [userId, role] of o.members ?? []) {
    await call('PUT', `/api/canvases/${created.id}/members`, { email: (await app.ctx.users.byId(userId))!.email, role });
  }
  if (o.capabilities) await call('PATCH', `/api/canvases/${created.id}/capabilities`, o.capabilities);
  if (o.settings) await call('PATCH', `/api/canvases/${created.id}`, o.settings);
  return (await app.ctx.canvases.byId(created.id))!;
}

export async function refresh(app: TestApp, canvas: Canvas): Promise<Canvas> {
  return (await app.ctx.canvases.byId(canvas.id))!;
}

/**
 * The world.ts cast on an existing app (everything through the API: dev
 * sign-in, the management API, a real guest invite), in the shape these
 * suites use: the canvas record, its slug, cookies and ids.
 */
export async function makeWorld(app: TestApp): Promise<World> {
  const w = await new TestWorld().attach(app);
  return { canvas: (await app.ctx.canvases.byId(w.canvas.id))!, slug: w.canvas.slug, cookie: w.cookie, ids: w.ids, world: w };
}

/** Creates an invite as `managerCookie` and opens it; returns the guest's cookie. */
export async function guestCookie(
  app: TestApp,
  canvasId: string,
  managerCookie: string,
  name?: string,
): Promise<{ cookie: string; inviteId: string; url: string }> {
  const res = await app.request(`/api/canvases/${canvasId}/guest-invites`, {
    method: 'POST',
    cookie: managerCookie,
    json: name ? { name } : {},
  });
  if (res.status !== 201) throw new Error(`invite failed: ${res.status} ${await res.text()}`);
  const { inviteId, url } = await body(res);
  const open = await app.request(pathOf(url));
  const setCookie = open.headers.get('set-cookie');
  if (open.status !== 303 || !setCookie) throw new Error(`opening the invite failed: ${open.status}`);
  return { cookie: setCookie.split(';')[0]!, inviteId, url };
}

/** The path and query of an absolute URL (requests in tests go to the harness base). */
export function pathOf(url: string): string {
  const u = new URL(url);
  return u.pathname + u.search;
}
