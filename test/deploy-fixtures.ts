// Canvases with deploy keys (made through the management API), ZIP builders
// (fflate for honest archives, a hand-rolled writer for lying ones) and
// request helpers for the Deploy API suites.
import { deflateRawSync } from 'node:zlib';
import { zipSync, type Zippable } from 'fflate';
import type { Core } from '../src/foundation.ts';
import { randomBase62 } from '../src/ids.ts';
import { body, type TestApp } from './harness.ts';

export interface DeployCanvas {
  id: string;
  slug: string;
  key: string;
  ownerId: string;
  /** The owner's session, for what the owner changes in the dashboard (sharing). */
  ownerCookie: string;
}

/** PATCH /api/canvases/{id} as the owner (sharing, expiry…), as the dashboard does it. */
export async function ownerSettings(app: TestApp, c: DeployCanvas, patch: Record<string, unknown>): Promise<void> {
  const res = await app.request(`/api/canvases/${c.id}`, { method: 'PATCH', cookie: c.ownerCookie, json: patch });
  if (res.status !== 200) throw new Error(`owner settings: ${res.status} ${await res.text()}`);
}

let owners = 0;

/**
 * A canvas made through the management API by its own fresh owner (so no
 * suite meets the per-person canvas quota or creation rate), with the key the
 * API answers once.
 */
export async function createDeployCanvas(
  app: TestApp,
  ownerEmail = `owner-${++owners}@example.test`,
  slug = `d${randomBase62(10).toLowerCase()}`,
): Promise<DeployCanvas> {
  const cookie = await app.signIn(ownerEmail, 'Owner');
  const res = await app.request('/api/canvases', { method: 'POST', cookie, json: { title: `Canvas ${slug}`, slug } });
  const made = await body(res);
  if (res.status !== 201) throw new Error(`creating a canvas: ${res.status} ${JSON.stringify(made)}`);
  return { id: made.id, slug: made.slug, key: made.apiKey, ownerId: made.ownerId, ownerCookie: cookie };
}

type Bytes = Uint8Array<ArrayBuffer>;
const enc = new TextEncoder();
export const text = (s: string): Bytes => enc.encode(s) as Bytes;

/** An honest archive from `{path: content}` (fflate; deflate level 6 unless `level` says otherwise). */
export function zipOf(files: Record<string, string | Uint8Array>, level: 0 | 6 = 6): Bytes {
  const input: Zippable = {};
  for (const [path, content] of Object.entries(files)) input[path] = [typeof content === 'string' ? text(content) : content, { level }];
  return zipSync(input) as Bytes;
}

export interface RawEntry {
  name: string | Uint8Array;
  /** The real content; stored or deflated per `method`. */
  content?: Uint8Array;
  method?: 0 | 8;
  /** Lies: what the headers claim. */
  declaredSize?: number;
  crc?: number;
  flags?: number;
  /** Unix mode for the external attributes (e.g. 0o120777 for a symlink). */
  unixMode?: number;
  /** What only the central record says (the local header keeps the truth): a lying table of contents. */
  central?: { crc?: number; declaredSize?: number; name?: string };
  /** Sizes and CRC after the data (flag bit 3), zeros in the local header, as streaming zippers write them. */
  dataDescriptor?: boolean;
  /** Extra fields, written in the local header and the central record alike. */
  extra?: Uint8Array;
}

