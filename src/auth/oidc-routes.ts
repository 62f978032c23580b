import { Type as T } from '@sinclair/typebox';
import type { Core } from '../foundation.ts';
import { cookieValues, serializeCookie } from '../http/cookies.ts';
import { metaOf } from '../http/meta.ts';
import { escapeHtml, html } from '../http/respond.ts';
import { cardPage } from '../http/card-page.ts';
import { declaredRoutes, publicRoute } from '../http/declared-route.ts';
import { oidcBrowserCookieName, secureCookies } from './cookie-names.ts';
import { safeReturnTo } from './login-page.ts';
import { OidcSignInError, type OidcSignIn } from './oidc.ts';
import { LoginQuery } from './model.ts';

const NO_KEEPING = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "frame-ancestors 'none'",
} as const;
/** The browser binding lives as long as a sign-in may take. */
const BROWSER_COOKIE_SECONDS = 10 * 60;

/**
 * oidc mode: GET /auth/login sends the browser to the provider (returnTo
 * kept, same-origin only); GET /auth/callback finishes there: the ID token
 * checked, the person found or created by email, the session cookie, then
 * back to returnTo. Every refusal is a page that says what happened.
 */
/** The provider's answer on the callback, as RFC 6749 §4.1.2 and RFC 9207 name it (described here; the route checks it whole). */
const CallbackQuery = T.Object({
  code: T.Optional(T.String({ description: 'the authorization code' })),
  state: T.Optional(T.String({ description: 'the sign-in this answers' })),
  iss: T.Optional(T.String({ description: 'the issuer, when the provider says it' })),
  error: T.Optional(T.String({ description: 'the provider refused (access_denied, …)' })),
});

export function oidcRoutes(ctx: Pick<Core, 'auth' | 'config' | 'log' | 'sessions' | 'users'>, oidc: OidcSignIn) {
  const secure = secureCookies(ctx.config);
  const cookieName = oidcBrowserCookieName(ctx.config);
  return declaredRoutes('auth-oidc', null, [
    publicRoute(
      {
        method: 'GET',
        path: '/auth/login',
        tag: 'Sign-in',
        summary: 'The sign-in page (dev form, OIDC redirect or proxy notice)',
        query: T.Composite([
          LoginQuery,
          T.Object({ switch: T.Optional(T.String({ description: '1: "sign in as someone else", the provider asks which account' })) }),
        ]),
        answer: { status: 302, contentType: 'none', description: 'to the identity provider' },
        authMode: 'oidc',
      },
      async ({ request, query }) => {
        // A path here, or a canvas host of this instance (the way back from "sign in as someone else" on one).
        const returnTo = safeReturnTo(query.returnTo, ctx.config);
        // "Sign in as someone else": the provider asks which account instead of reusing its session.
        const { url, browser } = await oidc.begin(returnTo, { selectAccount: query.switch === '1' });
        metaOf(request).cookies.push(serializeCookie(cookieName, browser, { maxAgeSeconds: BROWSER_COOKIE_SECONDS, secure }));
        return new Response(null, { status: 302, headers: { ...NO_KEEPING, location: url } });
      },
    ),
    publicRoute(
      {
        method: 'GET',
        path: '/auth/callback',
        tag: 'Sign-in',
        summary: 'OIDC: the identity provider returns here',
        query: CallbackQuery,
        answer: { contentType: 'text/html', description: 'redirect' },
        pages: {
          400: 'the sign-in was refused: the provider said no, the link expired or was used, another browser, an unverifiable or incomplete identity, a deactivated account',
          502: 'the provider could not be reached',
        },
        authMode: 'oidc',
      },
      async ({ request }) => {
        const meta = metaOf(request);
        meta.cookies.push(serializeCookie(cookieName, '', { maxAgeSeconds: 0, secure }));
        try {
          // Every parameter the provider sent goes to the token check as it came (openid-client compares iss, state and more).
          const sent = new URL(request.url).searchParams;
          const signedIn = await oidc.finish(sent, cookieValues(request.headers.get('cookie'), cookieName));
          // Admin groups follow the provider: what it says at this sign-in replaces what it said at the last.
          const user = await ctx.users.setAdminGroups(await ctx.users.ensure(signedIn.email, signedIn.name), signedIn.adminGroups);
          if (!user.active) throw new OidcSignInError('This account is deactivated on Easel. Ask an administrator.');
          meta.cookies.push(ctx.auth.sessionCookie(await ctx.sessions.create(user.id)));
          ctx.log.info('sign-in', { userId: user.id, mode: 'oidc' });
          return new Response(null, { status: 303, headers: { ...NO_KEEPING, location: signedIn.returnTo } });
        } catch (err) {
          if (!(err instanceof OidcSignInError)) throw err;
          ctx.log.warn('oidc sign-in refused', { reason: err.message });
          return html(err.status, refusedPage(err.message), NO_KEEPING);
        }
      },
    ),
  ]);
}

function refusedPage(message: string): string {
  return cardPage({
    title: 'Sign-in failed',
    code: 'SIGN_IN_REFUSED',
    body: `<h1>Sign-in failed</h1><p>${escapeHtml(message)}</p><p><a href="/auth/login">Sign in again</a></p>`,
  });
}
