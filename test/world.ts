// The one test world (ARCHITECTURE "Tests"): the real app on a fresh data
// directory and the full cast, all set up through the API, the way users do
// it — dev sign-in, the management API, guest invites and the Deploy API.
//
// The cast, as the spec's role tables name them:
//   anonymous   no session at all
//   stranger    signed in, no access to the canvas (owns `other`, a canvas of their own)
//   viewer      on the canvas's list as viewer (so is `viewer2`, for two-viewer tests)
//   editor      on the list as editor
//   owner       created the canvas
//   admin       an instance admin (EASEL_ADMIN_EMAILS) who is not on the list
//   guest       a legacy guest session (CONTRACT §3) opened from an invite to this canvas
//   otherKey    the deploy key of another canvas (`other`) as a Bearer token
//
// Reset per test: `useWorld()` gives every test its own canvas (fresh list,
// fresh guest, fresh key), or with `reset: 'app'` its own app, so nothing a
// test changes has to be put back by hand.
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'bun:test';
import { zipSync, type Zippable } from 'fflate';
import { body, startTestApp, type TestApp, type TestAppOptions } from './harness.ts';

export const ADMIN_EMAIL = 'admin@example.com';

/** Everyone a role matrix asks, in the order rows are written. */
export const CAST = ['anonymous', 'stranger', 'viewer', 'editor', 'owner', 'admin', 'guest', 'otherKey'] as const;
export type Who = (typeof CAST)[number];
/** Cast members with a user (or guest) id; `viewer2` is a second viewer. */
export type Person = Exclude<Who, 'anonymous' | 'otherKey'> | 'viewer2';
type Member = Exclude<Person, 'guest'>;

const MEMBERS: readonly Member[] = ['owner', 'editor', 'viewer', 'viewer2', 'stranger', 'admin'];

export interface WorldCanvas {
  id: string;
  slug: string;
  /** The deploy key, shown once at creation. */
  apiKey: string;
  /** The creation answer without the key (the management view). */
  view: Record<string, any>;
  /** A guest session opened from an invite to this canvas ('' when made with `guest: false`). */
  guestCookie: string;
  /** `guest:<inviteId>` */
  guestId: string;
}

export interface CanvasOptions {
  title?: string;
  slug?: string;
  /** The owner (default `owner`). */
  owner?: Member;
  /** Put editor, viewer and viewer2 on the list (default true). */
  members?: boolean;
  /** Open a guest invite (default true). */
  guest?: boolean;
  /** PATCH /capabilities as the owner after creation. */
  capabilities?: Record<string, unknown>;
  /** PATCH /api/canvases/{id} as the owner after creation (accessMode, password, expiresAt…). */
  settings?: Record<string, unknown>;
  /** Deploy these files with the canvas key (the Deploy API), so the canvas is published. */
  files?: Record<string, string | Uint8Array>;
}

export interface WorldOptions extends TestAppOptions {
  /** What each test gets fresh: its own canvas (default), its own app, or nothing. */
  reset?: 'canvas' | 'app' | 'none';
  /** How each test's canvas is made. */
  canvas?: CanvasOptions;
}

export type RequestInitPlus = RequestInit & { json?: unknown };

let counter = 0;

export class World {
  app!: TestApp;
  /** Cookie header per cast member ('' for anonymous and otherKey; the guest's is the current canvas's). */
  readonly cookie = {} as Record<Who | 'viewer2', string>;
  /** User ids (the guest's is `guest:<inviteId>` of the current canvas). */
  readonly ids = {} as Record<Person, string>;
  readonly emails = {} as Record<Member, string>;
  readonly names = {} as Record<Person, string>;
  /** This test's canvas (owned by `owner`, with editor, viewer and viewer2 on its list). */
  canvas!: WorldCanvas;
  /** Names a test's setup gives to things it made (scenario paths use them as {name}); emptied per test. */
  vars: Record<string, string> = {};
  /** Another canvas, owned by the stranger: its key is `otherKey`, its guest a guest of another canvas. */
  other!: WorldCanvas;

