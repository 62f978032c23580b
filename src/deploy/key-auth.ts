// Deploy API authentication (spec "Authentication / Deploy API"): the canvas
// secret key as a Bearer token, nothing else. No cookies are read and no CORS
// headers are ever added on this path.
import type { Canvas } from '../canvases/record.ts';
import type { AppContext } from '../context.ts';
import { AppError, keyOfAnotherCanvas } from '../errors.ts';
import { enforceRate } from '../http/guards.ts';
import { sha256Hex } from '../ids.ts';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * The canvas `{id}` names, when the request carries that canvas's key.
 * Missing or unknown key, or a key whose canvas is archived, disabled or
 * deleted: 401 `{error: "unauthorized"}`. A valid key of another canvas: 403
 * with the same body.
 */
export function authenticateDeployKey(ctx: AppContext, request: Request, canvasId: string): Canvas {
  const match = BEARER.exec(request.headers.get('authorization') ?? '');
  if (!match) throw unauthorized();
  const canvas = ctx.canvases.byKeyHash(sha256Hex(match[1]!));
  if (!canvas || canvas.deletedAt !== null || canvas.archivedAt !== null || canvas.disabledAt !== null) throw unauthorized();
  if (canvas.id !== canvasId) throw keyOfAnotherCanvas();
  return canvas;
}

/** The deploy-class rate (PUT deploy, begin, finalize, rollback), keyed per canvas after the key is verified. */
export function enforceDeployRate(ctx: AppContext, canvasId: string): void {
  enforceRate(ctx, `deploy:${canvasId}`, ctx.config.rateLimitDeployPerMin, 'error');
}

const unauthorized = () => new AppError('unauthorized', 'unauthorized');
