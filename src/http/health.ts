import { accessSync, constants } from 'node:fs';
import { Elysia } from 'elysia';
import type { AppContext } from '../context.ts';

/**
 * GET /healthz: 200 `{ok: true, version}` when the database answers and the
 * blob store is writable; 503 `{ok: false, version, failed: [...]}` naming
 * what did not, for load balancers and monitors (no sign-in; it holds no data).
 */
export const healthRoutes = (ctx: AppContext) =>
  new Elysia({ name: 'health' }).get('/healthz', () => {
    const failed: string[] = [];
    try {
      ctx.db.query('SELECT 1').get();
    } catch {
      failed.push('database');
    }
    try {
      accessSync(ctx.blobs.root, constants.W_OK);
    } catch {
      failed.push('blobs');
    }
    if (failed.length === 0) return { ok: true, version: ctx.version };
    return new Response(JSON.stringify({ ok: false, version: ctx.version, failed }), {
      status: 503,
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
    });
  });
