// Connection profiles and grants, for instance admins (CONTRACT §4). Plain
// data in and out; the routes check that the caller is an admin. Protected
// header values are sealed on the way in and never come back out: views list
// header names only, audit entries name fields only.
import type { Actor } from '../canvases/authority.ts';
import type { AppContext } from '../context.ts';
import type { Core } from '../foundation.ts';
import type { TxSteps } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import { HTTP_METHODS, isReservedName, RESOURCE_NAME, type HttpMethod } from '../policy/document.ts';
import { headerPlace, seal } from '../secrets/sealed.ts';
import { profileUsable } from './effective.ts';
import { isIpAddress } from '../net/ip.ts';
import { MAX_PROTECTED_HEADERS, MAX_PROTECTED_VALUE_BYTES, type CreateProfileInput, type PatchProfileInput } from './model.ts';
import { isReservedProtectedHeader } from './request-shape.ts';
import { connectionRows, type Profile, type SealedHeader } from './store.ts';

export interface ProfileView {
  name: string;
  origin: string;
  methods: HttpMethod[];
  /** Header names only: values are write-only. */
  protectedHeaders: string[];
  enabled: boolean;
  /** Enabled, and its protected headers can be opened with the current EASEL_SECRET_KEY. */
  usable: boolean;
  /** Why not, when not usable: disabled, secret_key_missing or secret_key_changed. */
  unusableReason: string | null;
  /** Canvases it is granted to. */
  canvasIds: string[];
  createdAt: number;
  updatedAt: number;
}

/** What profile administration uses: the profiles' store, canvases (grants), the audit log, events, the clock and the secret key (config). */
export type ConnectionProfilesDeps = Pick<Core, 'audit' | 'canvases' | 'config' | 'connections' | 'events' | 'now'>;

/** Built once in createApp; the admin routes are handed it. */
export class ConnectionProfiles {
  constructor(private readonly deps: ConnectionProfilesDeps) {}

  /** A profile as the admin routes show it. */
  async view(p: Profile): Promise<ProfileView> {
    const ctx = this.deps;
    const store = ctx.connections;
    const state = profileUsable(ctx, p);
    return {
      name: p.name,
      origin: p.origin,
      methods: HTTP_METHODS.filter((m) => p.methods.includes(m)),
      protectedHeaders: store.headerKeys(p.name).map((h) => h.header),
      enabled: p.enabled,
      usable: state.usable,
      unusableReason: state.usable ? null : state.reason,
      canvasIds: await store.canvasesOf(p.name),
      createdAt: p.createdAt,
      updatedAt: p.updatedAt,
    };
  }

  list(): Promise<ProfileView[]> {
    return Promise.all(this.deps.connections.list().map((p) => this.view(p)));
  }

  get(name: string): Profile {
    const p = this.deps.connections.get(name);
    if (!p) throw new AppError('NOT_FOUND', 'connection profile not found');
    return p;
  }

  async create(actor: Actor, input: CreateProfileInput): Promise<Profile> {
    const ctx = this.deps;
    const store = ctx.connections;
    if (!RESOURCE_NAME.test(input.name))
      throw new AppError('INVALID_BODY', 'name: 1-80 ASCII letters, digits, ".", ":", "_" or "-", starting with a letter or digit');
    if (isReservedName(input.name)) throw new AppError('INVALID_BODY', 'name: reserved name');
    const origin = normalizeOrigin(input.origin);
    const headers = checkHeaders(input.protectedHeaders ?? {});
    if (headers.some(([, v]) => v !== null)) requireKey(ctx);
    const now = ctx.now();
    const profile: Profile = {
      name: input.name,
      origin,
      methods: [...input.methods],
      enabled: input.enabled ?? true,
      createdAt: now,
      updatedAt: now,
    };
    const sealed = sealHeaders(ctx, profile.name, headers);
    await store.write(function* () {
      if (yield* connectionRows.exists(profile.name))
        throw new AppError('CONNECTION_EXISTS', `a connection profile named ${profile.name} already exists`);
      yield* connectionRows.insert(profile);
      yield* writeHeaders(profile.name, sealed);
    });
    await audit(ctx, actor, 'connection.create', {
      name: profile.name,
      origin,
      methods: profile.methods,
      protectedHeaders: headers.map(([h]) => h),
      enabled: profile.enabled,
    });
    return profile;
  }

