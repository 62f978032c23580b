import type { Server, ServerWebSocket, WebSocketHandler } from 'bun';
import { websocket as elysiaWebsocket } from 'elysia/ws';
import { createApp, type App, type AppOptions } from '../app.ts';
import { withBoundPort } from '../config.ts';
import type { Core } from '../foundation.ts';
import { newRequestId } from '../http/request-id.ts';
import { json } from '../http/respond.ts';
import { MAX_PAYLOAD_BYTES } from '../runtime/realtime/limits.ts';

/**
 * Bun's own body-size refusal is out of reach: it answers an empty 413 and
 * closes while the client is still writing, so a client that streams without
 * waiting for 100 Continue (fetch, Node's http) gets a reset instead of an
 * answer. Every route caps its own body instead (Content-Length checked
 * before reading, streams cancelled past the cap) and answers first; Bun then
 * reads and drops what the client still sends, so the refusal arrives.
 */
export const MAX_REQUEST_BODY = Number.MAX_SAFE_INTEGER;
/** How long shutdown waits for in-flight requests before cutting them off (systemd's stop timeout is longer). */
export const DRAIN_MS = 10_000;
/**
 * Seconds a connection may stay silent. Bun's default (10 s) would cut AI
 * streams that pause before their first byte. Request bodies are not on this
 * timer (src/http/body-pace.ts): Bun would cut any body still arriving after it.
 */
export const IDLE_TIMEOUT_S = 60;
/**
 * Bytes a WebSocket may have queued and unsent (a client that stopped
 * reading) before the server closes it; the client reconnects and catches up
 * instead of the server holding its backlog.
 */
export const WS_BACKPRESSURE_LIMIT = 1024 * 1024;
/** "Going away" (RFC 6455): what every open socket hears when the server stops. */
export const CLOSE_GOING_AWAY = 1001;

export interface RunningServer {
  server: Server<unknown>;
  app: App;
  /** The base URL actually bound (the real port when EASEL_PORT=0). */
  url: string;
  /** Stops accepting, lets in-flight requests finish (bounded), runs shutdown hooks, closes the database. */
  shutdown(): Promise<void>;
}

/**
 * Binds the listener, then builds the app (so URLs that defaulted to the
 * configured port carry the real one when EASEL_PORT=0).
 */
export async function startServer(
  ctx: Core,
  /** `idleTimeoutS`: tests of slow clients shorten it (at least 1; Bun checks it every 4 s or so). */
  options: { drainMs?: number; app?: AppOptions; idleTimeoutS?: number } = {},
): Promise<RunningServer> {
  const drainMs = options.drainMs ?? DRAIN_MS;
  let handler: App['serve'] | null = null;
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const sockets = new Set<ServerWebSocket<unknown>>();
  // Upgrades carry their handlers in `data` (Elysia's convention, and the one
  // any raw `server.upgrade` here must follow); this layer only keeps count so
  // shutdown can say goodbye to every socket.
  const base = elysiaWebsocket as WebSocketHandler<unknown>;
  const websocket: WebSocketHandler<unknown> = {
    ...base,
    // Realtime answers frames over 16 KiB with an error frame; past this Bun closes the socket (1009).
    maxPayloadLength: MAX_PAYLOAD_BYTES,
    backpressureLimit: WS_BACKPRESSURE_LIMIT,
    closeOnBackpressureLimit: true,
    open(ws) {
      sockets.add(ws);
      return base.open?.(ws);
    },
    close(ws, code, reason) {
      sockets.delete(ws);
      return base.close?.(ws, code, reason);
    },
  };
  const server = Bun.serve({
    hostname: ctx.config.host,
    port: ctx.config.port,
    maxRequestBodySize: MAX_REQUEST_BODY,
    idleTimeout: options.idleTimeoutS ?? IDLE_TIMEOUT_S,
    development: false,
    // Bun turns SO_REUSEPORT on when development is false: a second easel on
    // the same port would start silently and share the traffic.
    reusePort: false,
    // Requests that arrive while the app starts (recovery) wait for it.
    fetch: (request, srv) => (handler ? handler(request, srv) : ready.then(() => handler!(request, srv))),
    websocket,
    // Last resort for a throw outside the app's own error handling: the same
    // body as renderError, with a fresh id that ties the answer to the log line.
    error(err) {
      const requestId = newRequestId();
      ctx.log.error('server error', { requestId, error: err.message, stack: err.stack });
      return json(500, { code: 'INTERNAL', message: 'internal error', requestId }, { 'x-request-id': requestId });
    },
  }) as Server<unknown>;
  const port = server.port ?? ctx.config.port;
  withBoundPort(ctx.config, port);
  const app = createApp(ctx, { warmSdk: true, warmDashboard: true, ...options.app });
  await app.start();
  handler = app.serve;
  markReady();
  const host = server.hostname?.includes(':') ? `[${server.hostname}]` : server.hostname;

  let stopping: Promise<void> | null = null;
  return {
    server,
    app,
    url: `http://${host}:${port}`,
    shutdown() {
      stopping ??= (async () => {
        // stop(false) closes the listener at once and resolves when the last
        // request (and socket) is done; open sockets would hold it forever.
        const drained = server.stop(false);
        for (const ws of sockets) ws.close(CLOSE_GOING_AWAY, 'server shutting down');
        let timer: Timer | undefined;
        const timedOut = await Promise.race([
          drained.then(() => false),
          new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), drainMs))),
        ]);
        clearTimeout(timer);
        if (timedOut) {
          ctx.log.warn('shutdown: in-flight requests cut off', { afterMs: drainMs });
          await server.stop(true);
        }
        await app.stop();
        await ctx.sql.close();
      })();
      return stopping;
    },
  };
}
