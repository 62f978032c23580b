import type { Principal } from '../auth/principal.ts';
import type { User } from '../auth/users.ts';
import { decideAccess, publicLinkActive, type AccessInput, type Viewer } from '../canvases/access.ts';
import { statusOf, type Canvas, type CanvasRole } from '../canvases/record.ts';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { enforceRate, principalOf } from '../http/guards.ts';
import { metaOf } from '../http/meta.ts';
import { capabilityState, type Capability } from './capabilities.ts';
import { gatePassed } from './gate-check.ts';
import { checkIsolation, corsHeaders } from './isolation.ts';
import { usageOf } from './usage.ts';

export type { Capability } from './capabilities.ts';

/** Who is calling the runtime API, as the server resolved it. */
export interface RuntimeCaller {
  canvas: Canvas;
  principal: Principal;
  /** null for guests (and anonymous visitors, who never get this far). */
  user: User | null;
  /** user id, or 'guest:<inviteId>' */
  actorId: string;
  actorName: string;
  /** Effective runtime role: owner | editor | viewer. Admin status never raises it. */
  role: CanvasRole;
  kind: 'member' | 'guest';
}

/** `headers`: CORS headers to add to the success response (empty in path mode). */
export interface PipelineResult {
  caller: RuntimeCaller;
  headers: Record<string, string>;
}

export interface PipelineOptions {
  capability: Capability;
  /** `ai` for /ai*, `canvas` (default) for everything else under /v1/c/{slug}. */
  rateClass?: 'canvas' | 'ai';
  /** The realtime upgrade checks its capability after accepting the socket (4403). */
  skipCapability?: boolean;
}

const STATIC_ONLY_MESSAGE = 'this canvas is public and static-only: its runtime API is available to its owner and editors only';

/**
 * The runtime pipeline, in the spec's order: auth gateway → rate limit →
 * resolve (sharing rung, password gate, static-only) → cross-canvas
 * isolation → capability gate. Preflight OPTIONS is answered before this
 * (see preflightResponse). Every refusal is an AppError; in subdomain mode a
 * request from the canvas's own origin gets the CORS headers on refusals
 * too, so the canvas can read them.
 */
export function runPipeline(ctx: AppContext, request: Request, slug: string, opts: PipelineOptions): PipelineResult {
  const cors = corsHeaders(ctx.config, request, slug);
  try {
    const principal = gateway(ctx, request, slug);
    rateLimit(ctx, request, principal, slug, opts.rateClass ?? 'canvas');
    const { canvas, role } = resolve(ctx, request, slug, principal);
    checkIsolation(ctx.config, request, slug);
    if (!opts.skipCapability) {
      const refusal = capabilityRefusal(ctx, canvas, opts.capability);
      if (refusal) throw refusal;
    }
    usageOf(ctx).add(canvas.id, 'requests');
    return { caller: callerOf(canvas, principal, role), headers: cors };
  } catch (err) {
    if (err instanceof AppError) Object.assign(err.headers, cors);
    throw err;
  }
}

/** The capability gate alone (the realtime socket's 4403 path): null when effective. */
export function capabilityRefusal(ctx: AppContext, canvas: Canvas, capability: Capability): AppError | null {
  const state = capabilityState(ctx, canvas, capability);
  if (state.effective) return null;
  return new AppError('CAPABILITY_DISABLED', `the ${capability} capability is not available on this canvas`, {
    capability,
    backendEnabled: canvas.capabilities.backend,
    reason: state.reason,
    hint: state.hint,
  });
}

/** Step 1: a session (user or guest), or the anonymous principal of an open Public link canvas. */
function gateway(ctx: AppContext, request: Request, slug: string): Principal {
  const principal = principalOf(ctx, request);
  if (principal) return principal;
  if (openPublicLink(ctx, slug)) return { kind: 'anonymous' };
  if (ctx.config.authMode === 'oidc') {
    throw new AppError('unauthorized', 'sign in first', {}, { status: 302, headers: { location: '/auth/login' } });
  }
  throw new AppError('unauthorized');
}