  async update(actor: Actor, name: string, patch: PatchProfileInput): Promise<Profile> {
    const ctx = this.deps;
    const store = ctx.connections;
    const current = this.get(name);
    const origin = patch.origin === undefined ? current.origin : normalizeOrigin(patch.origin);
    const headers = checkHeaders(patch.protectedHeaders ?? {});
    if (headers.some(([, v]) => v !== null)) requireKey(ctx);
    const next: Profile = {
      ...current,
      origin,
      methods: patch.methods ? [...patch.methods] : current.methods,
      enabled: patch.enabled ?? current.enabled,
      updatedAt: ctx.now(),
    };
    const sealed = sealHeaders(ctx, name, headers);
    await store.write(function* () {
      yield* connectionRows.update(next);
      yield* writeHeaders(name, sealed);
      if ((yield* connectionRows.headerCount(name)) > MAX_PROTECTED_HEADERS)
        throw new AppError('INVALID_BODY', `protectedHeaders: at most ${MAX_PROTECTED_HEADERS} headers`);
    });
    const fields = Object.keys(patch).filter((k) => patch[k as keyof PatchProfileInput] !== undefined);
    await audit(ctx, actor, 'connection.update', {
      name,
      fields,
      protectedHeaders: headers.map(([h, v]) => ({ header: h, removed: v === null })),
    });
    return store.get(name)!;
  }

  async delete(actor: Actor, name: string): Promise<void> {
    const ctx = this.deps;
    const store = ctx.connections;
    this.get(name);
    await store.write(() => connectionRows.delete(name));
    await audit(ctx, actor, 'connection.delete', { name });
  }

  async grant(actor: Actor, canvasId: string, name: string): Promise<{ canvasId: string; name: string; grantedAt: number }> {
    const ctx = this.deps;
    const canvas = await ctx.canvases.byId(canvasId);
    if (!canvas) throw new AppError('NOT_FOUND', 'canvas not found');
    this.get(name);
    const { grantedAt, created } = await ctx.connections.grant(canvasId, name, ctx.now());
    if (created) {
      ctx.events.emit('canvas.capabilities-changed', { canvasId });
      await audit(ctx, actor, 'connection.grant', { name }, canvasId);
    }
    return { canvasId, name, grantedAt };
  }

  /** Idempotent: revoking what was never granted is fine, as long as the canvas exists. */
  async revoke(actor: Actor, canvasId: string, name: string): Promise<void> {
    const ctx = this.deps;
    if (!(await ctx.canvases.byId(canvasId))) throw new AppError('NOT_FOUND', 'canvas not found');
    if (await ctx.connections.revoke(canvasId, name)) {
      ctx.events.emit('canvas.capabilities-changed', { canvasId });
      await audit(ctx, actor, 'connection.revoke', { name }, canvasId);
    }
  }

  async grantsOf(canvasId: string): Promise<Array<{ name: string; grantedAt: number }>> {
    const ctx = this.deps;
    if (!(await ctx.canvases.byId(canvasId))) throw new AppError('NOT_FOUND', 'canvas not found');
    return ctx.connections.grantsOf(canvasId);
  }
}

/**
 * One exact https origin: no path, query, fragment or userinfo, and a host
 * name rather than an IP literal (every IPv4 spelling the URL parser accepts,
 * like 127.1 or 0x7f.0.0.1 or 2130706433, comes out dotted and is refused).
 */
