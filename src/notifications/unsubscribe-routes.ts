// GET and POST /notifications/unsubscribe?t=… (unsubscribe.ts): the page an
// email's "Stop these emails" link opens, and what its button (or a mail
// program's one-click List-Unsubscribe POST, RFC 8058) does. The token is the
// whole credential: no session, no Origin check (mail programs post from
// their own servers), no body read. A GET changes nothing, because link
// scanners open every link of a message.
import { Type as T } from '@sinclair/typebox';
import type { Core } from '../foundation.ts';
import { declaredRoutes, publicRoute } from '../http/declared-route.ts';
import { escapeHtml, html } from '../http/respond.ts';
import { cardPage } from '../http/card-page.ts';
import type { PreferenceStore } from './preferences.ts';
import { readUnsubscribe, UNSUBSCRIBE_PATH, whatItStops, type Unsubscribe } from './unsubscribe.ts';

const Query = T.Object({ t: T.Optional(T.String({ description: "the token of the email's link" })) });

const HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy': "frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  // The token is in this page's address: links out of it must not carry it along.
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex',
};

const page = (title: string, body: string, code?: string) =>
  cardPage({ title, body: `<h1>${escapeHtml(title)}</h1>${body}`, ...(code ? { code } : {}) });

export function unsubscribeRoutes(ctx: Pick<Core, 'canvases' | 'config' | 'instanceSecret' | 'users'>, prefs: PreferenceStore) {
  /** The link's choice and the words for it, or null when the link is not one this server made (or its person is gone). */
  const resolve = async (token: string | undefined): Promise<{ u: Unsubscribe; email: string; stops: string } | null> => {
    const u = token === undefined ? null : readUnsubscribe(ctx.instanceSecret, token);
    const user = u ? await ctx.users.byId(u.userId) : null;
    if (!u || !user) return null;
    const canvas = u.kind === 'submissions' ? await ctx.canvases.byId(u.canvasId) : null;
    return { u, email: user.email, stops: whatItStops(u, canvas?.title ?? null) };
  };
  const invalid = () =>
    html(
      404,
      page(
        'This link is not valid',
        `<p>It may have been copied only in part. Choose which emails you get in the dashboard: <a href="${escapeHtml(ctx.config.baseUrl)}/">${escapeHtml(ctx.config.baseUrl)}</a>.</p>`,
        'UNSUBSCRIBE_LINK_INVALID',
      ),
      HEADERS,
    );
  const pages = { 404: 'the link is not one this server made, or its person is gone' };

  return declaredRoutes('unsubscribe', null, [
    publicRoute(
      {
        method: 'GET',
        path: UNSUBSCRIBE_PATH,
        tag: 'Management',
        summary: 'An email\'s "Stop these emails" link: asks before it stops anything',
        query: Query,
        answer: { contentType: 'text/html', description: 'the question, with a button that posts it' },
        pages,
      },
      async ({ query }) => {
        const found = await resolve(query.t);
        if (!found) return invalid();
        const action = `${UNSUBSCRIBE_PATH}?t=${encodeURIComponent(query.t!)}`;
        return html(
          200,
          page(
            'Stop these emails?',
            `<p>Stop sending ${escapeHtml(found.email)} ${escapeHtml(found.stops)}?</p>` +
              `<form method="post" action="${escapeHtml(action)}"><button type="submit">Stop these emails</button></form>` +
              '<p class="muted">Other emails are not changed. You can turn these back on in the dashboard.</p>',
            'UNSUBSCRIBE_ASK',
          ),
          HEADERS,
        );
      },
    ),
    publicRoute(
      {
        method: 'POST',
        path: UNSUBSCRIBE_PATH,
        tag: 'Management',
        summary: "Stop the emails the link names (its button, or a mail program's one-click unsubscribe)",
        query: Query,
        body: { contentType: 'application/x-www-form-urlencoded', description: 'ignored (mail programs send List-Unsubscribe=One-Click)' },
        answer: { contentType: 'text/html', description: 'done, in words' },
        pages,
      },
      async ({ query }) => {
        const found = await resolve(query.t);
        if (!found) return invalid();
        const { u } = found;
        await prefs.change(
          u.userId,
          u.kind === 'submissions' ? { kinds: {}, submissions: { [u.canvasId]: 'off' } } : { kinds: { [u.kind]: false }, submissions: {} },
        );
        return html(
          200,
          page(
            'Stopped',
            `<p>${escapeHtml(found.email)} gets no more ${escapeHtml(found.stops)}.</p>` +
              `<p class="muted">To turn them back on, or to stop others, choose in the dashboard: <a href="${escapeHtml(ctx.config.baseUrl)}/">${escapeHtml(ctx.config.baseUrl)}</a>.</p>`,
            'UNSUBSCRIBED',
          ),
          HEADERS,
        );
      },
    ),
  ]);
}
