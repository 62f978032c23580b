import type { Server } from 'bun';
import { createHandler } from './app.ts';
import type { AppContext } from './context.ts';

/** Above every body cap (110 MB deploys), so our own checks answer first. */
export const MAX_REQUEST_BODY = 128 * 1024 * 1024;
const DRAIN_MS = 10_000;

export interface RunningServer {
  server: Server<unknown>;
  /** The base URL actually bound (the real port when EASEL_PORT=0). */
  url: string;
  /** Stops accepting, lets in-flight requests finish (bounded), runs shutdown hooks, closes the database. */
  shutdown(): Promise<void>;
}

export function startServer(ctx: AppContext): RunningServer {
  const handler = createHandler(ctx);
  const server = Bun.serve({
    hostname: ctx.config.host,
    port: ctx.config.port,
    maxRequestBodySize: MAX_REQUEST_BODY,
    development: false,
    fetch: (request, srv) => handler(request, srv),
    error(err) {
      ctx.log.error('server error', { error: err.message });
      return new Response(JSON.stringify({ code: 'INTERNAL', message: 'internal error' }), { status: 500, headers: { 'content-type': 'application/json' } });
    },
  });
  let stopping: Promise<void> | null = null;
  return {
    server,
    url: `http://${server.hostname}:${server.port}`,
    shutdown() {
      stopping ??= (async () => {
        const drained = server.stop(false);
        const timedOut = await Promise.race([drained.then(() => false), Bun.sleep(DRAIN_MS).then(() => true)]);
        if (timedOut) await server.stop(true);
        for (const hook of ctx.onShutdown) await hook();
        ctx.db.close();
      })();
      return stopping;
    },
  };
}
