import { Elysia } from 'elysia';
import type { AppContext } from '../../context.ts';
import type { RuntimeCore } from '../core.ts';
import { rawSegments, runtimeJson } from '../runtime-request.ts';
import { identityOf } from './service.ts';

/** GET /v1/c/{slug}/me: the identity capability. */
export function meRoutes(ctx: AppContext, runtime: RuntimeCore) {
  return new Elysia({ name: 'runtime-me' }).get('/v1/c/:slug/me', ({ request }) =>
    runtime.pipeline.handle(request, rawSegments(request, 'me').slug, { capability: 'identity' }, (caller) =>
      runtimeJson(200, identityOf(ctx, caller)),
    ),
  );
}