/** A ZIP written byte by byte, so headers can say what the content is not. `zip64` writes the ZIP64 forms of sizes, offsets and the end record. */
export function rawZip(
  entries: RawEntry[],
  opts: { eocdCount?: number; zip64?: boolean; extraCentral?: Array<{ of: number; name: string }> } = {},
): Bytes {
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = typeof e.name === 'string' ? text(e.name) : e.name;
    const content = e.content ?? new Uint8Array(0);
    const method = e.method ?? 8;
    const data = method === 8 ? deflateRawSync(content) : content;
    const crc = e.crc ?? Bun.hash.crc32(content);
    const size = e.declaredSize ?? content.byteLength;
    const flags = (e.flags ?? 0x800) | (e.dataDescriptor ? 0x8 : 0);
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 20, true);
    local.setUint16(6, flags, true);
    local.setUint16(8, method, true);
    local.setUint32(14, e.dataDescriptor ? 0 : crc, true);
    local.setUint32(18, e.dataDescriptor ? 0 : data.byteLength, true);
    local.setUint32(22, e.dataDescriptor ? 0 : size, true);
    local.setUint16(26, name.byteLength, true);
    const entryExtra = e.extra ?? new Uint8Array(0);
    local.setUint16(28, entryExtra.byteLength, true);
    locals.push(new Uint8Array(local.buffer), name, entryExtra, data);
    let descriptorBytes = 0;
    if (e.dataDescriptor) {
      const dd = new DataView(new ArrayBuffer(16));
      dd.setUint32(0, 0x08074b50, true);
      dd.setUint32(4, crc, true);
      dd.setUint32(8, data.byteLength, true);
      dd.setUint32(12, size, true);
      locals.push(new Uint8Array(dd.buffer));
      descriptorBytes = 16;
    }
    const centralName = e.central?.name !== undefined ? text(e.central.name) : name;
    const central = new DataView(new ArrayBuffer(46));
    const big = opts.zip64 ? 0xffffffff : null;
    central.setUint32(0, 0x02014b50, true);
    central.setUint16(4, e.unixMode !== undefined ? 0x031e : 20, true);
    central.setUint16(6, opts.zip64 ? 45 : 20, true);
    central.setUint16(8, flags, true);
    central.setUint16(10, method, true);
    central.setUint32(16, e.central?.crc ?? crc, true);
    central.setUint32(20, big ?? data.byteLength, true);
    central.setUint32(24, big ?? e.central?.declaredSize ?? size, true);
    central.setUint16(28, centralName.byteLength, true);
    central.setUint32(38, e.unixMode !== undefined ? (e.unixMode << 16) >>> 0 : 0, true);
    central.setUint32(42, big ?? offset, true);
    let extra: Uint8Array = entryExtra;
    if (opts.zip64) {
      const x = new DataView(new ArrayBuffer(28));
      x.setUint16(0, 0x0001, true);
      x.setUint16(2, 24, true);
      x.setBigUint64(4, BigInt(size), true);
      x.setBigUint64(12, BigInt(data.byteLength), true);
      x.setBigUint64(20, BigInt(offset), true);
      extra = Buffer.concat([new Uint8Array(x.buffer), entryExtra]);
    }
    central.setUint16(30, extra.byteLength, true);
    centrals.push(new Uint8Array(central.buffer), centralName, extra);
    offset += 30 + name.byteLength + entryExtra.byteLength + data.byteLength + descriptorBytes;
  }
  // More central records pointing at an entry already listed: two names sharing one body of bytes.
  for (const extra of opts.extraCentral ?? []) {
    const i = extra.of * 3;
    const copy = new Uint8Array(centrals[i]!);
    const name = text(extra.name);
    new DataView(copy.buffer).setUint16(28, name.byteLength, true);
    centrals.push(copy, name, new Uint8Array(0));
  }
  const cdSize = centrals.reduce((n, c) => n + c.byteLength, 0);
  const count = opts.eocdCount ?? entries.length + (opts.extraCentral?.length ?? 0);
  const tail: Uint8Array[] = [];
  if (opts.zip64) {
    const rec = new DataView(new ArrayBuffer(56));
    rec.setUint32(0, 0x06064b50, true);
    rec.setBigUint64(4, 44n, true);
    rec.setUint16(12, 45, true);
    rec.setUint16(14, 45, true);
    rec.setBigUint64(24, BigInt(count), true);
    rec.setBigUint64(32, BigInt(count), true);
    rec.setBigUint64(40, BigInt(cdSize), true);
    rec.setBigUint64(48, BigInt(offset), true);
    const locator = new DataView(new ArrayBuffer(20));
    locator.setUint32(0, 0x07064b50, true);
    locator.setBigUint64(8, BigInt(offset + cdSize), true);
    locator.setUint32(16, 1, true);
    tail.push(new Uint8Array(rec.buffer), new Uint8Array(locator.buffer));
  }
  const eocd = new DataView(new ArrayBuffer(22));
  eocd.setUint32(0, 0x06054b50, true);
  eocd.setUint16(8, opts.zip64 ? 0xffff : count, true);
  eocd.setUint16(10, opts.zip64 ? 0xffff : count, true);
  eocd.setUint32(12, opts.zip64 ? 0xffffffff : cdSize, true);
  eocd.setUint32(16, opts.zip64 ? 0xffffffff : offset, true);
  return Buffer.concat([...locals, ...centrals, ...tail, new Uint8Array(eocd.buffer)]) as unknown as Bytes;
}

const auth = (key: string) => ({ authorization: `Bearer ${key}` });

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

async function answer(res: Response): Promise<Answer> {
  return { status: res.status, headers: res.headers, body: await body(res) };
}

export async function deploy(
  app: TestApp,
  c: DeployCanvas,
  zip: BodyInit | null,
  query: Record<string, string> = {},
  headers: Record<string, string> = {},
): Promise<Answer> {
  const qs = new URLSearchParams(query).toString();
  return answer(
    await app.request(`/v1/canvases/${c.id}/deploy${qs ? `?${qs}` : ''}`, {
      method: 'PUT',
      body: zip,
      headers: { ...auth(c.key), ...headers },
    }),
  );
}

export async function get(app: TestApp, c: DeployCanvas, path = '', key = c.key): Promise<Answer> {
  return answer(await app.request(`/v1/canvases/${c.id}${path}`, { headers: auth(key) }));
}

export async function post(
  app: TestApp,
  c: DeployCanvas,
  path: string,
  json?: unknown,
  init: { body?: BodyInit; key?: string } = {},
): Promise<Answer> {
  return answer(
    await app.request(`/v1/canvases/${c.id}${path}`, {
      method: 'POST',
      ...(json !== undefined ? { json } : { body: init.body }),
      headers: auth(init.key ?? c.key),
    }),
  );
}

/** The canvas row's sharing fields straight from the database. */
export async function sharing(ctx: Core, id: string) {
  return (await ctx.sql.get<{
    access_mode: string;
    expires_at: number | null;
    listed_for_access: number;
    gallery_listed: number;
    publication_token: string;
    current_version_id: string | null;
  }>(
    'SELECT access_mode, expires_at, listed_for_access, gallery_listed, publication_token, current_version_id FROM canvases WHERE id = ?1',
    id,
  ))!;
}

export const site = (extra: Record<string, string | Uint8Array> = {}) =>
  zipOf({ 'index.html': '<h1>hi</h1>', 'app.js': 'console.log(1)', ...extra });
