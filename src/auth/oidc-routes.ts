import { Elysia } from 'elysia';
import type { AppContext } from '../context.ts';
import { cookieValues, serializeCookie } from '../http/cookies.ts';
import { metaOf } from '../http/meta.ts';
import { escapeHtml, html } from '../http/respond.ts';
import { cardPage } from '../http/card-page.ts';
import { oidcBrowserCookieName, secureCookies } from './cookie-names.ts';
import { safeReturnTo } from './login-page.ts';
import { OidcSignInError, type OidcSignIn } from './oidc.ts';

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
export function oidcRoutes(ctx: AppContext, oidc: OidcSignIn) {
  const secure = secureCookies(ctx.config);
  const cookieName = oidcBrowserCookieName(ctx.config);
  return new Elysia({ name: 'auth-oidc' })
    .get('/auth/login', async ({ request }) => {
      const params = new URL(request.url).searchParams;
      // A path here, or a canvas host of this instance (the way back from "sign in as someone else" on one).
      const returnTo = safeReturnTo(params.get('returnTo'), ctx.config);
      // "Sign in as someone else": the provider asks which account instead of reusing its session.
      const { url, browser } = await oidc.begin(returnTo, { selectAccount: params.get('switch') === '1' });
      metaOf(request).cookies.push(serializeCookie(cookieName, browser, { maxAgeSeconds: BROWSER_COOKIE_SECONDS, secure }));
      return new Response(null, { status: 302, headers: { ...NO_KEEPING, location: url } });
    })
    .get('/auth/callback', async ({ request }) => {
      const meta = metaOf(request);
      meta.cookies.push(serializeCookie(cookieName, '', { maxAgeSeconds: 0, secure }));
      try {
        const signedIn = await oidc.finish(new URL(request.url).searchParams, cookieValues(request.headers.get('cookie'), cookieName));
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
    });
}

function refusedPage(message: string): string {
  return cardPage({
    title: 'Sign-in failed',
    code: 'SIGN_IN_REFUSED',
    body: `<h1>Sign-in failed</h1><p>${escapeHtml(message)}</p><p><a href="/auth/login">Sign in again</a></p>`,
  });
}
