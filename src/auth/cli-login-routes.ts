// GET /auth/cli (the approval page), POST /auth/cli (approve: to the CLI's
// loopback port with a one-time code) and POST /auth/cli/token (the CLI
// trades code and verifier for a personal access token). See cli-login.ts.
import { Type as T } from '@sinclair/typebox';
import type { Core } from '../foundation.ts';
import { AppError } from '../errors.ts';
import { refuseCrossSiteWrite } from '../http/cross-site.ts';
import { principalOf } from './guards.ts';
import { declaredRoutes, publicRoute } from '../http/declared-route.ts';
import { escapeHtml, html } from '../http/respond.ts';
import { cardPage } from '../http/card-page.ts';
import { readCapped, StreamLimitError } from '../streams/capped.ts';
import { CliLogins, parseCliRequest, type CliRequest } from './cli-login.ts';
import { CliExchangeBody, CliTokenAnswer } from './model.ts';
import { SIGN_IN_PAGE_HEADERS } from './routes.ts';
import type { User } from './users.ts';

const FORM_MAX_BYTES = 4096;

/** The approval page's query (cli-login.ts parseCliRequest checks it). */
const CliQuery = T.Object({
  port: T.Optional(T.String({ description: "the CLI's loopback port" })),
  state: T.Optional(T.String({ description: 'echoed back' })),
  challenge: T.Optional(T.String({ description: 'base64url SHA-256 of the verifier' })),
  name: T.Optional(T.String({ description: 'the token name' })),
});

export function cliLoginRoutes(ctx: Pick<Core, 'audit' | 'auth' | 'config' | 'now' | 'sql' | 'tokens' | 'users'>) {
  const logins = new CliLogins(ctx.sql, ctx.now);
  const badRequest = () =>
    html(
      400,
      page('This sign-in link is not valid', '<p>Run <code>easel login</code> again from your terminal.</p>'),
      SIGN_IN_PAGE_HEADERS,
    );
  const signedIn = async (request: Request): Promise<User | null> => {
    const p = await principalOf(ctx, request);
    return p?.kind === 'user' ? p.user : null;
  };
  return declaredRoutes('cli-login', null, [
    publicRoute(
      {
        method: 'GET',
        path: '/auth/cli',
        tag: 'Sign-in',
        summary: '`easel login`: the page where a signed-in person approves the CLI',
        query: CliQuery,
        answer: { contentType: 'text/html', description: 'approval page, or a redirect to sign in' },
        pages: { 400: 'the parameters are missing or malformed' },
      },
      async ({ request, query }) => {
        const asked = parseCliRequest(searchParamsOf(query));
        if (!asked) return badRequest();
        const user = await signedIn(request);
        if (!user) {
          // Back to this very page once signed in.
          const back = `/auth/cli?${new URL(request.url).searchParams}`;
          return new Response(null, {
            status: 302,
            headers: { location: `/auth/login?returnTo=${encodeURIComponent(back)}`, 'cache-control': 'no-store' },
          });
        }
        // The approval form's answer goes on to the CLI waiting on a loopback port.
        return html(200, approvalPage(user, asked), {
          ...SIGN_IN_PAGE_HEADERS,
          'content-security-policy': "frame-ancestors 'none'; form-action 'self' http://127.0.0.1:*",
        });
      },
    ),
    publicRoute(
      {
        method: 'POST',
        path: '/auth/cli',
        tag: 'Sign-in',
        summary: "Approve (or cancel): 303 to the CLI's loopback port with a one-time code",
        body: { contentType: 'application/x-www-form-urlencoded', description: 'port, state, challenge, name, decision' },
        answer: { status: 303, contentType: 'none', description: 'to http://127.0.0.1:{port}/callback' },
        errors: ['unauthorized', 'CROSS_SITE_FORBIDDEN'],
        pages: { 400: 'the form is missing fields, malformed or over 4 KiB' },
      },
      async ({ request }) => {
        refuseCrossSiteWrite(ctx.config, request);
        const user = await signedIn(request);
        if (!user) throw new AppError('unauthorized');
        // Read only up to the cap: the approval form is four short fields.
        const bytes = await readCapped(request.body, FORM_MAX_BYTES).catch((err: unknown) => {
          if (err instanceof StreamLimitError) return null;
          throw err;
        });
        if (bytes === null) return badRequest();
        const form = new URLSearchParams(new TextDecoder().decode(bytes));
        const asked = parseCliRequest(form);
        if (!asked) return badRequest();
        const back = new URL(`http://127.0.0.1:${asked.port}/callback`);
        back.searchParams.set('state', asked.state);
        if (form.get('decision') === 'allow') back.searchParams.set('code', await logins.approve(user.id, asked));
        else back.searchParams.set('error', 'denied');
        return new Response(null, { status: 303, headers: { location: back.href, 'cache-control': 'no-store' } });
      },
    ),
    publicRoute(
      {
        method: 'POST',
        path: '/auth/cli/token',
        tag: 'Sign-in',
        summary: 'The CLI trades the code and its verifier for a personal access token',
        body: CliExchangeBody,
        bodyOptions: { maxBytes: 4096 },
        answer: CliTokenAnswer,
        headers: { 'cache-control': 'no-store' },
        errors: ['INVALID_BODY', 'INVALID_REQUEST'],
      },
      async ({ body: { code, verifier } }) => {
        const grant = await logins.exchange(code, verifier);
        const user = grant ? await ctx.users.byId(grant.userId) : null;
        if (!grant || !user?.active)
          throw new AppError('INVALID_REQUEST', 'this sign-in code is unknown, used or expired: run easel login again');
        const created = await ctx.tokens.create(user.id, grant.name, null);
        await ctx.audit.record({
          actorId: user.id,
          actorKind: 'user',
          canvasId: null,
          action: 'token.create',
          detail: { tokenId: created.id, via: 'cli' },
        });
        return { token: created.token, tokenId: created.id, user: { id: user.id, email: user.email, name: user.name } };
      },
    ),
  ]);
}

/** The query's parameters that were sent, for parseCliRequest (absent ones stay absent). */
function searchParamsOf(query: Record<string, string | undefined>): URLSearchParams {
  return new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined));
}

function approvalPage(user: User, asked: CliRequest): string {
  const hidden = (name: string, value: string | number) => `<input type="hidden" name="${name}" value="${escapeHtml(String(value))}">`;
  return page(
    'Sign in the Easel CLI?',
    `<p>A command line on this computer asks to act as <strong>${escapeHtml(user.email)}</strong>: to list, create, deploy and roll back your canvases.</p>
<p>Allowing it creates a personal access token named <strong>${escapeHtml(asked.name)}</strong>, which you can revoke in the dashboard under Tokens.</p>
<p class="warn">Only allow this if you just ran <code>easel login</code> yourself.</p>
<form method="post" action="/auth/cli">${hidden('port', asked.port)}${hidden('state', asked.state)}${hidden('challenge', asked.challenge)}${hidden('name', asked.name)}
<button name="decision" value="allow" id="allow">Allow</button> <button name="decision" value="deny" id="deny" class="secondary">Cancel</button></form>`,
  );
}

function page(title: string, body: string): string {
  return cardPage({ title, body: `<h1>${escapeHtml(title)}</h1>${body}`, wide: true });
}
