// The door every management route (/api/*) goes through: no cross-site
// write, a signed-in user, no request from a canvas page, then the
// management rate-limit class.
import type { Core } from '../foundation.ts';
import { AppError } from '../errors.ts';
import { refuseCrossSiteWrite } from '../http/cross-site.ts';
import { enforceRate, principalOf } from '../auth/guards.ts';
import type { Actor } from './authority.ts';

/**
 * The caller of a management route. 403 CROSS_SITE_FORBIDDEN for an unsafe
 * method from anywhere but the dashboard (src/http/cross-site.ts), checked
 * before the credentials are even looked at; 401 `{error: "unauthorized"}` without a
 * user; 429 `{error: "rate_limited"}` with Retry-After past
 * `rateLimitManagementPerMin` requests per user and minute.
 */
export async function managementActor(ctx: Pick<Core, 'auth' | 'config' | 'events' | 'limiter'>, request: Request): Promise<Actor> {
  refuseCrossSiteWrite(ctx.config, request);
  const principal = await principalOf(ctx, request);
  if (!principal || principal.kind !== 'user') throw new AppError('unauthorized');
  const { user } = principal;
  if (principal.via !== 'token') refuseCanvasPages(request);
  // Awaited only when Redis counts: every /api request passes here.
  const limited = enforceRate(ctx, `management:${user.id}`, ctx.config.rateLimitManagementPerMin, 'error');
  if (limited) await limited;
  const actor: Actor = { user, isAdmin: ctx.auth.isAdmin(user) };
  if (principal.via === 'token') actor.tokenId = principal.tokenId;
  return actor;
}

/**
 * Ambient credentials (the session cookie, proxy sign-in) must not let a
 * canvas act on the dashboard's API: in subdomain mode a canvas is
 * same-site with the dashboard (Sec-Fetch-Site: same-site), in path mode
 * its requests carry a Referer under /c/. The same checks the runtime
 * pipeline's isolation step makes. Token callers (no ambient credential)
 * are not browsers acting on someone's behalf and skip this.
 */
function refuseCanvasPages(request: Request): void {
  const site = request.headers.get('sec-fetch-site');
  if (site !== null && site !== 'same-origin' && site !== 'none') {
    throw new AppError('CROSS_SITE_FORBIDDEN', 'management requests must come from the dashboard');
  }
  const referer = request.headers.get('referer');
  if (referer === null) return;
  try {
    const path = new URL(referer).pathname;
    if (path.startsWith('/c/') || path.startsWith('/v1/c/'))
      throw new AppError('CROSS_CANVAS_FORBIDDEN', 'management requests must come from the dashboard');
  } catch (err) {
    if (err instanceof AppError) throw err;
  }
}
