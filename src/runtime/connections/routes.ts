// GET, HEAD, POST, PUT, PATCH, DELETE /v1/c/{slug}/connections/{profile}/{relative-path}?query
// Runs the runtime pipeline (capability `connections`: some profile is usable
// on this canvas), then the Connection itself (src/connections/proxy.ts).
import type { ConnectionsFeature } from '../../connections/feature.ts';
import { proxyConnection } from '../../connections/proxy.ts';
import { clientResponse } from '../../connections/response-shape.ts';
import type { Core } from '../../foundation.ts';
import { AppError, type ErrorCode } from '../../errors.ts';
import { declaredRoutes } from '../../http/declared-route.ts';
import type { AuthKinds } from '../../server/auth-kinds.ts';
import { readBytesCapped } from '../../http/read-capped.ts';
import { splitUrl } from '../../http/url-path.ts';
import { runtimeRoute } from '../door-routes.ts';
import type { RuntimeCaller } from '../pipeline.ts';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The Connection's own refusals (src/connections/proxy.ts, upstream.ts, resolver.ts), on either route. */
const ERRORS: ErrorCode[] = [
  'PERMISSION_DENIED',
  'CONNECTION_PATH_INVALID',
  'CONNECTION_URL_TOO_LONG',
  'CONNECTION_HEADERS_TOO_LARGE',
  'BODY_TOO_LARGE',
  'CONNECTION_TIMEOUT',
  'CONNECTION_UPSTREAM_UNREACHABLE',
  'CONNECTION_DNS_FAILED',
  'CONNECTION_ADDRESS_REFUSED',
  'CONNECTION_TLS_FAILED',
  'CONNECTION_TOO_MANY_REDIRECTS',
  'CONNECTION_REDIRECT_REFUSED',
  'CONNECTION_ENCODING_REFUSED',
  'CONNECTION_RESPONSE_TOO_LARGE',
];

const PASSED_ON = { contentType: 'application/octet-stream', description: 'passed to the upstream (none on GET)', optional: true };

export function connectionRoutes(
  ctx: Pick<Core, 'config' | 'connections' | 'events' | 'log'>,
  auth: AuthKinds,
  connections: ConnectionsFeature,
) {
  // The profile segment arrives as null when its escapes are malformed.
  const handle = async ({ caller, params, request }: { caller: RuntimeCaller; params: { profile: string | null }; request: Request }) => {
    const profile = params.profile;
    if (!profile || !(METHODS as readonly string[]).includes(request.method)) throw new AppError('NOT_FOUND', 'no such route');
    const answer = await proxyConnection(
      ctx,
      connections,
      {
        canvasId: caller.canvas.id,
        connectionsAudience: caller.canvas.connectionsAudience,
        runtimePolicy: caller.canvas.runtimePolicy,
        actorId: caller.actorId,
        role: caller.role,
        kind: caller.kind,
      },
      {
        profile,
        method: request.method,
        suffix: rawSuffix(request.url),
        query: rawQuery(request.url),
        headers: request.headers,
        readBody: (max) => readBody(request, max),
        signal: request.signal,
      },
    );
    return clientResponse(answer, request.method);
  };
  // `all` rather than one route per method: Elysia answers HEAD on a GET
  // route itself, measuring the body (0 here) over the upstream's length.
  // Preflight OPTIONS stays with the runtime's own, method-specific route.
  return declaredRoutes('runtime-connections', auth, [
    runtimeRoute(
      {
        method: 'ALL',
        path: '/v1/c/:slug/connections/:profile',
        doorOption: 'connections',
        summary: 'Call a Connection (the approved origin, with its protected headers)',
        body: PASSED_ON,
        answer: {
          contentType: 'application/octet-stream',
          description: "the upstream's answer, marked X-Easel-Connection-Response: upstream",
        },
        errors: ERRORS,
      },
      handle,
    ),
    runtimeRoute(
      {
        method: 'ALL',
        path: '/v1/c/:slug/connections/:profile/*',
        doorOption: 'connections',
        summary: 'Call a Connection with a path under its origin',
        body: PASSED_ON,
        answer: { contentType: 'application/octet-stream', description: "the upstream's answer" },
        errors: ERRORS,
      },
      handle,
    ),
  ]);
}

/**
 * The path past /v1/c/{slug}/connections/{profile}/, exactly as sent (still
 * percent-encoded): it is forwarded to the upstream, never decoded here.
 */
function rawSuffix(url: string): string {
  const { path } = splitUrl(url);
  // path = /v1/c/{slug}/connections/{profile}[/{suffix}]: the suffix starts after the sixth slash.
  let at = 0;
  for (let i = 0; i < 6; i++) {
    at = path.indexOf('/', at) + 1;
    if (at === 0) return '';
  }
  return path.slice(at);
}

function rawQuery(url: string): string | null {
  const q = url.indexOf('?');
  return q < 0 ? null : url.slice(q + 1);
}

/** The body as bytes (null when there is none): BODY_TOO_LARGE past the cap, checked while reading. */
async function readBody(request: Request, maxBytes: number): Promise<Uint8Array | null> {
  if (!request.body) return null;
  const bytes = await readBytesCapped(request, maxBytes);
  if (bytes === null) throw new AppError('BODY_TOO_LARGE', `the request body may be at most ${maxBytes / 1024} KiB`);
  return bytes;
}
