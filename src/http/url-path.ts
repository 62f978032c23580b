// The path and query of a request URL, read in place. `request.url` is always
// absolute (`scheme://authority/path?query`), and the page path reads it on
// every request, so this is a few indexOf calls rather than `new URL`.

/**
 * Where the path starts: the first `/` after `scheme://`. When the URL has no
 * path (`http://host`, `http://host?q`), where the query starts, or its length.
 */
export function pathStartOf(url: string): number {
  const authority = url.indexOf('//');
  const from = authority < 0 ? 0 : authority + 2;
  const slash = url.indexOf('/', from);
  const query = url.indexOf('?', from);
  if (query >= 0 && (slash < 0 || query < slash)) return query;
  return slash < 0 ? url.length : slash;
}

/** Where the path that starts at `start` ends: at the query, or the URL's end. */
export function pathEndOf(url: string, start: number): number {
  const q = url.indexOf('?', start);
  return q < 0 ? url.length : q;
}

/** Path (still percent-encoded; `/` when the URL has none) and query (with its `?`, or ''). */
export function splitUrl(url: string): { path: string; query: string } {
  const start = pathStartOf(url);
  const end = pathEndOf(url, start);
  return { path: start < end ? url.slice(start, end) : '/', query: url.slice(end) };
}

/** The path, still percent-encoded, without the query; `/` when the URL has none. */
export function urlPath(url: string): string {
  return splitUrl(url).path;
}

/** The authority (`host[:port]`, with any userinfo) between `scheme://` and the path. */
export function authorityOf(url: string): string {
  return url.slice(url.indexOf('//') + 2, pathStartOf(url));
}
