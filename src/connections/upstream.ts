// The outbound leg of a Connection: resolve and check the name, connect to
// the checked address while TLS verifies the approved host name (BUN-NOTES
// "Outbound HTTPS pinned to a checked address"), follow same-origin
// redirects ourselves (never fetch's `follow`, which goes anywhere), and read
// the body under the cap. Every failure is an AppError with a CONNECTION_*
// code; the caller's deadline arrives through `signal`.
import { AppError } from '../errors.ts';
import { readCapped, untilAborted } from '../streams/capped.ts';
import type { HttpMethod } from '../policy/document.ts';
import { urlHostOf } from '../net/ip.ts';
import { resolveChecked, type Pins, type Resolver } from './resolver.ts';

/** Bun's fetch options we rely on, spelled out (the connector is injectable). */
export interface ConnectorInit {
  method: string;
  headers: Headers;
  body: Uint8Array | null;
  redirect: 'manual';
  decompress: false;
  signal: AbortSignal;
  tls: { servername: string; ca?: string[] };
}

export type Connector = (url: string, init: ConnectorInit) => Promise<Response>;

export const bunConnector: Connector = (url, init) => fetch(url, init as RequestInit);

export interface EgressDeps {
  resolver: Resolver;
  connector: Connector;
  pins: Pins;
  /** Trusted CAs when EASEL_CONNECTIONS_CA_FILE is set (Bun's defaults plus the file); undefined = Bun's defaults. */
  ca: string[] | undefined;
  onAddressRefused: (hostname: string, address: string, range: string) => void;
}

export interface OutboundRequest {
  /** The profile's normalized origin. */
  origin: string;
  method: HttpMethod;
  /** Path and query, starting with `/`. */
  target: string;
  headers: Headers;
  body: Uint8Array | null;
}

export interface UpstreamAnswer {
  status: number;
  headers: Headers;
  /** null for HEAD and bodiless statuses. */
  body: Uint8Array | null;
  redirects: number;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const BODYLESS_STATUSES = new Set([204, 205, 304]);
/** Failures that happen before anything was sent: the next address may be tried. */
const CONNECT_FAILURES = new Set([
  'ECONNREFUSED',
  'ConnectionRefused',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'HostUnreachable',
  'NetworkUnreachable',
]);
/** Headers that describe a request body: dropped when a redirect turns the request into a GET. */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];

export async function sendUpstream(
  deps: EgressDeps,
  request: OutboundRequest,
  limits: { maxRedirects: number; maxResponseBytes: number },
  signal: AbortSignal,
): Promise<UpstreamAnswer> {
  const origin = new URL(request.origin);
  const port = Number(origin.port || 443);
  let method: string = request.method;
  let body = request.body;
  const headers = new Headers(request.headers);
  headers.set('host', origin.host);
  let target = request.target;
  for (let redirects = 0; ;) {
    const checked = await untilAborted(
      resolveChecked(origin.hostname, port, deps.resolver, deps.pins, (address, range) =>
        deps.onAddressRefused(origin.hostname, address, range),
      ),
      signal,
    );
    const response = await connect(deps, checked.addresses, port, target, {
      method,
      headers,
      body,
      redirect: 'manual',
      decompress: false,
      signal,
      tls: tlsOf(deps, origin.hostname),
    });
    const location = response.headers.get('location');
    if (REDIRECT_STATUSES.has(response.status) && location !== null) {
      await response.body?.cancel().catch(() => {});
      const next = sameOriginTarget(location, new URL(target, origin));
      if (redirects >= limits.maxRedirects) {
        throw new AppError('CONNECTION_TOO_MANY_REDIRECTS', `the upstream redirected more than ${limits.maxRedirects} times`);
      }
      redirects++;
      // As fetch does: 303 (and 301/302 after a POST) continue as GET without the body.
      if ((response.status === 303 && method !== 'HEAD') || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        method = 'GET';
        body = null;
        for (const h of BODY_HEADERS) headers.delete(h);
      }
      target = next;
      continue;
    }
    return { ...(await answerOf(response, method, limits.maxResponseBytes, signal)), redirects };
  }
}

