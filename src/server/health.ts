import { accessSync, constants } from 'node:fs';
import { Type as T } from '@sinclair/typebox';
import type { AppContext } from '../context.ts';
import { declaredRoutes, publicRoute } from '../http/declared-route.ts';

/** A remote blob store is asked at most this often (the route needs no sign-in: probes must not become a flood of requests to S3). */
const REMOTE_CHECK_EVERY_MS = 5_000;
/** …and given this long to answer before it counts as down. */
const REMOTE_CHECK_TIMEOUT_MS = 3_000;

/**
 * GET /healthz: 200 `{ok: true, version, backends}` when the database
 * answers, the blob store takes writes (the data directory, and the remote
 * store when there is one) and Redis answers when there is one; 503 `{ok:
 * false, version, backends, failed: [...]}` naming what did not, for load
 * balancers and monitors (no sign-in; it holds no data). `backends` says
 * which engine holds what: `coordination` (rate-limit windows, realtime) is
 * `redis` with EASEL_REDIS_URL, else `local`. A node whose Redis is down
 * still answers requests (its limits count in memory meanwhile), but it is
 * not healthy: its limits no longer hold across nodes.
 */
const Backends = T.Object({
  database: T.String({ description: 'sqlite or postgres' }),
  blobs: T.String({ description: 'local or s3' }),
  coordination: T.String({ description: 'local or redis' }),
});
const Health = T.Object({
  ok: T.Boolean(),
  version: T.String(),
  backends: Backends,
  failed: T.Optional(T.Array(T.String(), { description: 'with 503: database, blobs or coordination' })),
});

export const healthRoutes = (ctx: Pick<AppContext, 'blobs' | 'rateLimits' | 'sql' | 'version'>) => {
  const remote = ctx.blobs.remote;
  let remoteCheck: { at: number; ok: Promise<boolean> } | null = null;
  const remoteOk = (): Promise<boolean> => {
    const now = Date.now();
    if (!remote) return Promise.resolve(true);
    if (remoteCheck && now - remoteCheck.at < REMOTE_CHECK_EVERY_MS) return remoteCheck.ok;
    const ok = Promise.race([
      remote.check().then(
        () => true,
        () => false,
      ),
      Bun.sleep(REMOTE_CHECK_TIMEOUT_MS).then(() => false),
    ]);
    remoteCheck = { at: now, ok };
    return ok;
  };
  const backends = {
    database: ctx.sql.engine,
    blobs: remote ? 's3' : 'local',
    coordination: ctx.rateLimits.kind === 'redis' ? 'redis' : 'local',
  };
  const check = async () => {
    const failed: string[] = [];
    try {
      await ctx.sql.get('SELECT 1 AS ok');
    } catch {
      failed.push('database');
    }
    try {
      accessSync(ctx.blobs.root, constants.W_OK);
      if (!(await remoteOk())) failed.push('blobs');
    } catch {
      failed.push('blobs');
    }
    if (!(await ctx.rateLimits.check())) failed.push('coordination');
    if (failed.length === 0) return { ok: true, version: ctx.version, backends };
    return new Response(JSON.stringify({ ok: false, version: ctx.version, backends, failed }), {
      status: 503,
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
    });
  };
  return declaredRoutes('health', null, [
    publicRoute(
      {
        method: 'GET',
        path: '/healthz',
        tag: 'Service',
        summary: 'Health: the database answers and the blob store is writable (503 with what failed)',
        answer: Health,
      },
      check,
    ),
  ]);
};
