import { Elysia } from 'elysia';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { dashboardFiles, type StaticFile } from './assets.ts';

/** Files under public/ are served at /assets/<name>; index.html is the page at /. */
export const ASSETS_PREFIX = '/assets/';

/** The dashboard talks only to its own origin and is never framed. */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
};

/**
 * The dashboard shell: GET / and its static files. It owns only `/` and
 * `/assets/*`, so it never shadows /api, /auth, /v1, /c, /sdk or /healthz.
 * The page itself is public; what it shows comes from /api/* with the
 * visitor's session.
 */
export function dashboardRoutes(_ctx: AppContext, files: Map<string, StaticFile> = dashboardFiles()) {
  const send = (file: StaticFile | undefined): Response => {
    if (!file) throw new AppError('NOT_FOUND', 'no such file');
    return new Response(Bun.file(file.path), {
      headers: { 'content-type': file.type, 'cache-control': 'no-cache', ...SECURITY_HEADERS },
    });
  };
  return new Elysia({ name: 'dashboard' })
    .get('/', () => send(files.get('index.html')))
    .get(`${ASSETS_PREFIX}*`, ({ params }) => send(files.get(params['*'])));
}
