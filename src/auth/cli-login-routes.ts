// GET /auth/cli (the approval page), POST /auth/cli (approve: to the CLI's
// loopback port with a one-time code) and POST /auth/cli/token (the CLI
// trades code and verifier for a personal access token). See cli-login.ts.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { refuseCrossSiteWrite } from '../http/cross-site.ts';
import { principalOf } from './guards.ts';
import { readJson } from '../http/json-body.ts';
import { escapeHtml, html, json } from '../http/respond.ts';
import { cardPage } from '../http/card-page.ts';
import { readCapped, StreamLimitError } from '../streams/capped.ts';
import { CliLogins, parseCliRequest, type CliRequest } from './cli-login.ts';
import { SIGN_IN_PAGE_HEADERS } from './routes.ts';
import type { User } from './users.ts';

const ExchangeBody = t.Object({ code: t.String({ minLength: 1, maxLength: 200 }), verifier: t.String({ minLength: 43, maxLength: 128 }) });
const FORM_MAX_BYTES = 4096;

export function cliLoginRoutes(ctx: AppContext) {
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
  return new Elysia({ name: 'cli-login' })
    .get('/auth/cli', async ({ request }) => {
      const url = new URL(request.url);
      const asked = parseCliRequest(url.searchParams);
      if (!asked) return badRequest();
      const user = await signedIn(request);
      if (!user) {
        const back = `/auth/cli?${url.searchParams}`;
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
    })
    .post(
      '/auth/cli',
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
      { parse: 'none' },
    )
    .post(
      '/auth/cli/token',
      async ({ request }) => {
        const { code, verifier } = await readJson(request, ExchangeBody, { maxBytes: 4096 });
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
        return json(
          200,
          { token: created.token, tokenId: created.id, user: { id: user.id, email: user.email, name: user.name } },
          { 'cache-control': 'no-store' },
        );
      },
      { parse: 'none' },
    );
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