export function normalizeOrigin(raw: string): string {
  const bad = (why: string) => new AppError('INVALID_BODY', `origin: ${why}`);
  const text = raw.trim();
  if (/[\s@?#\\]/.test(text)) throw bad('must be an https origin such as https://api.example.com (no spaces, userinfo, query or fragment)');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw bad('not a URL');
  }
  if (url.protocol !== 'https:') throw bad('only https origins are allowed');
  if (url.username || url.password || url.search || url.hash) throw bad('no userinfo, query or fragment');
  if (url.pathname !== '/' || !/^https:\/\/[^/]+\/?$/i.test(text)) throw bad('no path: give the origin only');
  const host = url.hostname;
  if (host.startsWith('[') || isIpAddress(host)) throw bad('IP literals are not allowed; use a host name');
  // The URL parser keeps an explicit :0; no upstream listens there, and a connect to port 0 is not one to attempt.
  if (url.port === '0') throw bad('port 0 is not a port');
  if (!/^(?=.{1,253}\.?$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?$/.test(host))
    throw bad('not a valid host name');
  return url.origin;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;
const VALUE = /^[\t\x20-\x7e]*$/;

/** Lowercased names with their values (null = remove), validated. */
function checkHeaders(input: Record<string, string | null>): Array<[string, string | null]> {
  const entries = Object.entries(input);
  if (entries.length > MAX_PROTECTED_HEADERS)
    throw new AppError('INVALID_BODY', `protectedHeaders: at most ${MAX_PROTECTED_HEADERS} headers`);
  const seen = new Set<string>();
  return entries.map(([rawName, value]) => {
    const path = `protectedHeaders.${rawName}`;
    if (!TOKEN.test(rawName)) throw new AppError('INVALID_BODY', `${path}: not a valid header name`);
    const name = rawName.toLowerCase();
    if (seen.has(name)) throw new AppError('INVALID_BODY', `${path}: given twice`);
    seen.add(name);
    if (isReservedProtectedHeader(name))
      throw new AppError('INVALID_BODY', `${path}: this header is set by the server and cannot be protected`);
    if (value !== null) {
      if (!VALUE.test(value)) throw new AppError('INVALID_BODY', `${path}: the value must be printable ASCII without line breaks`);
      if (Buffer.byteLength(value) > MAX_PROTECTED_VALUE_BYTES)
        throw new AppError('INVALID_BODY', `${path}: the value may be at most ${MAX_PROTECTED_VALUE_BYTES / 1024} KiB`);
    }
    return [name, value];
  });
}

function requireKey(ctx: Pick<AppContext, 'config'>): Uint8Array {
  const key = ctx.config.secretKey;
  if (!key)
    throw new AppError('SECRET_KEY_MISSING', 'protected headers are encrypted with EASEL_SECRET_KEY, which is not set on this instance');
  return key;
}

/** Values sealed before the transaction (null: the header is removed). */
function sealHeaders(
  ctx: Pick<AppContext, 'config'>,
  profile: string,
  headers: Array<[string, string | null]>,
): Array<[string, SealedHeader | null]> {
  return headers.map(([header, value]) => [
    header,
    value === null ? null : { header, ...seal(requireKey(ctx), headerPlace(profile, header), value) },
  ]);
}

function* writeHeaders(profile: string, headers: Array<[string, SealedHeader | null]>): TxSteps<void> {
  for (const [header, sealed] of headers) {
    if (sealed === null) yield* connectionRows.deleteHeader(profile, header);
    else yield* connectionRows.putHeader(profile, sealed);
  }
}

async function audit(
  ctx: Pick<Core, 'audit'>,
  actor: Actor,
  action: string,
  detail: Record<string, unknown>,
  canvasId: string | null = null,
): Promise<void> {
  await ctx.audit.record({ actorId: actor.user.id, actorKind: 'admin', canvasId, action, detail });
}
