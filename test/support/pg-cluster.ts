// Two Easel nodes as a company would run them: each with its own data
// directory (a local blob cache), sharing one Postgres database, one S3
// bucket and one Redis, all real servers on loopback ports. Requests go to
// whichever node a test names, as a load balancer would spread them.
import type { Scheduler } from '../../src/clock.ts';
import { startTestApp, type TestApp } from '../harness.ts';
import { createTestDatabase } from './postgres-server.ts';
import { createTestRedis } from './redis-server.ts';
import { startS3Server, type S3TestServer } from './s3-server.ts';

export interface PgCluster {
  a: TestApp;
  b: TestApp;
  /** The environment both nodes share (a test may start a third node with it). */
  env: Record<string, string>;
  close(): Promise<void>;
}

let s3: Promise<S3TestServer> | null = null;
let clusters = 0;

export async function startPgCluster(
  options: { now?: () => number; scheduler?: Scheduler; redis?: boolean; listen?: boolean; env?: Record<string, string> } = {},
): Promise<PgCluster> {
  s3 ??= startS3Server('easel-cluster');
  const env: Record<string, string> = {
    ...options.env,
    EASEL_DATABASE_URL: await createTestDatabase(),
    ...(await s3).env(`cluster-${process.pid}-${++clusters}/`),
    ...(options.redis === false ? {} : { EASEL_REDIS_URL: await createTestRedis() }),
  };
  const node = () => startTestApp({ env, now: options.now, scheduler: options.scheduler, listen: options.listen });
  // One after the other: the first one migrates the database.
  const a = await node();
  const b = await node();
  return {
    a,
    b,
    env,
    async close() {
      await b.close();
      await a.close();
    },
  };
}
