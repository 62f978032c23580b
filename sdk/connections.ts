// easel.connections.fetch(profile, path, init) → a Response (CONTRACT §6).
// The upstream's answer comes back as a Response whatever its status (a 404
// or 500 from the upstream is data, not an SDK error); the platform's own
// refusals and failures (no grant, not allowed, limits, DNS, TLS, timeout, …)
// reject with an EaselError carrying their code. The two are told apart by
// the X-Easel-Connection-Response header, which only upstream answers carry.
import { EaselError, errorFromResponse, networkError, UnauthorizedError } from './errors.ts';

export const UPSTREAM_MARK = 'x-easel-connection-response';

export interface ConnectionInit {
  /** GET (default), HEAD, POST, PUT, PATCH or DELETE: the profile and the canvas policy decide which are allowed. */
  method?: string;
  /** Sent to the upstream, minus cookies, authorization, forwarding and hop-by-hop headers (at most 32, 16 KiB). */
  headers?: HeadersInit;
  /** At most 256 KiB; ignored for GET and HEAD. */
  body?: BodyInit | null;
  signal?: AbortSignal;
}

export interface ConnectionsApi {
  /**
   * The upstream's answer as a Response, whatever its status; the platform's own refusals reject with an EaselError.
   * `path` is relative to the profile's origin and may carry a query
   * (`'v1/items?limit=10'`; one leading `/` is allowed). Encode path segments
   * yourself (encodeURIComponent) when they hold `/`, `?` or `#`.
   */
  fetch(profile: string, path?: string, init?: ConnectionInit): Promise<Response>;
}

export interface ConnectionsDeps {
  /** Absolute URL of a runtime path (`/connections/x` → `{apiBase}/v1/c/{slug}/connections/x`). */
  url(path: string): string;
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
}

export function createConnections(deps: ConnectionsDeps): ConnectionsApi {
  const send = deps.fetch ?? ((input: string, init: RequestInit) => fetch(input, init));
  return {
    async fetch(profile, path = '', init = {}) {
      if (typeof profile !== 'string' || profile === '')
        throw new EaselError('INVALID_BODY', 400, 'connections.fetch: name a Connection profile');
      if (typeof path !== 'string') throw new EaselError('INVALID_BODY', 400, 'connections.fetch: the path is a string');
      const method = (init.method ?? 'GET').toUpperCase();
      const relative = path.startsWith('/') ? path.slice(1) : path;
      const url = deps.url(`/connections/${encodeURIComponent(profile)}/${relative}`);
      let res: Response;
      try {
        res = await send(url, {
          method,
          headers: init.headers,
          body: method === 'GET' || method === 'HEAD' ? undefined : init.body,
          signal: init.signal,
          credentials: 'include',
          redirect: 'manual',
        });
      } catch (err) {
        if (init.signal?.aborted) throw err;
        throw networkError(err);
      }
      // Upstream redirects are followed on the server; a redirect here is the sign-in page (oidc mode).
      if (res.type === 'opaqueredirect') throw new UnauthorizedError('UNAUTHORIZED', 401, 'sign in first');
      if (res.headers.get(UPSTREAM_MARK) === 'upstream' || res.ok) return res;
      throw await errorFromResponse(res);
    },
  };
}
