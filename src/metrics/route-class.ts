// The label a request is counted under: a small fixed set (never a path or a
// slug, which would make one series per canvas), with the runtime API split
// by primitive so KV, files and collections operations read apart.

import { pathStartOf } from '../http/url-path.ts';

const RUNTIME_PRIMITIVES = new Set(['me', 'kv', 'files', 'ai', 'connections', 'submissions', 'collections', 'authoring', 'realtime']);
/** The method labels; anything else is `other` (the last index). */
export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'other'] as const;

export function methodIndex(method: string): number {
  const i = (METHODS as readonly string[]).indexOf(method);
  return i < 0 ? METHODS.length - 1 : i;
}

/**
 * `canvasHostSuffix` is `.{EASEL_CANVAS_HOST}` in subdomain mode (null in
 * path mode): every other path on such a host is one of the canvas's pages.
 * Reads the URL in place (no substring per request: this runs on every one).
 */
export function routeClassOf(url: string, host: string | null, canvasHostSuffix: string | null): string {
  const at = pathStartOf(url);
  if (url[at] !== '/') return 'dashboard';
  const is = (prefix: string) => url.startsWith(prefix, at);
  const isExactly = (path: string) => is(path) && (url.length === at + path.length || url[at + path.length] === '?');
  if (is('/v1/c/')) {
    const slugEnd = url.indexOf('/', at + 6);
    if (slugEnd < 0) return 'runtime_other';
    let end = slugEnd + 1;
    while (end < url.length && url[end] !== '/' && url[end] !== '?') end++;
    const primitive = url.slice(slugEnd + 1, end);
    return RUNTIME_PRIMITIVES.has(primitive) ? `runtime_${primitive}` : 'runtime_other';
  }
  if (is('/v1/canvases')) return 'deploy';
  if (is('/sdk/')) return 'sdk';
  if (canvasHostSuffix !== null && host !== null && host.split(':')[0]!.toLowerCase().endsWith(canvasHostSuffix)) return 'page';
  if (is('/c/')) return 'page';
  if (is('/api/admin/')) return 'admin';
  if (is('/api/')) return 'api';
  if (is('/auth/')) return 'auth';
  if (isExactly('/mcp')) return 'mcp';
  if (isExactly('/healthz')) return 'health';
  if (isExactly('/metrics')) return 'metrics';
  if (isExactly('/openapi.json') || isExactly('/llms.txt')) return 'docs';
  return 'dashboard';
}
