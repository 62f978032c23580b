// Canvases with live versions for page-serving tests, built directly on the
// stores (the Deploy API is tested on its own): people, a canvas, blobs, a
// ready version and its files, the live pointer, and access settings.
import type { Canvas } from '../src/canvases/record.ts';
import { GUEST_COOKIE } from '../src/auth/guests.ts';
import { newId, newToken, sha256Hex } from '../src/ids.ts';
import type { TestApp } from './harness.ts';

export const ADMIN_EMAIL = 'serve-admin@example.com';

/** Enough of a content-type table for the fixtures (the deploy path computes the real one). */
const MIME: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  htm: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  json: 'application/json; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  wasm: 'application/wasm',
  txt: 'text/plain; charset=utf-8',
  php: 'text/plain; charset=utf-8',
};

export function mimeOf(path: string): string {
  const ext = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase() ?? '';
  return MIME[ext] ?? 'text/plain; charset=utf-8';
}

export type Files = Record<string, string | Uint8Array | { bytes: string | Uint8Array; mime: string }>;

let counter = 0;

export function makeCanvas(app: TestApp, ownerId: string, slug = `s${++counter}-${newId().slice(0, 6)}`): Canvas {
  return app.ctx.canvases.insert({
    id: newId(),
    slug,
    title: slug,
    ownerId,
    keyHash: sha256Hex(newToken()),
    publicationToken: newToken(),
    now: app.ctx.now(),
  });
}

/** Stores the files, records a ready version with them, makes it live, and announces it. */
export async function publish(app: TestApp, canvas: Canvas, files: Files): Promise<string> {
  const { ctx } = app;
  const now = ctx.now();
  const versionId = newId();
  const rows: Array<{ path: string; hash: string; size: number; mime: string }> = [];
  for (const [path, value] of Object.entries(files)) {
    const spec = typeof value === 'string' || value instanceof Uint8Array ? { bytes: value, mime: mimeOf(path) } : value;
    const bytes = typeof spec.bytes === 'string' ? new TextEncoder().encode(spec.bytes) : spec.bytes;
    const stored = await ctx.blobs.putBytes(bytes);
    rows.push({ path, hash: stored.hash, size: stored.size, mime: spec.mime });
  }
  const number =
    (ctx.db.query<{ n: number | null }, [string]>('SELECT MAX(number) AS n FROM versions WHERE canvas_id = ?').get(canvas.id)?.n ?? 0) + 1;
  const total = rows.reduce((s, r) => s + r.size, 0);
  ctx.db.transaction(() => {
    ctx.db
      .query(
        `INSERT INTO versions (id, canvas_id, number, source, status, created_by, created_at, file_count, total_bytes) VALUES (?, ?, ?, 'api', 'ready', ?, ?, ?, ?)`,
      )
      .run(versionId, canvas.id, number, canvas.ownerId, now, rows.length, total);
    const insert = ctx.db.query('INSERT INTO version_files (version_id, path, hash, size, mime) VALUES (?, ?, ?, ?, ?)');
    for (const r of rows) insert.run(versionId, r.path, r.hash, r.size, r.mime);
  })();
  ctx.canvases.update(canvas.id, { current_version_id: versionId }, now);
  ctx.events.emit('canvas.published', { canvasId: canvas.id, versionId });
  return versionId;
}

export function unpublish(app: TestApp, canvas: Canvas): void {
  app.ctx.canvases.update(canvas.id, { current_version_id: null, access_mode: 'restricted', expires_at: null }, app.ctx.now());
  app.ctx.events.emit('canvas.unpublished', { canvasId: canvas.id });
}

/** Direct column updates, then the event the management API would emit. */
export function setAccess(app: TestApp, canvas: Canvas, columns: Record<string, string | number | null>): Canvas {
  app.ctx.canvases.update(canvas.id, columns, app.ctx.now());
  app.ctx.events.emit('canvas.access-changed', { canvasId: canvas.id });
  return app.ctx.canvases.byId(canvas.id)!;
}

/** Sets (or with null, removes) the password; every change bumps the version, which voids every pass. */
export async function setPassword(app: TestApp, canvas: Canvas, password: string | null): Promise<Canvas> {
  const current = app.ctx.canvases.byId(canvas.id)!;
  const hash = password === null ? null : await Bun.password.hash(password, { algorithm: 'argon2id' });
  return setAccess(app, canvas, { password_hash: hash, password_version: current.passwordVersion + 1 });
}

export type Person = 'anonymous' | 'stranger' | 'viewer' | 'editor' | 'owner' | 'admin';
export const PEOPLE: Person[] = ['anonymous', 'stranger', 'viewer', 'editor', 'owner', 'admin'];

export interface Cast {
  cookie: Record<Person, string>;
  ids: Record<Exclude<Person, 'anonymous'>, string>;
}

/** Signs in an owner, an editor, a viewer, a stranger and an instance admin (never a member). */
export async function makeCast(app: TestApp): Promise<Cast> {
  const tag = `${++counter}${newId().slice(0, 4)}`;
  const cookie = { anonymous: '' } as Cast['cookie'];
  const ids = {} as Cast['ids'];
  for (const who of ['owner', 'editor', 'viewer', 'stranger'] as const) {
    const email = `${who}-${tag}@example.com`;
    cookie[who] = await app.signIn(email, who);
    ids[who] = app.ctx.users.byEmail(email)!.id;
  }
  cookie.admin = await app.signIn(ADMIN_EMAIL, 'Admin');
  ids.admin = app.ctx.users.byEmail(ADMIN_EMAIL)!.id;
  return { cookie, ids };
}

/** A canvas owned by the cast's owner, with its editor and viewer on the list, published with `files`. */
export async function makePublished(app: TestApp, cast: Cast, files: Files = { 'index.html': '<h1>hello</h1>' }): Promise<Canvas> {
  const canvas = makeCanvas(app, cast.ids.owner);
  const now = app.ctx.now();
  app.ctx.canvases.setMember(canvas.id, cast.ids.editor, 'editor', now);
  app.ctx.canvases.setMember(canvas.id, cast.ids.viewer, 'viewer', now);
  await publish(app, canvas, files);
  return app.ctx.canvases.byId(canvas.id)!;
}

/** A legacy guest session scoped to `canvas`, as a Cookie header value. */
export function guestCookieFor(app: TestApp, canvas: Canvas, createdBy: string): string {
  const { invite } = app.ctx.guests.createInvite(canvas.id, createdBy);
  return `${GUEST_COOKIE}=${app.ctx.guests.createSession(invite)}`;
}

/** The `easel-code` meta of an Easel page. */
export function pageCode(html: string): string | null {
  return /<meta name="easel-code" content="([^"]+)">/.exec(html)?.[1] ?? null;
}
