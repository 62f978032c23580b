import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { declaredRoutes, publicRoute } from '../http/declared-route.ts';
import { securityHeaders } from '../dashboard/routes.ts';
import { docPages, INDEX_PAGE } from './pages.ts';
import { renderPage } from './render.ts';

/**
 * GET /docs and /docs/<page>: the documentation, rendered from the same
 * Markdown as docs/ (embedded in the binary; no network). Served to anyone,
 * like /llms.txt and /openapi.json: it describes the product and holds
 * nothing of this instance.
 */
export function docsRoutes(ctx: Pick<AppContext, 'config'>, pages: Map<string, string> = docPages()) {
  const rendered = new Map<string, string>();
  const send = (name: string): Response => {
    const markdown = pages.get(name);
    if (markdown === undefined) throw new AppError('NOT_FOUND', 'no such documentation page');
    let html = rendered.get(name);
    if (html === undefined) rendered.set(name, (html = renderPage(markdown)));
    return new Response(html, {
      headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', ...securityHeaders(ctx.config) },
    });
  };
  const page = (description: string) => ({ contentType: 'text/html', description });
  return declaredRoutes('docs', null, [
    publicRoute(
      {
        method: 'GET',
        path: '/docs',
        tag: 'SDK and dashboard',
        summary: "The documentation's index",
        answer: page('the documentation index'),
      },
      () => send(INDEX_PAGE),
    ),
    publicRoute(
      {
        method: 'GET',
        path: '/docs/:page',
        tag: 'SDK and dashboard',
        summary: 'One page of the documentation',
        answer: page('a documentation page'),
        errors: ['NOT_FOUND'],
      },
      ({ params }) => send(params.page),
    ),
  ]);
}
