// GET /v1/c/{slug}/realtime on Bun's native WebSocket (not Elysia's ws):
// the full runtime pipeline runs before the upgrade and a refusal answers
// with its HTTP error; realtime switched off is the exception (CONTRACT §9):
// the socket opens, hears CAPABILITY_DISABLED and is closed with 4403.
// Handlers travel in the upgrade's `data` (server/listener.ts dispatches
// open/message/close to `ws.data`, Elysia's convention).
import type { Server } from 'bun';
import type { AppContext } from '../../context.ts';
import { AppError, malformedHandshake } from '../../errors.ts';
import { metaOf } from '../../http/meta.ts';
import { renderError } from '../../http/on-error.ts';
import { safeDecode } from '../runtime-request.ts';
import { identityHeaders, type SocketIdentity } from './access.ts';
import { frames } from './frames.ts';
import type { RuntimePipeline } from '../pipeline.ts';
import { type Connection, type RealtimeHub, type RealtimeSocket, type SocketStart } from './hub.ts';
import { CLOSE } from './limits.ts';
import { urlPath } from '../../http/url-path.ts';

interface SocketData {
  open(ws: RealtimeSocket): void;
  message(ws: RealtimeSocket, message: string | Buffer): void;
  close(ws: RealtimeSocket, code: number, reason: string): void;
  hub: RealtimeHub;
  identity: SocketIdentity;
  initial: SocketStart;
  /** Set when realtime is off for the canvas: what the CAPABILITY_DISABLED frame says. */
  refusal: AppError | null;
  conn: Connection | null;
}

const dataOf = (ws: RealtimeSocket) => ws.data as SocketData;

/** The socket handlers, carried in each upgrade's data. */
export const realtimeHandlers: Pick<SocketData, 'open' | 'message' | 'close'> = {
  open(ws) {
    const data = dataOf(ws);
    if (data.refusal !== null) {
      ws.send(frames.capabilityDisabled(data.refusal));
      ws.close(CLOSE.capabilityDisabled, 'realtime is switched off for this canvas');
      return;
    }
    data.conn = data.hub.open(ws, data.identity, data.initial);
  },
  message(ws, message) {
    const data = dataOf(ws);
    if (data.conn) data.hub.message(data.conn, message);
  },
  close(ws, code) {
    const data = dataOf(ws);
    if (data.conn) data.hub.closed(data.conn, code);
  },
};

const REALTIME_PATH = /^\/v1\/c\/([^/]+)\/realtime$/;

export interface RealtimeUpgrade {
  /** Remembers the server whose topics carry the fan-out (the same one for every request). */
  bind(server: Server<unknown>): void;
  /** The answer for GET /v1/c/{slug}/realtime, or null for any other request. */
  handle(request: Request): Promise<Response> | null;
}

export function realtimeUpgrade(ctx: Pick<AppContext, 'config' | 'log'>, hub: RealtimeHub, pipeline: RuntimePipeline): RealtimeUpgrade {
  let server: Server<unknown> | null = null;

  const accept = async (request: Request, slug: string): Promise<Response> => {
    const { caller, headers } = await pipeline.run(request, slug, { capability: 'realtime', skipCapability: true });
    try {
      checkSocketOrigin(ctx, request);
      const refusal = pipeline.capabilityRefusal(caller.canvas, 'realtime');
      const isUpgrade = request.headers.get('upgrade')?.toLowerCase() === 'websocket';
      if (!isUpgrade || !server) {
        if (refusal) throw refusal;
        throw new AppError(
          'UPGRADE_REQUIRED',
          'this route is a WebSocket: send an upgrade request',
          {},
          { headers: { upgrade: 'websocket' } },
        );
      }
      const data: SocketData = {
        ...realtimeHandlers,
        hub,
        identity: {
          canvasId: caller.canvas.id,
          actorId: caller.actorId,
          url: request.url,
          headers: identityHeaders(ctx, request),
          ip: metaOf(request).ip,
        },
        initial: { role: caller.role, name: caller.actorName, published: caller.canvas.currentVersionId !== null },
        refusal,
        conn: null,
      };
      // A renewed session cookie rides on the 101.
      const upgraded = server.upgrade(request, { data, headers: metaOf(request).cookies.map((c): [string, string] => ['set-cookie', c]) });
      if (!upgraded) throw malformedHandshake();
      // Bun answers the upgraded request itself; this response only feeds the request log.
      return new Response(null, { status: 101 });
    } catch (err) {
      if (err instanceof AppError) Object.assign(err.headers, headers);
      throw err;
    }
  };

  return {
    bind(s) {
      server = s;
      hub.bind(s);
    },
    handle(request) {
      if (request.method !== 'GET') return null;
      const match = REALTIME_PATH.exec(urlPath(request.url));
      if (!match) return null;
      return accept(request, safeDecode(match[1]!) ?? match[1]!).catch((err) => renderError(ctx, request, err, undefined));
    },
  };
}

/**
 * Browsers send an Origin with every WebSocket handshake, and no CORS check
 * guards a socket. In path mode a page on another site could otherwise open
 * one with the viewer's cookies; the page must be on this host (or on the
 * configured base or API origin, for proxies that rewrite Host). Subdomain
 * mode is covered by the pipeline's exact-origin rule.
 */
function checkSocketOrigin(ctx: Pick<AppContext, 'config'>, request: Request): void {
  if (ctx.config.urlMode !== 'path') return;
  const origin = request.headers.get('origin');
  if (origin === null) return;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    host = '';
  }
  const allowed = [request.headers.get('host'), new URL(ctx.config.baseUrl).host, new URL(ctx.config.apiBaseUrl).host];
  if (!allowed.includes(host))
    throw new AppError('CROSS_SITE_FORBIDDEN', 'realtime sockets are accepted from canvas pages of this instance only');
}