  constructor(readonly options: WorldOptions = {}) {}

  /** Starts the app and signs the cast in; makes `other` and a first `canvas`. */
  async start(): Promise<this> {
    const { reset: _r, canvas: _c, ...appOptions } = this.options;
    return this.attach(
      await startTestApp({
        ...appOptions,
        env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_RATELIMIT_ENABLED: 'false', ...appOptions.env },
      }),
    );
  }

  /**
   * Signs the cast in on an app the caller started (it must list ADMIN_EMAIL
   * in EASEL_ADMIN_EMAILS for the admin to be one); makes `other` and a first
   * `canvas`. Emails are unique per world, so several worlds can share an app.
   */
  async attach(app: TestApp): Promise<this> {
    await this.signInCast(app);
    this.other = await this.newCanvas({ owner: 'stranger', members: false, title: 'Other canvas' });
    await this.fresh();
    return this;
  }

  /** Only signs the cast in (no canvases yet): for suites that make every canvas themselves. */
  async signInCast(app: TestApp): Promise<this> {
    this.app = app;
    const tag = `${++counter}`;
    for (const who of MEMBERS) {
      const email = who === 'admin' ? ADMIN_EMAIL : `${who}-${tag}@example.com`;
      const name = who === 'admin' ? 'Admin' : who;
      const res = await this.app.request('/auth/dev/login', { method: 'POST', json: { email, name } });
      expect(res.status).toBe(200);
      this.cookie[who] = res.headers.get('set-cookie')!.split(';')[0]!;
      this.ids[who] = (await body(res)).id;
      this.emails[who] = email;
      this.names[who] = name;
    }
    this.cookie.anonymous = '';
    this.cookie.otherKey = '';
    return this;
  }

  /** A new canvas for this test (as `options.canvas` says); the guest follows it. */
  async fresh(options: CanvasOptions = this.options.canvas ?? {}): Promise<WorldCanvas> {
    return this.use(await this.newCanvas(options));
  }

  /** Makes `c` the world's canvas (its guest becomes the cast's guest). */
  use(c: WorldCanvas): WorldCanvas {
    this.canvas = c;
    this.vars = {};
    this.cookie.guest = c.guestCookie;
    this.ids.guest = c.guestId;
    this.names.guest = 'Guest';
    return c;
  }

  /** Creates a canvas through the management API, fills its list, opens a guest invite. */
  async newCanvas(o: CanvasOptions = {}): Promise<WorldCanvas> {
    const owner = o.owner ?? 'owner';
    const created = await this.expectOk(
      'POST',
      '/api/canvases',
      owner,
      { title: o.title ?? `Canvas ${++counter}`, ...(o.slug ? { slug: o.slug } : {}) },
      201,
    );
    const { apiKey, ...view } = created;
    const c: WorldCanvas = { id: created.id, slug: created.slug, apiKey, view, guestCookie: '', guestId: '' };
    if (o.members ?? true) {
      for (const [who, role] of [
        ['editor', 'editor'],
        ['viewer', 'viewer'],
        ['viewer2', 'viewer'],
      ] as const) {
        await this.expectOk('PUT', `/api/canvases/${c.id}/members`, owner, { email: this.emails[who], role });
      }
    }
    if (o.guest ?? true) Object.assign(c, await this.openGuestInvite(c.id, owner));
    if (o.capabilities) await this.expectOk('PATCH', `/api/canvases/${c.id}/capabilities`, owner, o.capabilities);
    if (o.settings) await this.expectOk('PATCH', `/api/canvases/${c.id}`, owner, o.settings);
    if (o.files) await this.deploy(c, o.files);
    return c;
  }

  /** Creates an invite as `by` and opens its link: the guest's cookie and id. */
  async openGuestInvite(
    canvasId: string,
    by: Member = 'owner',
    name?: string,
  ): Promise<{ guestCookie: string; guestId: string; url: string }> {
    const { inviteId, url } = await this.expectOk('POST', `/api/canvases/${canvasId}/guest-invites`, by, name ? { name } : {}, 201);
    const u = new URL(url);
    const open = await this.app.request(u.pathname + u.search);
    expect(open.status).toBe(303);
    return { guestCookie: open.headers.get('set-cookie')!.split(';')[0]!, guestId: `guest:${inviteId}`, url };
  }

  /** Publishes `files` on `c` through the Deploy API (a ZIP with its key); the DeployResult. */
  deploy(c: WorldCanvas = this.canvas, files: Record<string, string | Uint8Array> = { 'index.html': '<h1>hi</h1>' }): Promise<any> {
    return deployFiles(this.app, c, files);
  }

  /** POST rollback through the Deploy API: `version` (its number) becomes live again. */
  async rollback(c: WorldCanvas, version: number): Promise<any> {
    return this.deployCall(c, 'rollback', { version });
  }

  /** POST unpublish through the Deploy API: the canvas has no live version. */
  async unpublish(c: WorldCanvas = this.canvas): Promise<any> {
    return this.deployCall(c, 'unpublish');
  }

  private async deployCall(c: WorldCanvas, action: string, json?: unknown): Promise<any> {
    const res = await this.app.request(`/v1/canvases/${c.id}/${action}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.apiKey}` },
      ...(json === undefined ? {} : { json }),
    });
    const b = await body(res);
    expect({ action, status: res.status, body: res.status === 200 ? 'ok' : b }).toEqual({ action, status: 200, body: 'ok' });
    return b;
  }

  /** DELETE the canvas as its owner. */
  delete(c: WorldCanvas = this.canvas): Promise<any> {
    return this.expectOk('DELETE', `/api/canvases/${c.id}`, 'owner');
  }

  /** PATCH the canvas's capabilities as its owner; the new view. */
  capabilities(patch: Record<string, unknown>, c: WorldCanvas = this.canvas): Promise<any> {
    return this.expectOk('PATCH', `/api/canvases/${c.id}/capabilities`, 'owner', patch);
  }

  /** PATCH the canvas's settings (title, slug, accessMode, password, expiresAt) as its owner; the new view. */
  settings(patch: Record<string, unknown>, c: WorldCanvas = this.canvas): Promise<any> {
    return this.expectOk('PATCH', `/api/canvases/${c.id}`, 'owner', patch);
  }

  /** POST archive (or restore) as the canvas's owner; the new view. */
  archive(c: WorldCanvas = this.canvas, archived = true): Promise<any> {
    return this.expectOk('POST', `/api/canvases/${c.id}/${archived ? 'archive' : 'restore'}`, 'owner');
  }

  /** POST /api/admin/canvases/{id}/disable (with `reason`), or with `false` enable, as the admin; the new view. */
  disable(c: WorldCanvas = this.canvas, disabled: boolean | { reason: string } = true): Promise<any> {
    const path = `/api/admin/canvases/${c.id}/${disabled ? 'disable' : 'enable'}`;
    return this.expectOk('POST', path, 'admin', typeof disabled === 'object' ? disabled : undefined);
  }

  /** PATCH /api/admin/users/{id} as the admin (active, canPublishPublic, orgId); the admin view of the user. */
  adminUser(who: Member, patch: Record<string, unknown>): Promise<any> {
    return this.expectOk('PATCH', `/api/admin/users/${this.ids[who]}`, 'admin', patch);
  }

  /** PATCH /api/admin/settings as the admin; the new settings. */
  adminSettings(patch: Record<string, unknown>): Promise<any> {
    return this.expectOk('PATCH', '/api/admin/settings', 'admin', patch);
  }

  /** The credentials a cast member sends: their cookie, or the other canvas's key as a Bearer token. */
  credentials(who: Who | 'viewer2'): Record<string, string> {
    if (who === 'otherKey') return { authorization: `Bearer ${this.other.apiKey}` };
    return this.cookie[who] ? { cookie: this.cookie[who] } : {};
  }

  /** A request as `who` (their credentials added to `init.headers`). */
  request(who: Who | 'viewer2', path: string, init: RequestInitPlus = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    for (const [k, v] of Object.entries(this.credentials(who))) if (!headers.has(k)) headers.set(k, v);
    return this.app.request(path, { ...init, headers });
  }

  /** `method path` as `who` with an optional JSON body; asserts `status` and returns the parsed body. */
  async expectOk(method: string, path: string, who: Who | 'viewer2', json?: unknown, status = 200): Promise<any> {
    const res = await this.request(who, path, { method, ...(json === undefined ? {} : { json }) });
    const b = await body(res);
    expect({ request: `${who} ${method} ${path}`, status: res.status, body: res.status === status ? 'ok' : b }).toEqual({
      request: `${who} ${method} ${path}`,
      status,
      body: 'ok',
    });
    return b;
  }

  /**
   * Everything the instance keeps that a request could change (read only):
   * `unchanged: (w) => w.stored()` proves a refusal wrote nothing. Sessions
   * and usage counters are left out: every request may touch them.
   */
  async stored(): Promise<Record<string, unknown[]>> {
    const out: Record<string, unknown[]> = {};
    for (const table of STORED_TABLES) {
      out[table] = (await this.app.ctx.sql.all(`SELECT * FROM ${table}`)).map((row) => JSON.stringify(row)).sort();
    }
    return out;
  }

  close(): Promise<void> {
    return this.app.close();
  }
}

