import type { Principal } from '../auth/principal.ts';
import type { User } from '../auth/users.ts';
import type { AccessResolver, CanvasFacts, ResolvedAccess } from '../canvases/access-resolver.ts';
import type { Canvas, CanvasRole } from '../canvases/record.ts';
import type { Core } from '../foundation.ts';
import { AppError, signInFirst } from '../errors.ts';
import { enforceRate, principalOf } from '../auth/guards.ts';
import { metaOf } from '../http/meta.ts';
import { networkOf } from '../net/ip.ts';
import { capabilityState, type Capability, type CapabilityLookup } from './capabilities.ts';
import { checkIsolation, corsHeaders } from './isolation.ts';
import type { UsageCounters } from './usage.ts';
import type { InsightCounters } from '../insights/counters.ts';
import type { ApiKind } from '../insights/store.ts';
import type { Maybe } from '../sync-first.ts';
import { previewPrincipal, previewTokenOfRequest } from '../drafts/preview-principal.ts';

/** The part of the app context this feature uses. */
export type PipelineDeps = Pick<
  Core,
  'auth' | 'config' | 'connections' | 'limiter' | 'settings' | 'events' | 'instanceSecret' | 'users' | 'now'
>;

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
  /**
   * Set when the dashboard or MCP acts under the runtime's rules (browsing,
   * exporting, deleting a canvas's data): what it names is not something the
   * canvas's pages asked for, so it is never noted as a policy miss.
   */
  managing?: true;
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
  /** What the call counts as in the canvas's insights, when not its capability (collections and submissions run as kv). */
  insight?: ApiKind;
}

/** The capabilities counted in insights under their own name; identity, connections and authoring are not counted. */
const COUNTED: Partial<Record<Capability, ApiKind>> = { kv: 'kv', files: 'files', ai: 'ai', realtime: 'realtime' };

const STATIC_ONLY_MESSAGE = 'this canvas is public and static-only: its runtime API is available to its owner and editors only';

/**
 * The runtime pipeline, in the spec's order: auth gateway → rate limit →
 * resolve (sharing rung, password gate, static-only) → cross-canvas
 * isolation → capability gate. Preflight OPTIONS is answered before this
 * (see preflightResponse). Every refusal is an AppError; in subdomain mode a
 * request from the canvas's own origin gets the CORS headers on refusals
 * too, so the canvas can read them. One per app (src/app.ts); every runtime
 * route runs through it.
 */
export class RuntimePipeline {
  constructor(
    private readonly ctx: PipelineDeps,
    private readonly deps: { access: AccessResolver; usage: UsageCounters; insights: InsightCounters },
  ) {}

  /**
   * Answers at once when every step has what it needs in memory (the usual
   * request: a held session, held access facts, a window counted in this
   * process), and as a promise when a step has to wait.
   */
  run(request: Request, slug: string, opts: PipelineOptions): Maybe<PipelineResult> {
    const cors = corsHeaders(this.ctx.config, request, slug);
    const withCors = (err: unknown): never => {
      if (err instanceof AppError) Object.assign(err.headers, cors);
      throw err;
    };
    try {
      const principal = principalOf(this.ctx, request);
      if (!principal || principal instanceof Promise) return this.runWaiting(request, slug, opts, cors).catch(withCors);
      const facts = this.deps.access.bySlug(slug);
      if (facts instanceof Promise) return facts.then((f) => this.counted(request, slug, opts, principal, f, cors)).catch(withCors);
      const result = this.counted(request, slug, opts, principal, facts, cors);
      return result instanceof Promise ? result.catch(withCors) : result;
    } catch (err) {
      return withCors(err);
    }
  }

  /** Step 1 when the session is not held in memory, or there is none (an open Public link canvas). */
  private async runWaiting(request: Request, slug: string, opts: PipelineOptions, cors: Record<string, string>): Promise<PipelineResult> {
    const principal = await this.gateway(request, slug);
    return this.counted(request, slug, opts, principal, await this.deps.access.bySlug(slug), cors);
  }

