import { Type as T } from '@sinclair/typebox';
import { HOST_LABEL } from '../http/host-labels.ts';
import type { Core } from '../foundation.ts';
import { principalOf } from './guards.ts';
import { escapeHtml, html } from '../http/respond.ts';
import { cardPage } from '../http/card-page.ts';
import { declaredRoutes, publicRoute } from '../http/declared-route.ts';
import { canvasOrigin } from '../runtime/isolation.ts';
import { sessionTokenHash } from './sessions.ts';
import type { HandoffSubject } from './handoff.ts';

const STATE_HASH = /^[0-9a-f]{64}$/;
const NO_KEEPING = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' } as const;

/**
 * GET /auth/handoff?canvas={slug}&state={hash}&next={path} on the base host
 * (subdomain mode with dev or oidc sign-in): a canvas host sent the visitor
 * here to vouch for them. Signed in: 302 to the canvas host's
 * `/__easel/handoff` with a single-use code for that canvas. Not signed in:
 * to sign-in first, then back here.
 */
export function handoffRoutes(ctx: Pick<Core, 'auth' | 'canvases' | 'config' | 'guests' | 'handoffs' | 'sessions'>) {
  return declaredRoutes('auth-handoff', null, [
    publicRoute(
      {
        method: 'GET',
        path: '/auth/handoff',
        tag: 'Sign-in',
        summary: "Subdomain mode: carries a sign-in to a canvas's own host",
        query: T.Object({
          canvas: T.Optional(T.String({ description: "the canvas's slug" })),
          state: T.Optional(T.String({ description: "SHA-256 (hex) of the canvas host's state" })),
          next: T.Optional(T.String({ description: "the path to open on the canvas's host (default /)" })),
        }),
        answer: { contentType: 'text/html', description: 'redirect' },
        pages: { 400: 'the handoff link is malformed, expired or used' },
      },
      async ({ request, query }) => {
        const slug = query.canvas ?? '';
        const stateHash = query.state ?? '';
        const next = query.next ?? '/';
        if (ctx.config.urlMode !== 'subdomain' || !HOST_LABEL.test(slug) || !STATE_HASH.test(stateHash) || !next.startsWith('/')) {
          return html(400, page('This sign-in link is not valid. Open the canvas again to sign in.'), NO_KEEPING);
        }
        const canvasId = (await ctx.canvases.bySlug(slug))?.id ?? null;
        const vouched = await vouchedSubject(ctx, request, canvasId);
        if (!vouched) {
          // Back to this very link once signed in.
          const here = new URL(request.url);
          const login = `/auth/login?returnTo=${encodeURIComponent(here.pathname + here.search)}`;
          return new Response(null, { status: 302, headers: { location: login, ...NO_KEEPING } });
        }
        const code = await ctx.handoffs.issue({ ...vouched, canvasId, stateHash });
        const target = `${canvasOrigin(ctx.config, slug)}/__easel/handoff?code=${code}&next=${encodeURIComponent(next)}`;
        return new Response(null, { status: 302, headers: { location: target, ...NO_KEEPING } });
      },
    ),
  ]);
}

/**
 * Who the base host can vouch for, and the base session that vouches: a
 * user signed in with a session cookie, or a legacy guest of this very
 * canvas. Proxy sign-in needs no handoff (the proxy signs every host in).
 */
async function vouchedSubject(
  ctx: Pick<Core, 'auth' | 'config' | 'guests' | 'sessions'>,
  request: Request,
  canvasId: string | null,
): Promise<{ subject: HandoffSubject; parentHash: string } | null> {
  const principal = await principalOf(ctx, request);
  const tokens = ctx.auth.credentialTokens(request);
  if (principal?.kind === 'user' && principal.via === 'session') {
    const token = await findAsync(tokens.sessions, async (t) => {
      const s = await ctx.sessions.resolve(t);
      return s?.canvasId === null && s.user.id === principal.user.id;
    });
    if (token) return { subject: { kind: 'user', userId: principal.user.id }, parentHash: sessionTokenHash(token) };
  }
  if (principal?.kind === 'guest' && principal.canvasId === canvasId) {
    const token = await findAsync(tokens.guests, async (t) => (await ctx.guests.resolve(t))?.inviteId === principal.inviteId);
    if (token) return { subject: { kind: 'guest', inviteId: principal.inviteId }, parentHash: sessionTokenHash(token) };
  }
  return null;
}

async function findAsync<T>(items: readonly T[], test: (item: T) => Promise<boolean>): Promise<T | undefined> {
  for (const item of items) if (await test(item)) return item;
  return undefined;
}

function page(message: string): string {
  return cardPage({ title: 'Sign in', body: `<h1>Sign in</h1><p>${escapeHtml(message)}</p>` });
}