const STORED_TABLES = [
  'users',
  'canvases',
  'canvas_members',
  'settings',
  'audit_log',
  'versions',
  'kv',
  'files',
  'guest_invites',
  'ai_calls',
  'connection_profiles',
  'connection_protected_headers',
  'connection_grants',
  'collection_records',
  'submissions',
  'drafts',
  'draft_files',
] as const;

/** Publishes `files` on canvas `c` through the Deploy API (a ZIP sent with its key); the DeployResult. */
export async function deployFiles(
  app: TestApp,
  c: { id: string; apiKey: string },
  files: Record<string, string | Uint8Array>,
): Promise<any> {
  const input: Zippable = {};
  for (const [path, content] of Object.entries(files))
    input[path] = typeof content === 'string' ? new TextEncoder().encode(content) : content;
  const res = await app.request(`/v1/canvases/${c.id}/deploy`, {
    method: 'PUT',
    body: zipSync(input) as Uint8Array<ArrayBuffer>,
    headers: { authorization: `Bearer ${c.apiKey}` },
  });
  const b = await body(res);
  expect({ status: res.status, body: b }).toEqual({ status: 200, body: expect.objectContaining({ outcome: 'published' }) });
  return b;
}

/** A started world (for tests that manage their own lifecycle). Close it with `w.close()`. */
export function makeWorld(options: WorldOptions = {}): Promise<World> {
  return new World(options).start();
}

/**
 * One world for a describe block: started before its tests, closed after
 * them, and reset before each test as `options.reset` says (default: a
 * fresh canvas). The returned object is the world itself, filled in once
 * `beforeAll` ran.
 */
export function useWorld(options: WorldOptions = {}): World {
  const w = new World(options);
  const reset = options.reset ?? 'canvas';
  let first = true;
  beforeAll(async () => {
    if (reset !== 'app') await w.start();
  });
  beforeEach(async () => {
    if (reset === 'app') await w.start();
    // start() already made the first test's canvas.
    else if (reset === 'canvas' && !first) await w.fresh();
    first = false;
  });
  if (reset === 'app') afterEach(() => w.close());
  else afterAll(() => w.close());
  return w;
}
