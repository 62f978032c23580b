// Per-request facts the fetch wrapper learns before Elysia runs (request id,
// client address, start time) and headers a handler wants added afterwards
// (a renewed session cookie). Keyed by the Request object itself.

export interface RequestMeta {
  id: string;
  ip: string | null;
  start: number;
  /** Set-Cookie values to append to whatever response the request ends with. */
  cookies: string[];
  /** Headers to add to whatever response the request ends with (the runtime pipeline's CORS headers; list headers merge). */
  headers: Record<string, string> | null;
}

const metas = new WeakMap<Request, RequestMeta>();

export function attachMeta(request: Request, meta: RequestMeta): void {
  metas.set(request, meta);
}

export function metaOf(request: Request): RequestMeta {
  let meta = metas.get(request);
  if (!meta) {
    meta = { id: 'unknown', ip: null, start: performance.now(), cookies: [], headers: null };
    metas.set(request, meta);
  }
  return meta;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFrom(request: Request, generate: () => string): string {
  const given = request.headers.get('x-request-id');
  return given && REQUEST_ID.test(given) ? given : generate();
}
