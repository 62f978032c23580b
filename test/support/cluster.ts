// Two Easel nodes in one test process: the real app twice, each listening
// on its own loopback port, sharing one data directory (SQLite in WAL mode)
// and one Redis database, so realtime crosses between them as between two
// servers. Their Redis clients are kept, so a test can cut a node off
// without a word (what a killed process leaves behind).
import { RedisClient } from 'bun';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Scheduler } from '../../src/clock.ts';
import type { RedisCoordinationOptions } from '../../src/runtime/realtime/redis/coordination.ts';
import { startTestApp, type TestApp } from '../harness.ts';
import { createTestRedis } from './redis-server.ts';

export interface Cluster {
  a: TestApp;
  b: TestApp;
  redisUrl: string;
  /** Closes the node's Redis connections and nothing else: whatever it holds in Redis stays until the others reap it. */
  cut(node: TestApp): void;
  close(): Promise<void>;
}

export interface ClusterOptions {
  env?: Record<string, string>;
  now?: () => number;
  scheduler?: Scheduler;
  /** Heartbeat and TTL (the Redis clients are the cluster's own). */
  realtime?: Omit<RedisCoordinationOptions, 'connect'>;
  /** A Redis of the test's own (one it stops and starts); a fresh database on the shared test server by default. */
  redisUrl?: string;
}

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const redisUrl = options.redisUrl ?? (await createTestRedis());
  const dataDir = mkdtempSync(join(tmpdir(), 'easel-cluster-'));
  const clients = new Map<TestApp, RedisClient[]>();
  const node = async () => {
    const mine: RedisClient[] = [];
    const app = await startTestApp({
      listen: true,
      dataDir,
      now: options.now,
      scheduler: options.scheduler,
      env: { ...options.env, EASEL_REDIS_URL: redisUrl },
      app: {
        realtime: {
          ...options.realtime,
          connect: (url) => {
            const client = new RedisClient(url);
            mine.push(client);
            return client;
          },
        },
      },
    });
    clients.set(app, mine);
    return app;
  };
  // One after the other: the first one creates the database.
  const a = await node();
  const b = await node();
  return {
    a,
    b,
    redisUrl,
    cut(app) {
      for (const client of clients.get(app) ?? []) client.close();
    },
    async close() {
      await a.close();
      await b.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
