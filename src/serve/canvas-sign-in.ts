import { handoffStateCookieName, secureCookies } from '../auth/cookie-names.ts';
import { guestCookie } from '../auth/guests.ts';
import type { Core } from '../foundation.ts';
import { cookieValues, serializeCookie } from '../http/cookies.ts';
import { metaOf } from '../http/meta.ts';
import { sha256Hex } from '../ids.ts';
import { html } from '../http/respond.ts';
import { canvasOrigin } from '../runtime/isolation.ts';
import { refusalPage } from './pages.ts';
import { safeNext } from '../http/same-origin-path.ts';

const CODE = /^[0-9A-Za-z]{43}$/;
const STATE = /^[0-9A-Za-z]{32}$/;
/** Long enough to sign in on the base host in between. */
const STATE_MAX_AGE_SECONDS = 15 * 60;
const NO_KEEPING = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' } as const;

export type CanvasSignInDeps = Pick<Core, 'config' | 'handoffs' | 'sessions' | 'guests' | 'auth' | 'canvases' | 'log'>;

/**
 * A canvas host's side of the sign-in handoff (subdomain mode, dev or oidc
 * sign-in). `begin` keeps a state in a host-only cookie and sends the
 * visitor to the base host, which answers with a code at `exchange`; only a
 * code made for this canvas, within a minute, once, for the browser holding
 * the state, becomes this host's own session (the base host's never reaches
 * here).
 */
export class CanvasSignIn {
  private readonly stateCookie: string;
  private readonly secure: boolean;

  constructor(private readonly ctx: CanvasSignInDeps) {
    this.stateCookie = handoffStateCookieName(ctx.config);
    this.secure = secureCookies(ctx.config);
  }

  /** 302 to the base host's /auth/handoff; `next` is the path to come back to on this host. */
  begin(request: Request, slug: string, next: string, headers: Record<string, string>): Response {
    // One state per browser: several tabs signing in at once all finish.
    const kept = cookieValues(request.headers.get('cookie'), this.stateCookie).find((v) => STATE.test(v));
    const { state, stateHash } = kept ? { state: kept, stateHash: sha256Hex(kept) } : this.ctx.handoffs.newState();
    metaOf(request).cookies.push(serializeCookie(this.stateCookie, state, { maxAgeSeconds: STATE_MAX_AGE_SECONDS, secure: this.secure }));
    const location = `${this.ctx.config.baseUrl}/auth/handoff?canvas=${slug}&state=${stateHash}&next=${encodeURIComponent(next)}`;
    return new Response(null, { status: 302, headers: { ...headers, ...NO_KEEPING, location } });
  }

  /** `GET /__easel/handoff?code=…&next=…`: this host's session, then 303 to `next` on this host. */
  async exchange(request: Request, slug: string, query: string, headers: Record<string, string>): Promise<Response> {
    const params = new URLSearchParams(query);
    const code = params.get('code') ?? '';
    const canvasId = (await this.ctx.canvases.bySlug(slug))?.id ?? null;
    const states = cookieValues(request.headers.get('cookie'), this.stateCookie);
    const handoff = CODE.test(code) ? await this.ctx.handoffs.redeem(code, canvasId, states) : null;
    if (!handoff) return html(400, refusalPage('HANDOFF_INVALID'), { ...headers, ...NO_KEEPING });
    if (handoff.canvasId === null) return html(404, refusalPage('NOT_FOUND'), { ...headers, ...NO_KEEPING });
    const meta = metaOf(request);
    if (handoff.subject.kind === 'user') {
      const token = await this.ctx.sessions.create(handoff.subject.userId, { canvasId: handoff.canvasId, parentHash: handoff.parentHash });
      meta.cookies.push(this.ctx.auth.sessionCookie(token));
    } else {
      meta.cookies.push(guestCookie(this.ctx.config, await this.ctx.guests.createSession(handoff.subject, handoff.parentHash)));
    }
    meta.cookies.push(serializeCookie(this.stateCookie, '', { maxAgeSeconds: 0, secure: this.secure }));
    this.ctx.log.info('canvas host sign-in', { canvasId: handoff.canvasId, kind: handoff.subject.kind });
    const location = safeNext(params.get('next'), '/', canvasOrigin(this.ctx.config, slug));
    return new Response(null, { status: 303, headers: { ...headers, ...NO_KEEPING, location } });
  }
}
