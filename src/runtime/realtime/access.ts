// Revalidation of an open socket: the runtime pipeline's identity, access and
// capability steps re-run against the live store (spec: "every operation
// revalidates live roles"; close 4401 when access is lost, 4403 when realtime
// is switched off). Rate limiting and isolation belong to the upgrade only.
import type { Principal } from '../../auth/principal.ts';
import type { AccessResolver } from '../../canvases/access-resolver.ts';
import type { Canvas, CanvasRole } from '../../canvases/record.ts';
import type { AppContext } from '../../context.ts';
import type { Core } from '../../foundation.ts';
import type { AppError } from '../../errors.ts';
import type { RuntimePipeline } from '../pipeline.ts';
import { CLOSE } from './limits.ts';
import { previewPrincipal, previewTokenOfRequest, type PreviewDeps } from '../../drafts/preview-principal.ts';

/** What the upgrade request proved, kept to ask the same questions again later. Never logged. */
export interface SocketIdentity {
  canvasId: string;
  /** user id, or `guest:<inviteId>` */
  actorId: string;
  /** The upgrade URL and the headers that authenticate (session and guest cookies, gate pass, proxy identity). */
  url: string;
  headers: Array<[string, string]>;
  ip: string | null;
}

export type Recheck =
  | { ok: true; canvas: Canvas; role: CanvasRole; name: string }
  | { ok: false; close: typeof CLOSE.accessLost }
  | { ok: false; close: typeof CLOSE.capabilityDisabled; refusal: AppError };

const LOST = { ok: false, close: CLOSE.accessLost } as const;

/** The headers worth keeping from the upgrade request. */
export function identityHeaders(ctx: Pick<AppContext, 'config'>, request: Request): Array<[string, string]> {
  const names = ['cookie', ctx.config.proxyEmailHeader.toLowerCase(), ctx.config.proxyNameHeader.toLowerCase()];
  const kept: Array<[string, string]> = [];
  for (const name of names) {
    const value = request.headers.get(name);
    if (value !== null) kept.push([name, value]);
  }
  return kept;
}

export function actorIdOf(principal: Principal): string | null {
  if (principal.kind === 'user') return principal.user.id;
  if (principal.kind === 'guest') return `guest:${principal.inviteId}`;
  return null;
}

/** What a re-check asks: the same resolver and capability gate as the upgrade. */
export interface RecheckDeps {
  ctx: Pick<Core, 'auth' | 'canvases'> & PreviewDeps;
  access: AccessResolver;
  pipeline: RuntimePipeline;
}

export async function recheck({ ctx, access, pipeline }: RecheckDeps, id: SocketIdentity): Promise<Recheck> {
  const request = new Request(id.url, { headers: id.headers });
  // A signed-out session, a deactivated user, a revoked guest invite or an expired draft-preview token all lose the socket.
  const principal =
    (await ctx.auth.authenticate(request, id.ip)).principal ?? (await previewPrincipal(ctx, id.canvasId, previewTokenOfRequest(request)));
  if (!principal || actorIdOf(principal) !== id.actorId) return LOST;
  const canvas = await ctx.canvases.byId(id.canvasId);
  if (!canvas) return LOST;
  const { decision } = await access.resolve(request, await access.factsOf(canvas), principal);
  // Static-only means the canvas became a live Public link: its runtime API is for owners and editors.
  if (!decision.ok || decision.staticOnly) return LOST;
  const refusal = pipeline.capabilityRefusal(canvas, 'realtime');
  if (refusal) return { ok: false, close: CLOSE.capabilityDisabled, refusal };
  const name = principal.kind === 'user' ? principal.user.name : principal.kind === 'guest' ? principal.name : '';
  return { ok: true, canvas, role: decision.effectiveRole, name };
}