/** An active, unexpired Public link canvas whose owner (and the instance) allow public links. */
function openPublicLink(ctx: AppContext, slug: string): boolean {
  const canvas = ctx.canvases.bySlug(slug);
  if (!canvas || statusOf(canvas) !== 'active') return false;
  if (canvas.expiresAt !== null && canvas.expiresAt <= ctx.now()) return false;
  return publicLinkActive({ canvas, owner: ownerFacts(ctx, canvas), instance: instanceFacts(ctx) });
}

function ownerFacts(ctx: AppContext, canvas: Canvas): AccessInput['owner'] {
  const owner = ctx.users.byId(canvas.ownerId);
  return owner ? { active: owner.active, canPublishPublic: owner.canPublishPublic, orgId: owner.orgId } : null;
}

function instanceFacts(ctx: AppContext): AccessInput['instance'] {
  return { publicLinks: ctx.settings.get().publicLinks, tenancy: ctx.config.tenancy };
}

/** Step 2: per user per canvas (canvas class) or per user across canvases (ai class). */
function rateLimit(ctx: AppContext, request: Request, principal: Principal, slug: string, rateClass: 'canvas' | 'ai'): void {
  const who = principal.kind === 'anonymous' ? `ip:${metaOf(request).ip ?? 'unknown'}` : actorIdOf(principal);
  if (rateClass === 'ai') enforceRate(ctx, `ai:${who}`, ctx.config.rateLimitAiPerMin, 'code');
  else enforceRate(ctx, `canvas:${slug}:${who}`, ctx.config.rateLimitCanvasApiPerMin, 'code');
}

/** Step 3: the same access decision as page serving, then the static-only rule. */
function resolve(ctx: AppContext, request: Request, slug: string, principal: Principal): { canvas: Canvas; role: CanvasRole } {
  const canvas = ctx.canvases.bySlug(slug);
  const decision = decideAccess({
    canvas,
    owner: canvas ? ownerFacts(ctx, canvas) : null,
    viewer: canvas ? viewerOf(ctx, canvas, principal) : { kind: 'anonymous' },
    gatePassed: canvas !== null && canvas.hasPassword && gatePassed(ctx, request, canvas),
    now: ctx.now(),
    instance: instanceFacts(ctx),
  });
  if (!decision.ok) throw new AppError(decision.code);
  if (decision.staticOnly) throw new AppError('STATIC_ONLY', STATIC_ONLY_MESSAGE);
  return { canvas: canvas!, role: decision.effectiveRole };
}

/** The access decision's view of a principal (shared with the realtime revalidation). */
export function viewerOf(ctx: AppContext, canvas: Canvas, principal: Principal): Viewer {
  switch (principal.kind) {
    case 'user':
      return { kind: 'user', userId: principal.user.id, orgId: principal.user.orgId, role: ctx.canvases.roleOf(canvas, principal.user.id) };
    case 'guest':
      return { kind: 'guest', inviteId: principal.inviteId, canvasId: principal.canvasId };
    case 'anonymous':
      return { kind: 'anonymous' };
  }
}

function actorIdOf(principal: Exclude<Principal, { kind: 'anonymous' }>): string {
  return principal.kind === 'user' ? principal.user.id : `guest:${principal.inviteId}`;
}

function callerOf(canvas: Canvas, principal: Principal, role: CanvasRole): RuntimeCaller {
  // Anonymous visitors are only ever admitted static-only, so they never reach here.
  if (principal.kind === 'anonymous') throw new AppError('STATIC_ONLY', STATIC_ONLY_MESSAGE);
  if (principal.kind === 'guest') {
    return { canvas, principal, user: null, actorId: actorIdOf(principal), actorName: principal.name, role, kind: 'guest' };
  }
  return { canvas, principal, user: principal.user, actorId: principal.user.id, actorName: principal.user.name, role, kind: 'member' };
}
