import type { AuthResult, Principal } from './principal.ts';
import type { User } from './users.ts';
import type { AppContext } from '../context.ts';
import type { Core } from '../foundation.ts';
import { AppError } from '../errors.ts';
import type { RateDecision } from '../ratelimit/port.ts';
import type { Maybe } from '../sync-first.ts';
import { metaOf, type RequestMeta } from '../http/meta.ts';

/** The request's principal, authenticated once per request (kept in its meta): at once when the session is held in memory. */
export function principalOf(ctx: Pick<Core, 'auth' | 'config'>, request: Request): Maybe<Principal | null> {
  const meta = metaOf(request);
  // The slot is this function's alone: what it holds is what it put there.
  return meta.principal === undefined ? (meta.principal = authenticate(ctx, request, meta)) : (meta.principal as Maybe<Principal | null>);
}

function authenticate(ctx: Pick<Core, 'auth' | 'config'>, request: Request, meta: RequestMeta): Maybe<Principal | null> {
  // The address matters only for trusting proxy headers; looking it up costs a tenth of a page view.
  const result = ctx.auth.authenticate(request, ctx.config.authMode === 'proxy' ? meta.ip : null);
  return result instanceof Promise ? result.then((r) => principalFrom(r, meta)) : principalFrom(result, meta);
}

function principalFrom(result: AuthResult, meta: RequestMeta): Principal | null {
  if (result.setCookie) meta.cookies.push(result.setCookie);
  return result.principal;
}

/** A signed-in user, or 401 `{error: "unauthorized"}`. */
export async function requireUser(ctx: Pick<Core, 'auth' | 'config'>, request: Request): Promise<User> {
  const p = await principalOf(ctx, request);
  if (!p || p.kind !== 'user') throw new AppError('unauthorized');
  return p.user;
}

/**
 * Applies a rate-limit class; throws 429 with Retry-After in the `{error}` or
 * `{code}` shape. Counted in memory (no EASEL_REDIS_URL) the answer is there
 * when this returns, and it answers undefined; counted in Redis it answers a
 * Promise that rejects the same way. Callers await only a Promise: the
 * runtime pipeline runs this on every request, and the embedded mode must
 * not pay for an await.
 */
export function enforceRate(
  ctx: Pick<AppContext, 'limiter' | 'events'>,
  key: string,
  limit: number,
  shape: 'error' | 'code',
  windowMs = 60_000,
): Promise<void> | undefined {
  const d = ctx.limiter.hit(key, limit, windowMs);
  if (d instanceof Promise) return d.then((decided) => refuseOverLimit(ctx, key, decided, shape));
  refuseOverLimit(ctx, key, d, shape);
  return undefined;
}

function refuseOverLimit(ctx: Pick<AppContext, 'events'>, key: string, d: RateDecision, shape: 'error' | 'code'): void {
  if (d.allowed) return;
  ctx.events.emit('ratelimit.refused', { class: key.slice(0, key.indexOf(':')) });
  const headers: Record<string, string> = { 'retry-after': String(d.retryAfter) };
  if (shape === 'error') throw new AppError('rate_limited', 'rate limited', {}, { headers });
  headers['x-ratelimit-limit'] = String(d.limit);
  headers['x-ratelimit-remaining'] = String(d.remaining);
  headers['x-ratelimit-reset'] = String(Math.ceil(d.resetAt / 1000));
  throw new AppError('RATE_LIMITED', 'too many requests', {}, { headers });
}
