// What a canvas gets back from an upstream (spec "Connections rules" 3-4): the
// status and body unchanged, only headers that describe the content, and our
// own marking. Everything else (cookies, redirects, CORS, server
// identification, caching, auth challenges, hop-by-hop) stays behind.
import type { UpstreamAnswer } from './upstream.ts';

/**
 * Kept because they describe the body the canvas reads. Left out on purpose:
 * cache headers (we send no-store), `vary`, `www-authenticate` (a browser
 * would show a login prompt on the canvas's behalf), `link` (preloads).
 */
export const KEPT_RESPONSE_HEADERS = [
  'content-type',
  'content-language',
  'content-disposition',
  'content-range',
  'accept-ranges',
  'etag',
  'last-modified',
  'retry-after',
] as const;

export const UPSTREAM_MARK = 'x-easel-connection-response';

/** Kept headers a cross-origin script cannot read unless they are exposed (the rest are CORS-safelisted). */
const EXPOSED = ['content-disposition', 'content-range', 'accept-ranges', 'etag', 'retry-after'];

/** The upstream's answer as the canvas sees it. Platform failures never get UPSTREAM_MARK. */
export function clientResponse(answer: UpstreamAnswer, method: string): Response {
  const headers = new Headers();
  for (const name of KEPT_RESPONSE_HEADERS) {
    const value = answer.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  // A HEAD answer has no body of its own to measure: the upstream's length is the information.
  const length = answer.headers.get('content-length');
  if (method === 'HEAD' && length !== null && /^\d+$/.test(length)) headers.set('content-length', length);
  headers.set(UPSTREAM_MARK, 'upstream');
  // In subdomain mode the API is another origin: the SDK must be able to read the mark (and the kept headers).
  headers.set('access-control-expose-headers', [UPSTREAM_MARK, ...EXPOSED].join(', '));
  headers.set('cache-control', 'no-store');
  headers.set('x-content-type-options', 'nosniff');
  headers.set('content-security-policy', 'sandbox');
  return new Response(answer.body as Uint8Array<ArrayBuffer> | null, { status: answer.status, headers });
}
