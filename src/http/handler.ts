import type { Server } from 'bun';
import type { Logger } from '../log.ts';
import { addHeaders } from './add-headers.ts';
import { BODY_STALL_MS, pacedRequest } from './body-pace.ts';
import { attachMeta, requestIdFrom, type RequestMeta } from './meta.ts';
import { newRequestId } from './request-id.ts';
import { json } from './respond.ts';
import { pathEndOf, pathStartOf } from './url-path.ts';
import type { Maybe } from '../sync-first.ts';

/**
 * Where Elysia's router starts looking for the path in request.url
 * (`handler.standardHostname: false` in src/app.ts): just past `http://`.
 * Everything else here reads the path from the URL itself.
 */
export const ROUTER_PATH_OFFSET = 'http://'.length;

export type FetchHandler = (request: Request, server?: Server<unknown> | null) => Promise<Response>;

/**
 * What Bun.serve calls: the answer itself when the app has it at once (a
 * signed-in page view from memory), a promise otherwise. A returned Response
 * spares a promise, its microtask turns and Bun's wait on it per request.
 */
export type ServeHandler = (request: Request, server?: Server<unknown> | null) => Maybe<Response>;

/**
 * Wraps the app's handler with what every request gets: a request id (taken
 * from X-Request-Id when sane), the client address, cookies queued by
 * handlers, `X-Content-Type-Options: nosniff` on the answer, one JSON log line with method, path, status and duration,
 * and the same to `observe` (metrics).
 * The query string is never logged: it can carry tokens.
 * Synchronous when `inner` answers at once; a throw (sync or async) reaches
 * the server's last-resort error handler either way.
 */
export function wrapHandler(
  inner: (request: Request) => Maybe<Response>,
  log: Logger,
  /** Told every answer and its time (metrics). */
  observe: (request: Request, status: number, seconds: number) => void = () => {},
  bodyStallMs: number = BODY_STALL_MS,
): ServeHandler {
  return (original, server) => {
    const start = performance.now();
    const id = requestIdFrom(original, newRequestId);
    // On a real server a body is read under the stall rule instead of Bun's idle timer (body-pace.ts);
    // most requests (page views) have none, and skip the wrapper objects.
    const paced =
      server && original.body !== null
        ? pacedRequest(original, server, bodyStallMs, () => log.warn('request body stalled', { requestId: id, method: original.method }))
        : null;
    const request = paced?.request ?? original;
    // The client address is known for the request Bun made, not for a copy.
    const meta = new WrappedMeta(original, server, id, start);
    attachMeta(request, meta);
    // Debug only: lets a test (or an operator) see that a slow request has reached the app.
    // Checked first: its fields object was built on every request, at every level.
    if (log.debugs) log.debug('request started', { requestId: id, method: request.method });
    const url = request.url;
    const pathStart = pathStartOf(url);
    const answer = url.indexOf('/', ROUTER_PATH_OFFSET) === pathStart ? inner(request) : unroutable();
    const finish = (response: Response): Response => {
      paced?.settle();
      // A canvas file's answer was built with the id and nosniff (meta.finishedIn): touched only for cookies or extra headers.
      const finished = response === meta.finishedIn;
      try {
        if (!finished || meta.cookies.length > 0 || meta.headers !== null) finishHeaders(response.headers, id, meta, finished);
      } catch {
        // Some responses carry immutable headers: copy once (a copy keeps what the answer already had).
        const headers = new Headers(response.headers);
        finishHeaders(headers, id, meta, finished);
        response = new Response(response.body, { status: response.status, statusText: response.statusText, headers });
      }
      const elapsedMs = performance.now() - start;
      observe(request, response.status, elapsedMs / 1000);
      log.request(id, request.method, url.slice(pathStart, pathEndOf(url, pathStart)), response.status, elapsedMs);
      return response;
    };
    return answer instanceof Promise ? answer.then(finish) : finish(answer);
  };
}

/** The promise form of a ServeHandler (in-process callers): a synchronous throw becomes a rejection, as from an async function. */
export function promised(handler: ServeHandler): FetchHandler {
  return (request, server) => {
    try {
      return Promise.resolve(handler(request, server));
    } catch (err) {
      return Promise.reject(err);
    }
  };
}

/**
 * A URL the router would read another path from than the one it names.
 * Bun's plain-http server never makes one (any Host length is fine); an
 * `https://` request URL would be one, so it is refused rather than misrouted.
 */
function unroutable(): Response {
  return json(400, { code: 'INVALID_REQUEST', message: 'this server routes http:// request URLs only (terminate TLS in front of it)' });
}

function finishHeaders(headers: Headers, id: string, meta: RequestMeta, finished: boolean): void {
  if (!finished) {
    headers.set('x-request-id', id);
    // Every answer has the type it says: no browser may sniff JSON (or an error page, or a canvas file) into HTML or script.
    headers.set('x-content-type-options', 'nosniff');
  }
  for (const c of meta.cookies) headers.append('set-cookie', c);
  if (meta.headers) addHeaders(headers, meta.headers);
}

/**
 * The client address is looked up on first use: most requests (a canvas
 * page with a session) never ask, and the lookup was a tenth of a page
 * view's CPU time. A class (the getter on its prototype): an object literal
 * with a getter is a new shape to build per request.
 */
class WrappedMeta implements RequestMeta {
  cookies: string[] = [];
  headers: Record<string, string> | null = null;
  principal: unknown = undefined;
  finishedIn: Response | null = null;
  private address: string | null | undefined = undefined;

  constructor(
    private readonly request: Request,
    private readonly server: Server<unknown> | null | undefined,
    readonly id: string,
    readonly start: number,
  ) {}

  get ip(): string | null {
    if (this.address === undefined) this.address = this.server?.requestIP(this.request)?.address ?? null;
    return this.address;
  }
}
