// Deploy API authentication (spec "Authentication / Deploy API"): the canvas
// secret key as a Bearer token, nothing else. No cookies are read and no CORS
// headers are ever added on this path.
import type { Canvas } from '../canvases/record.ts';
import type { AppContext } from '../context.ts';
import type { Core } from '../foundation.ts';
import { AppError, keyOfAnotherCanvas } from '../errors.ts';
import { enforceRate } from '../auth/guards.ts';
import { sha256Hex } from '../ids.ts';

/** `finalize`: the owner's deactivation is left to the upload service (see below). */
export type DeployKeyMode = 'any' | 'finalize';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * The canvas `{id}` names, when the request carries that canvas's key.
 * Missing or unknown key, or a key whose canvas is archived, disabled or
 * deleted: 401 `{error: "unauthorized"}`. A valid key of another canvas: 403
 * with the same body. A key whose canvas's owner was deactivated is 401 too,
 * with `reason: "owner_deactivated"`: deactivating a person stops everything
 * published in their name, CI keys included. Except at `finalize`, where the
 * spec names the answer for an actor no longer active: 404
 * UPLOAD_HANDLE_INVALID, from the upload service.
 */
export async function authenticateDeployKey(
  ctx: Pick<Core, 'canvases' | 'users'>,
  request: Request,
  canvasId: string,
  mode: DeployKeyMode = 'any',
): Promise<Canvas> {
  const match = BEARER.exec(request.headers.get('authorization') ?? '');
  if (!match) throw unauthorized();
  const canvas = await ctx.canvases.byKeyHash(sha256Hex(match[1]!));
  if (!canvas || canvas.deletedAt !== null || canvas.archivedAt !== null || canvas.disabledAt !== null) throw unauthorized();
  if (canvas.id !== canvasId) throw keyOfAnotherCanvas();
  if (mode !== 'finalize' && !(await ctx.users.byId(canvas.ownerId))?.active) throw ownerDeactivated();
  return canvas;
}

/**
 * The deploy-class rate (PUT deploy, begin, finalize, rollback), keyed per
 * canvas after the key is verified. A Promise when Redis counts (await it);
 * undefined once allowed in memory.
 */
export function enforceDeployRate(ctx: Pick<AppContext, 'limiter' | 'events' | 'config'>, canvasId: string): Promise<void> | undefined {
  return enforceRate(ctx, `deploy:${canvasId}`, ctx.config.rateLimitDeployPerMin, 'error');
}

const unauthorized = () => new AppError('unauthorized', 'unauthorized');
const ownerDeactivated = () => new AppError('unauthorized', 'the canvas owner is deactivated', { reason: 'owner_deactivated' });
