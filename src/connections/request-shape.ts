// What a canvas may send through a Connection (spec "Connections rules" 1-2):
// a relative path that stays under the approved origin, and its own headers
// minus credentials, forwarding, host, compression, hop-by-hop and
// browser-context headers. Protected headers are applied after this.
import { AppError } from '../errors.ts';

const STRIPPED = new Set([
  // credentials of the caller's session with us
  'cookie',
  'cookie2',
  'authorization',
  // forwarding: the upstream learns nothing about the path the request took
  'forwarded',
  'x-real-ip',
  'via',
  'true-client-ip',
  'cf-connecting-ip',
  'x-client-ip',
  'x-cluster-client-ip',
  // host and body framing: ours to set
  'host',
  'content-length',
  // compression: we ask for identity and refuse anything else
  'accept-encoding',
  // hop-by-hop
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  'http2-settings',
  // the browser context of the canvas page
  'origin',
  'referer',
  // method and URL overrides: an upstream framework honouring them would run
  // another method or path than the one the policy and the grant approved
  'x-http-method-override',
  'x-http-method',
  'x-method-override',
  'x-original-url',
  'x-rewrite-url',
  'x-original-method',
]);
const STRIPPED_PREFIXES = ['proxy-', 'x-forwarded-', 'sec-'];

/** Header names a protected header may not take: they would change where or how the request is framed. */
export const RESERVED_PROTECTED = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'http2-settings',
  'accept-encoding',
]);

export function isReservedProtectedHeader(name: string): boolean {
  return RESERVED_PROTECTED.has(name) || name.startsWith('proxy-');
}

/**
 * The caller's headers that go upstream. `alsoStrip` holds the identity
 * headers of proxy sign-in (they may be named anything). Limits count what is
 * left after stripping, as `name: value\r\n` bytes: a browser's cookies do not
 * count against a Connection. A name sent several times arrives combined into
 * one field (RFC 9110 §5.3) and counts once, with all its bytes.
 */
export function outboundHeaders(incoming: Headers, alsoStrip: string[], limits: { maxHeaders: number; maxHeaderBytes: number }): Headers {
  const hopByHop = new Set(
    (incoming.get('connection') ?? '')
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );
  const extra = new Set(alsoStrip.map((s) => s.toLowerCase()));
  const out = new Headers();
  let count = 0;
  let bytes = 0;
  for (const [name, value] of incoming) {
    if (STRIPPED.has(name) || hopByHop.has(name) || extra.has(name) || STRIPPED_PREFIXES.some((p) => name.startsWith(p))) continue;
    count++;
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value) + 4;
    out.append(name, value);
  }
  if (count > limits.maxHeaders) {
    throw new AppError(
      'CONNECTION_HEADERS_TOO_LARGE',
      `at most ${limits.maxHeaders} headers may be sent through a Connection (got ${count})`,
      { maxHeaders: limits.maxHeaders, maxBytes: limits.maxHeaderBytes },
    );
  }
  if (bytes > limits.maxHeaderBytes) {
    throw new AppError(
      'CONNECTION_HEADERS_TOO_LARGE',
      `headers sent through a Connection may total ${limits.maxHeaderBytes / 1024} KiB (got ${bytes} bytes)`,
      { maxHeaders: limits.maxHeaders, maxBytes: limits.maxHeaderBytes },
    );
  }
  out.set('accept-encoding', 'identity');
  return out;
}

/**
 * The path and query to request on `origin`, from the raw (percent-encoded)
 * suffix after `/connections/{profile}/` and the raw query. An empty suffix
 * means `/`. Refused: a suffix starting with `/` (`//host` would name an
 * authority), backslashes, control characters, and `.`/`..` segments, all
 * judged after percent-decoding. The result is then parsed against the
 * origin and must still have exactly that origin. `@` and `:` are ordinary
 * path characters (RFC 3986 pchar): with the origin fixed in front they
 * cannot reach the authority, which the final origin check proves.
 */
export function relativeTarget(origin: string, rawSuffix: string, rawQuery: string | null, maxUrlBytes: number): string {
  const length = Buffer.byteLength(rawSuffix) + (rawQuery === null ? 0 : 1 + Buffer.byteLength(rawQuery));
  if (length > maxUrlBytes) throw new AppError('CONNECTION_URL_TOO_LONG', `the relative URL may be at most ${maxUrlBytes / 1024} KiB`);
  const invalid = (why: string) => new AppError('CONNECTION_PATH_INVALID', `the relative path ${why}`);
  if (rawSuffix.startsWith('/')) throw invalid('may not start with a slash');
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawSuffix);
  } catch {
    throw invalid('has malformed percent-encoding');
  }
  for (const text of [rawSuffix, decoded]) {
    if (text.includes('\\')) throw invalid('may not contain a backslash');
    if (/[\u0000-\u001f\u007f]/.test(text)) throw invalid('may not contain control characters');
    if (text.split('/').some((s) => s === '.' || s === '..')) throw invalid('may not contain . or .. segments');
  }
  if (decoded.startsWith('/')) throw invalid('may not start with a slash');
  if (rawQuery !== null && /[#\u0000-\u001f\u007f]/.test(rawQuery))
    throw new AppError('CONNECTION_PATH_INVALID', 'the query may not contain # or control characters');
  const base = new URL(origin);
  const url = new URL(`/${rawSuffix}${rawQuery === null ? '' : `?${rawQuery}`}`, base);
  if (url.origin !== base.origin || url.username !== '' || url.password !== '') throw invalid('leaves the approved origin');
  return url.pathname + url.search;
}
