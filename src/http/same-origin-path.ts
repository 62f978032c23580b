// Where a redirect after sign-in or the password gate may go: somewhere under
// a root URL of this instance, never another host. The check is the URL
// parser's, the same one browsers use, so what it accepts is where the
// browser would really land: `/\t/evil.example` (tabs, CR and LF are
// dropped), `/\evil.example` (a backslash is a slash), `/.//evil.example`
// (dot segments collapse to `//evil.example`) and their percent-encoded
// forms resolve to another host, and are refused. Hand-written prefix checks
// on the raw string missed each of these.

/** Control characters (tab, CR, LF…) and backslashes: a real target never has them, so it is refused outright. */
const SUSPICIOUS = /[\u0000-\u001f\u007f\\]/;

export function suspiciousTarget(target: string): boolean {
  return SUSPICIOUS.test(target);
}

/**
 * The path, query and fragment of `target` resolved against `root` (an
 * absolute URL ending in "/"), when it lands on the root's origin under the
 * root's path; null otherwise. Only the path is returned, so the redirect
 * stays relative to the host it is served from.
 */
export function pathWithin(target: string | null | undefined, root: string): string | null {
  if (!target || SUSPICIOUS.test(target)) return null;
  let base: URL;
  let url: URL;
  try {
    base = new URL(root);
    url = new URL(target, base);
  } catch {
    return null;
  }
  if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname)) return null;
  // `//host` as a Location or a link is another host, whatever origin it was resolved against.
  if (url.pathname.startsWith('//')) return null;
  return url.pathname + url.search + url.hash;
}

/**
 * Where the gate sends the visitor back: a path inside this canvas (`base`
 * on `origin`, the canvas's own), else its root. `next` is resolved by the
 * URL parser and compared by origin and path (above).
 */
export function safeNext(next: string | null, base: string, origin: string): string {
  return pathWithin(next, origin + base) ?? base;
}
