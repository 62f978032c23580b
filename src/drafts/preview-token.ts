// The editor's preview address carries its own credential: a canvas host in
// another site than the dashboard (subdomain mode, *.localhost on a laptop,
// or a separate domain for canvases) gets no session inside the dashboard's
// frame, so the preview could not rely on cookies. The token names the person
// and the canvas, lasts an hour and is signed with the instance secret;
// relative links of the draft keep it, since it is a path segment.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const PREVIEW_TOKEN_MS = 60 * 60 * 1000;

function signature(secret: Buffer, canvasId: string, payload: string): string {
  return createHmac('sha256', secret).update(`draft-preview\n${canvasId}\n${payload}`).digest('base64url').slice(0, 32);
}

export function previewToken(secret: Buffer, canvasId: string, userId: string, now: number): string {
  const payload = `${userId}.${(now + PREVIEW_TOKEN_MS).toString(36)}`;
  return `${payload}.${signature(secret, canvasId, payload)}`;
}

/** The person a token was made for, when it is this canvas's, unexpired and untampered; null otherwise. */
export function previewTokenUser(secret: Buffer, canvasId: string, token: string, now: number): string | null {
  const [userId, exp, sig, ...rest] = token.split('.');
  if (!userId || !exp || !sig || rest.length > 0) return null;
  const expected = Buffer.from(signature(secret, canvasId, `${userId}.${exp}`));
  const given = Buffer.from(sig);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const expiresAt = parseInt(exp, 36);
  return Number.isFinite(expiresAt) && expiresAt > now ? userId : null;
}
