import { Elysia } from 'elysia';
import { adminRoutes } from './admin/routes.ts';
import { authRoutes } from './auth/routes.ts';
import { canvasRoutes } from './canvases/routes.ts';
import { connectionAdminRoutes } from './connections/admin-routes.ts';
import type { AppContext } from './context.ts';
import { dashboardRoutes } from './dashboard/routes.ts';
import { deployRoutes } from './deploy/routes.ts';
import { uploadRoutes } from './deploy/upload/routes.ts';
import { healthRoutes } from './http/health.ts';
import { wrapHandler, type FetchHandler } from './http/handler.ts';
import { renderError } from './http/on-error.ts';
import { apiMeRoutes } from './account/routes.ts';
import { aiRoutes } from './runtime/ai/routes.ts';
import { aiUsageRoutes } from './runtime/ai/usage-routes.ts';
import { connectionRoutes } from './runtime/connections/routes.ts';
import { runtimeRoutes } from './runtime/routes.ts';
import { realtimeUpgrade } from './runtime/realtime/socket.ts';
import { anonymousSdkVisitor } from './serve/sdk-admission.ts';
import { sdkRoutes } from './serve/sdk-route.ts';
import { canvasHostHandler, serveRoutes } from './serve/routes.ts';

/** Every feature's routes, in one visible list. onError comes first so it covers them all. */
export interface AppOptions {
  /** Bundle the SDK at start rather than on its first request (the server; tests leave it off). */
  warmSdk?: boolean;
}

export function createApp(ctx: AppContext, options: AppOptions = {}) {
  return new Elysia({ name: 'easel' })
    .onError(({ request, error, code }) => renderError(ctx, request, error, code))
    .use(healthRoutes(ctx))
    .use(authRoutes(ctx))
    .use(apiMeRoutes(ctx))
    .use(canvasRoutes(ctx))
    .use(deployRoutes(ctx))
    .use(uploadRoutes(ctx))
    .use(adminRoutes(ctx))
    .use(sdkRoutes(ctx, { admitAnonymousVisitor: anonymousSdkVisitor(ctx), warm: options.warmSdk }))
    .use(serveRoutes(ctx))
    .use(dashboardRoutes(ctx))
    .use(runtimeRoutes(ctx))
    .use(aiRoutes(ctx))
    .use(aiUsageRoutes(ctx))
    .use(connectionAdminRoutes(ctx))
    .use(connectionRoutes(ctx));
}

/** The fetch handler the server (and in-process tests) call. */
export function createHandler(ctx: AppContext, options: AppOptions = {}): FetchHandler {
  const app = createApp(ctx, options);
  // Subdomain mode: a canvas's own host never reaches the app's routes.
  const canvasHost = canvasHostHandler(ctx);
  // The realtime socket upgrades on Bun's server itself, before Elysia.
  const realtime = realtimeUpgrade(ctx);
  const handle = wrapHandler((request) => canvasHost(request) ?? realtime.handle(request) ?? app.handle(request), ctx.log);
  return (request, server) => {
    if (server) realtime.bind(server);
    return handle(request, server);
  };
}
