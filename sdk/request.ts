// The one way the SDK talks HTTP: every call goes to the canvas's runtime API
// (`{apiBase}/v1/c/{slug}{path}`) with the viewer's cookies, and every
// failure becomes an EaselError.
import { EaselError, errorFromResponse, networkError, UnauthorizedError } from './errors.ts';

export interface Target {
  /** Origin of the runtime API, without a trailing slash. */
  apiBase: string;
  slug: string;
  /**
   * The editor's draft preview's token: every runtime URL carries it as
   * `easel_preview` (no session reaches the preview frame on a canvas host,
   * and sockets and <img src> cannot send a header).
   */
  preview?: string;
}

export interface RequestOptions {
  /** Sent as JSON (content-type application/json). */
  json?: unknown;
  /** Sent as is (FormData for uploads). */
  body?: BodyInit;
  /** Query parameters; undefined and null values are left out. */
  query?: Record<string, string | number | null | undefined>;
  /** Ends the request (and its connection) when aborted. */
  signal?: AbortSignal;
}

export interface Transport {
  /** Absolute URL of a runtime path (`/kv/x` → `{apiBase}/v1/c/{slug}/kv/x`). */
  url(path: string): string;
  /** The raw answer, whatever its status. Rejects with NETWORK_ERROR (status 0) when nothing came back. */
  fetch(method: string, path: string, options?: RequestOptions): Promise<Response>;
  /** The parsed JSON of a 2xx answer; any other answer rejects with its EaselError. */
  request<T>(method: string, path: string, options?: RequestOptions): Promise<T>;
}

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** `target` is resolved on first use, so a page without a canvas URL still loads the SDK. */
export function createTransport(target: () => Target, fetchImpl: FetchLike = (input, init) => fetch(input, init)): Transport {
  const url = (path: string, query?: RequestOptions['query']): string => {
    const { apiBase, slug, preview } = target();
    let u = `${apiBase}/v1/c/${encodeURIComponent(slug)}${path}`;
    const params = new URLSearchParams();
    if (preview) params.set('easel_preview', preview);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null) params.set(k, String(v));
    const qs = params.toString();
    if (qs) u += `?${qs}`;
    return u;
  };

  const send = async (method: string, path: string, options: RequestOptions = {}): Promise<Response> => {
    const headers: Record<string, string> = {};
    let body = options.body;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      try {
        body = JSON.stringify(options.json);
      } catch (err) {
        // A BigInt or a cycle: refused like any body the server would refuse, not as a bare TypeError.
        throw new EaselError('INVALID_BODY', 400, `the value is not JSON: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    const init: RequestInit = { method, headers, body, credentials: 'include', redirect: 'manual', signal: options.signal };
    let res: Response;
    try {
      res = await fetchImpl(url(path, options.query), init);
    } catch (err) {
      if (err instanceof EaselError) throw err;
      throw networkError(err);
    }
    // A redirect (oidc mode sends people without a session to the sign-in page) means "sign in first".
    if (res.type === 'opaqueredirect' || (res.status >= 300 && res.status < 400)) {
      throw new UnauthorizedError('UNAUTHORIZED', 401, 'sign in first');
    }
    return res;
  };

  return {
    url: (path) => url(path),
    fetch: send,
    async request<T>(method: string, path: string, options?: RequestOptions): Promise<T> {
      const res = await send(method, path, options);
      if (!res.ok) throw await errorFromResponse(res);
      try {
        return (await res.json()) as T;
      } catch {
        throw new EaselError('MALFORMED_RESPONSE', res.status, 'the server answered something that is not JSON');
      }
    },
  };
}