  /** Steps 2 and 3: the caller counted against their rate, then their access resolved (each awaited only when it must wait). */
  private counted(
    request: Request,
    slug: string,
    opts: PipelineOptions,
    principal: Principal,
    facts: CanvasFacts | null,
    cors: Record<string, string>,
  ): Maybe<PipelineResult> {
    const limited = this.rateLimit(request, principal, facts, opts.rateClass ?? 'canvas');
    const resolved = limited
      ? limited.then(() => this.deps.access.resolve(request, facts, principal))
      : this.deps.access.resolve(request, facts, principal);
    return resolved instanceof Promise
      ? resolved.then((r) => this.admit(request, slug, opts, principal, r, cors))
      : this.admit(request, slug, opts, principal, resolved, cors);
  }

  /** Steps 3 (the decision) to 5, once the caller is known and counted. */
  private admit(
    request: Request,
    slug: string,
    opts: PipelineOptions,
    principal: Principal,
    resolved: ResolvedAccess,
    cors: Record<string, string>,
  ): PipelineResult {
    const { canvas, role } = admitted(resolved);
    checkIsolation(this.ctx.config, request, slug);
    if (!opts.skipCapability) {
      const refusal = this.capabilityRefusal(canvas, opts.capability);
      if (refusal) throw refusal;
    }
    this.deps.usage.add(canvas.id, 'requests');
    const counted = opts.insight ?? COUNTED[opts.capability];
    if (counted) this.deps.insights.api(canvas.id, counted);
    return { caller: callerOf(canvas, principal, role), headers: cors };
  }

  /** The capability gate alone (the realtime socket's 4403 path, the AI service's place in its order): null when effective. */
  capabilityRefusal(canvas: Canvas, capability: Capability): AppError | null {
    return capabilityRefusal(this.ctx, canvas, capability);
  }

  /** Step 1: a session (user or guest), or the anonymous principal of an open Public link canvas. */
  private async gateway(request: Request, slug: string): Promise<Principal> {
    const principal = await principalOf(this.ctx, request);
    if (principal) return principal;
    // The editor's draft preview on the canvas host has no session there: its token stands for the person.
    const token = previewTokenOfRequest(request);
    if (token) {
      const facts = await this.deps.access.bySlug(slug);
      const previewer = facts ? await previewPrincipal(this.ctx, facts.canvas.id, token) : null;
      if (previewer) return previewer;
    }
    if (await this.deps.access.openPublicLink(slug)) return { kind: 'anonymous' };
    if (this.ctx.config.authMode === 'oidc') {
      throw signInFirst();
    }
    throw new AppError('unauthorized');
  }

  /**
   * Step 2: per caller per canvas (canvas class) or per caller across
   * canvases (ai class). The key names the resolved canvas, never the slug as
   * sent: every unknown slug is one key per caller, so made-up slugs neither
   * reset anyone's window nor grow the table.
   */
  private rateLimit(
    request: Request,
    principal: Principal,
    facts: CanvasFacts | null,
    rateClass: 'canvas' | 'ai',
  ): Promise<void> | undefined {
    const ctx = this.ctx;
    const who = principal.kind === 'anonymous' ? `ip:${networkOf(metaOf(request).ip)}` : actorIdOf(principal);
    if (rateClass === 'ai') return enforceRate(ctx, `ai:${who}`, ctx.config.rateLimitAiPerMin, 'code');
    const canvasId = facts?.canvas.id ?? 'unknown';
    return enforceRate(ctx, `canvas:${canvasId}:${who}`, ctx.config.rateLimitCanvasApiPerMin, 'code');
  }
}

/** Step 3: the same access decision as page serving, then the static-only rule. */
function admitted({ canvas, decision }: ResolvedAccess): { canvas: Canvas; role: CanvasRole } {
  if (!decision.ok) throw new AppError(decision.code);
  if (decision.staticOnly) throw new AppError('STATIC_ONLY', STATIC_ONLY_MESSAGE);
  return { canvas: canvas!, role: decision.effectiveRole };
}

/** The capability gate: null when effective. */
export function capabilityRefusal(ctx: CapabilityLookup, canvas: Canvas, capability: Capability): AppError | null {
  const state = capabilityState(ctx, canvas, capability);
  if (state.effective) return null;
  return new AppError('CAPABILITY_DISABLED', `the ${capability} capability is not available on this canvas`, {
    capability,
    backendEnabled: canvas.capabilities.backend,
    reason: state.reason,
    hint: state.hint,
  });
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
