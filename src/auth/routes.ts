import { Elysia } from 'elysia';
import type { AppContext } from '../context.ts';
import type { Core } from '../foundation.ts';
import { AppError } from '../errors.ts';
import { refuseCrossSiteWrite } from '../http/cross-site.ts';
import { declaredRoutes, publicRoute } from '../http/declared-route.ts';
import { metaOf } from '../http/meta.ts';
import { html } from '../http/respond.ts';
import { devLoginPage, proxyLoginPage, safeReturnTo } from './login-page.ts';
import { DevLoginBody, LoginQuery, LogoutAnswer, SignedInUser } from './model.ts';
import type { OidcSignIn } from './oidc.ts';
import { oidcRoutes } from './oidc-routes.ts';
import { EMAIL } from './users.ts';

/** The sign-in pages may not be framed by anyone (clickjacking a sign-in form), nor kept. */
export const SIGN_IN_PAGE_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy': "frame-ancestors 'none'",
  'x-frame-options': 'DENY',
} as const;

/** Sign-in and sign-out; in oidc mode `oidc` answers /auth/login and /auth/callback. */
export function authRoutes(
  ctx: Pick<Core, 'auth' | 'config' | 'events' | 'guests' | 'log' | 'sessions' | 'users'>,
  oidc: OidcSignIn | null,
) {
  const dev = ctx.config.authMode === 'dev';
  return (
    new Elysia({ name: 'auth-routes' })
      .use(oidc ? oidcRoutes(ctx, oidc) : loginPageRoute(ctx))
      // Registered only in dev mode, so elsewhere the route does not exist at all (404 whatever the body).
      .use(declaredRoutes('auth-sign-in', null, [...(dev ? [devLoginRoute(ctx)] : []), logoutRoute(ctx, oidc)]))
  );
}

function loginPageRoute(ctx: Pick<AppContext, 'config'>) {
  return declaredRoutes('auth-login-page', null, [
    publicRoute(
      {
        method: 'GET',
        path: '/auth/login',
        tag: 'Sign-in',
        summary: 'The sign-in page (dev form, OIDC redirect or proxy notice)',
        query: LoginQuery,
        answer: { contentType: 'text/html', description: 'sign-in page' },
      },
      ({ query }) => {
        const returnTo = safeReturnTo(query.returnTo, ctx.config);
        if (ctx.config.authMode === 'dev') return html(200, devLoginPage(returnTo), SIGN_IN_PAGE_HEADERS);
        return html(200, proxyLoginPage(), SIGN_IN_PAGE_HEADERS);
      },
    ),
  ]);
}

function devLoginRoute(ctx: Pick<Core, 'auth' | 'config' | 'log' | 'sessions' | 'users'>) {
  return publicRoute(
    {
      method: 'POST',
      path: '/auth/dev/login',
      tag: 'Sign-in',
      summary: 'Dev mode: sign in as anyone (404 in other modes)',
      body: DevLoginBody,
      bodyOptions: { maxBytes: 4096 },
      answer: SignedInUser,
      errors: ['CROSS_SITE_FORBIDDEN', 'INVALID_BODY', 'unauthorized'],
    },
    {
      // Nor sign them in as someone else; the body is JSON only (readJson), never a form another site can post.
      check: ({ request }) => refuseCrossSiteWrite(ctx.config, request),
      handle: async ({ request, body }) => {
        const email = body.email.trim();
        if (!EMAIL.test(email)) throw new AppError('INVALID_BODY', 'email: not an email address');
        const user = await ctx.users.ensure(email, body.name);
        if (!user.active) throw new AppError('unauthorized');
        const token = await ctx.sessions.create(user.id);
        metaOf(request).cookies.push(ctx.auth.sessionCookie(token));
        ctx.log.info('sign-in', { userId: user.id, mode: 'dev' });
        return { id: user.id, email: user.email, name: user.name };
      },
    },
  );
}

function logoutRoute(ctx: Pick<Core, 'auth' | 'config' | 'events' | 'guests' | 'sessions'>, oidc: OidcSignIn | null) {
  return publicRoute(
    {
      method: 'POST',
      path: '/auth/logout',
      tag: 'Sign-in',
      summary: 'End the session',
      answer: LogoutAnswer,
      errors: ['CROSS_SITE_FORBIDDEN'],
    },
    async ({ request }) => {
      // A page of another site must not sign the visitor out (login CSRF's twin).
      refuseCrossSiteWrite(ctx.config, request);
      // Canvas hosts' sessions made from these end with them.
      const { sessions: tokens, guests: guestTokens } = ctx.auth.credentialTokens(request);
      for (const token of tokens) await ctx.sessions.destroy(token);
      // A legacy guest signs out the same way.
      for (const token of guestTokens) await ctx.guests.destroySession(token);
      metaOf(request).cookies.push(ctx.auth.clearedSessionCookie(), ctx.auth.clearedGuestCookie());
      if (tokens.length > 0 || guestTokens.length > 0) ctx.events.emit('session.ended', {});
      // The provider's own session ends too when it offers a way: the dashboard goes there next.
      const endSessionUrl = oidc?.endSessionUrl() ?? null;
      return endSessionUrl ? { ok: true as const, endSessionUrl } : { ok: true as const };
    },
  );
}
