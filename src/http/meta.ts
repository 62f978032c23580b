// Per-request facts the fetch wrapper learns before Elysia runs (request id,
// client address, start time) and headers a handler wants added afterwards
// (a renewed session cookie). Kept on the Request object itself.

export interface RequestMeta {
  id: string;
  ip: string | null;
  start: number;
  /** Set-Cookie values to append to whatever response the request ends with. */
  cookies: string[];
  /** Headers to add to whatever response the request ends with (the runtime pipeline's CORS headers; list headers merge). */
  headers: Record<string, string> | null;
  /**
   * Who is asking, once authenticated: a slot src/auth/guards.ts (principalOf)
   * alone reads and writes, typed there (transport knows nothing of
   * principals). A pending lookup is kept as its promise, so callers asking
   * while it runs share it.
   */
  principal?: unknown;
  /**
   * An answer built with this request's id and `X-Content-Type-Options:
   * nosniff` among its own headers (a canvas file's ready header set): the
   * wrapper, which sets both on every other answer, adds to this one only
   * what the request still asks for (cookies, extra headers). Reading a
   * Response's headers and setting one on them was ~1 µs of a page view's
   * ~20 µs over loopback; setting the id on the ready set before the
   * Response copies it, ~0.4 µs. Any other Response still gets both set.
   */
  finishedIn?: Response | null;
}

/**
 * A symbol-keyed property rather than a WeakMap keyed by the Request: every
 * request is looked up several times, and a property is about half the cost
 * of a WeakMap entry. Nothing outside this file can see or set it.
 */
const META = Symbol('easel.requestMeta');
type WithMeta = Request & { [META]?: RequestMeta };

export function attachMeta(request: Request, meta: RequestMeta): void {
  (request as WithMeta)[META] = meta;
}

export function metaOf(request: Request): RequestMeta {
  let meta = (request as WithMeta)[META];
  if (!meta) {
    meta = { id: 'unknown', ip: null, start: performance.now(), cookies: [], headers: null };
    (request as WithMeta)[META] = meta;
  }
  return meta;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFrom(request: Request, generate: () => string): string {
  const given = request.headers.get('x-request-id');
  return given && REQUEST_ID.test(given) ? given : generate();
}
