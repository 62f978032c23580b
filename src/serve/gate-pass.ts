import { createHmac, timingSafeEqual } from 'node:crypto';
import { secureCookies } from '../auth/cookie-names.ts';
import type { Canvas } from '../canvases/record.ts';
import type { Core } from '../foundation.ts';
import { LruCache } from '../cache/lru.ts';
import { cookieValues, serializeCookie } from '../http/cookies.ts';

/** CONTRACT §1. Path=/ so it reaches both the canvas page and /v1/c/{slug}/ (CONTRACT §9). */
export const GATE_COOKIE = '__easel_gate';
/** How long one pass lasts; the cookie lives as long as its newest pass. */
export const PASS_TTL_MS = 30 * 24 * 3600 * 1000;
/** Passes kept in one cookie (the oldest go first): keeps the header well under 4 KB. */
export const MAX_PASSES = 40;

/** One canvas's pass: bound to the canvas id and its password version, so a new password logs everyone out. */
export interface GatePass {
  canvasId: string;
  passwordVersion: number;
  issuedAt: number;
}

const ENTRY = /^([0-9a-z]{1,40})-(\d{1,9})-(\d{1,15})$/;

function sign(secret: Buffer, payload: string): string {
  return createHmac('sha256', secret).update(`easel-gate:${payload}`).digest('base64url');
}

/** `id-pv-issuedMs_id-pv-issuedMs….signature`: ids are base36, so '-', '_' and '.' never occur in them. */
export function encodePasses(secret: Buffer, passes: GatePass[]): string {
  const payload = passes.map((p) => `${p.canvasId}-${p.passwordVersion}-${p.issuedAt}`).join('_');
  return `${payload}.${sign(secret, payload)}`;
}

/** The passes in a cookie value, or [] when it is malformed or its signature does not verify. */
export function decodePasses(secret: Buffer, value: string | undefined): GatePass[] {
  if (!value || value.length > 4096) return [];
  const dot = value.lastIndexOf('.');
  if (dot <= 0) return [];
  const payload = value.slice(0, dot);
  const given = Buffer.from(value.slice(dot + 1), 'base64url');
  const expected = Buffer.from(sign(secret, payload), 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return [];
  const passes: GatePass[] = [];
  for (const entry of payload.split('_')) {
    const m = ENTRY.exec(entry);
    if (m) passes.push({ canvasId: m[1]!, passwordVersion: Number(m[2]), issuedAt: Number(m[3]) });
  }
  return passes;
}

/** Cookie values whose signature verified, per secret (oldest first, bounded). */
const verified = new WeakMap<Buffer, LruCache<string, readonly GatePass[]>>();
const MAX_VERIFIED = 10_000;

/**
 * decodePasses, remembered: a visitor sends the same cookie with every file
 * of a gated canvas, and the HMAC check costs more than the rest of the page
 * view. The value carries its own signature, so the same string under the
 * same secret always decodes the same; only values that verified are kept.
 */
function decodeVerified(secret: Buffer, value: string): readonly GatePass[] {
  let known = verified.get(secret);
  if (!known) {
    known = new LruCache({ maxEntries: MAX_VERIFIED });
    verified.set(secret, known);
  }
  const hit = known.peek(value);
  if (hit) return hit;
  const passes = decodePasses(secret, value);
  if (passes.length > 0) known.set(value, passes);
  return passes;
}

function passesOf(ctx: Pick<Core, 'instanceSecret' | 'now' | 'config'>, request: Request): GatePass[] {
  // Every copy counts: a copy tossed by a sibling canvas host must not hide the real passes.
  const values = cookieValues(request.headers.get('cookie'), GATE_COOKIE);
  if (values.length === 0) return [];
  const now = ctx.now();
  const secret = ctx.instanceSecret;
  const passes = values.length === 1 ? decodeVerified(secret, values[0]!) : values.flatMap((v) => decodeVerified(secret, v));
  return passes.filter((p) => p.issuedAt <= now && now - p.issuedAt < PASS_TTL_MS);
}

/**
 * Does the request carry a valid `__easel_gate` pass for this canvas and its
 * current password version? The runtime API calls this too (it only checks;
 * the form lives on the page).
 */
export function gatePassed(
  ctx: Pick<Core, 'instanceSecret' | 'now' | 'config'>,
  request: Request,
  canvas: Pick<Canvas, 'id' | 'passwordVersion'>,
): boolean {
  return passesOf(ctx, request).some((p) => p.canvasId === canvas.id && p.passwordVersion === canvas.passwordVersion);
}

/** The Set-Cookie that adds (or refreshes) this canvas's pass, keeping the visitor's other valid passes. */
export function gateCookieWith(
  ctx: Pick<Core, 'instanceSecret' | 'now' | 'config'>,
  request: Request,
  canvas: Pick<Canvas, 'id' | 'passwordVersion'>,
): string {
  const now = ctx.now();
  const others = passesOf(ctx, request).filter((p) => p.canvasId !== canvas.id);
  const passes = [...others, { canvasId: canvas.id, passwordVersion: canvas.passwordVersion, issuedAt: now }].slice(-MAX_PASSES);
  return serializeCookie(GATE_COOKIE, encodePasses(ctx.instanceSecret, passes), {
    maxAgeSeconds: Math.floor(PASS_TTL_MS / 1000),
    // Host-only: in subdomain mode it serves the canvas host, its pages and the runtime API it answers there.
    secure: secureCookies(ctx.config),
  });
}
