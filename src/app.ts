import { Elysia } from 'elysia';
import { adminRoutes } from './admin/routes.ts';
import { authRoutes } from './auth/routes.ts';
import { canvasRoutes } from './canvases/routes.ts';
import type { AppContext } from './context.ts';
import { dashboardRoutes } from './dashboard/routes.ts';
import { deployRoutes } from './deploy/routes.ts';
import { uploadRoutes } from './deploy/upload-routes.ts';
import { healthRoutes } from './health.ts';
import { wrapHandler, type FetchHandler } from './http/handler.ts';
import { renderError } from './http/on-error.ts';
import { apiMeRoutes } from './me/routes.ts';
import { sdkRoutes } from './serve/sdk-route.ts';

/** Every feature's routes, in one visible list. onError comes first so it covers them all. */
export function createApp(ctx: AppContext) {
  return new Elysia({ name: 'easel' })
    .onError(({ request, error, code }) => renderError(ctx, request, error, code))
    .use(healthRoutes(ctx))
    .use(authRoutes(ctx))
    .use(apiMeRoutes(ctx))
    .use(canvasRoutes(ctx))
    .use(deployRoutes(ctx))
    .use(uploadRoutes(ctx))
    .use(adminRoutes(ctx))
    .use(sdkRoutes(ctx))
    .use(dashboardRoutes(ctx));
}

/** The fetch handler the server (and in-process tests) call. */
export function createHandler(ctx: AppContext): FetchHandler {
  const app = createApp(ctx);
  return wrapHandler((request) => app.handle(request), ctx.log);
}
