// GET, HEAD, POST, PUT, PATCH, DELETE /v1/c/{slug}/connections/{profile}/{relative-path}?query
// Runs the runtime pipeline (capability `connections`: some profile is usable
// on this canvas), then the Connection itself (src/connections/proxy.ts).
import { Elysia } from 'elysia';
import type { ConnectionsFeature } from '../../connections/feature.ts';
import { proxyConnection } from '../../connections/proxy.ts';
import { clientResponse } from '../../connections/response-shape.ts';
import type { AppContext } from '../../context.ts';
import type { RuntimeCore } from '../core.ts';
import { AppError } from '../../errors.ts';
import { readBytesCapped } from '../../http/read-capped.ts';
import { rawSegments, safeDecode } from '../runtime-request.ts';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export function connectionRoutes(ctx: AppContext, runtime: RuntimeCore, connections: ConnectionsFeature) {
  const handle = ({ request }: { request: Request }) => {
    const { slug, rest } = rawSegments(request, 'connections');
    const slash = rest.indexOf('/');
    const rawProfile = slash < 0 ? rest : rest.slice(0, slash);
    const suffix = slash < 0 ? '' : rest.slice(slash + 1);
    return runtime.pipeline.handle(request, slug, { capability: 'connections' }, async (caller) => {
      const profile = safeDecode(rawProfile);
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
          suffix,
          query: rawQuery(request.url),
          headers: request.headers,
          readBody: (max) => readBody(request, max),
          signal: request.signal,
        },
      );
      return clientResponse(answer, request.method);
    });
  };
  // One `all` route rather than one per method: Elysia answers HEAD on a GET
  // route itself, measuring the body (0 here) over the upstream's length.
  // Preflight OPTIONS stays with the runtime's own, method-specific route.
  return new Elysia({ name: 'runtime-connections' }).all('/v1/c/:slug/connections/*', handle, { parse: 'none' });
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