function tlsOf(deps: EgressDeps, hostname: string): ConnectorInit['tls'] {
  // SNI and certificate checks use the approved name; a trailing dot is not part of a certificate's names.
  const servername = hostname.replace(/\.$/, '');
  return deps.ca ? { servername, ca: deps.ca } : { servername };
}

/** The redirect's path and query when it stays on the exact origin; CONNECTION_REDIRECT_REFUSED otherwise. */
function sameOriginTarget(location: string, current: URL): string {
  let next: URL;
  try {
    next = new URL(location, current);
  } catch {
    throw new AppError('CONNECTION_REDIRECT_REFUSED', 'the upstream redirected to an invalid location');
  }
  if (next.origin !== current.origin || next.username !== '' || next.password !== '') {
    throw new AppError(
      'CONNECTION_REDIRECT_REFUSED',
      'the upstream redirected to another origin; Connections follow redirects on the same origin only',
    );
  }
  return next.pathname + next.search;
}

async function connect(deps: EgressDeps, addresses: string[], port: number, target: string, init: ConnectorInit): Promise<Response> {
  for (let i = 0; ; i++) {
    try {
      return await deps.connector(`https://${urlHostOf(addresses[i]!)}:${port}${target}`, init);
    } catch (err) {
      if (init.signal.aborted) throw init.signal.reason;
      const code = errorCode(err);
      if (CONNECT_FAILURES.has(code) && i + 1 < addresses.length) continue;
      throw failure(code);
    }
  }
}

function errorCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

function failure(code: string): AppError {
  if (/TLS|CERT|SSL|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|HOSTNAME|ALTNAME/i.test(code)) {
    return new AppError('CONNECTION_TLS_FAILED', `the upstream's TLS certificate was not accepted (${code})`);
  }
  return new AppError('CONNECTION_UPSTREAM_UNREACHABLE', `the upstream could not be reached${code ? ` (${code})` : ''}`);
}

async function answerOf(
  response: Response,
  method: string,
  maxBytes: number,
  signal: AbortSignal,
): Promise<Omit<UpstreamAnswer, 'redirects'>> {
  const refuse = async (err: AppError) => {
    await response.body?.cancel().catch(() => {});
    return err;
  };
  if (response.status < 200 || response.status > 599)
    throw await refuse(new AppError('CONNECTION_UPSTREAM_UNREACHABLE', `the upstream answered an invalid status (${response.status})`));
  const encoding = (response.headers.get('content-encoding') ?? '').trim().toLowerCase();
  if (encoding !== '' && encoding !== 'identity') {
    throw await refuse(
      new AppError('CONNECTION_ENCODING_REFUSED', 'the upstream answered with a content encoding; Connections accept identity only'),
    );
  }
  if (method === 'HEAD' || BODYLESS_STATUSES.has(response.status)) {
    await response.body?.cancel().catch(() => {});
    return { status: response.status, headers: response.headers, body: null };
  }
  const tooLarge = () => new AppError('CONNECTION_RESPONSE_TOO_LARGE', `the upstream response is over ${maxBytes / 1024 / 1024} MiB`);
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > maxBytes) throw await refuse(tooLarge());
  return { status: response.status, headers: response.headers, body: await readBody(response, maxBytes, signal, tooLarge) };
}

/** Reads the body counting bytes, stopping (and cancelling) past the cap; aborts with the deadline. */
async function readBody(response: Response, maxBytes: number, signal: AbortSignal, tooLarge: () => AppError): Promise<Uint8Array> {
  try {
    return await readCapped(response.body, maxBytes, { signal, tooLarge });
  } catch (err) {
    if (err instanceof AppError || signal.aborted) throw err instanceof AppError ? err : signal.reason;
    throw new AppError('CONNECTION_UPSTREAM_UNREACHABLE', 'the upstream connection failed while sending the body');
  }
}
