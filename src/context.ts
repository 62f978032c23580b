import type { Database } from 'bun:sqlite';
import { BlobCollector } from './blobs/gc.ts';
import { SharedBlobClaims } from './blobs/shared-claims.ts';
import { BlobStore, freeBytesOf } from './blobs/store.ts';
import { S3BlobRemote } from './blobs/s3-remote.ts';
import type { Config } from './config.ts';
import { realScheduler, type Scheduler } from './clock.ts';
import { openStorage } from './db/open-storage.ts';
import type { Sql } from './db/sql.ts';
import { EventBus } from './events.ts';
import { newId } from './ids.ts';
import { createLogger, type Logger } from './log.ts';
import type { RateCounter, RateLimits } from './ratelimit/port.ts';
import { rateLimitsFor } from './ratelimit/choose.ts';

import { VERSION } from './build-info.ts';

export { VERSION };

/**
 * The kernel: infrastructure every feature may use, built once per process
 * (or per test suite). It holds no feature's stores: those are built by
 * their features (src/foundation.ts, then createApp) and handed to what
 * names them. Services get plain arguments; only routes see HTTP.
 */
export interface AppContext {
  config: Config;
  version: string;
  /** The embedded SQLite database; null on Postgres (EASEL_DATABASE_URL). Only what is SQLite-only reads it. */
  db: Database | null;
  /** The storage port every store is written against: SQLite in the data directory, or Postgres. */
  sql: Sql;
  /** This process among the nodes sharing a database (random per start). */
  nodeId: string;
  blobs: BlobStore;
  /** Deletes blobs no feature references (each feature registers its check in createApp). */
  blobGc: BlobCollector;
  log: Logger;
  now: () => number;
  /** The server's timers (usage flush, realtime sweep, blob sweeps); tests pass a manual one. */
  scheduler: Scheduler;
  /** HTTP classes (deploy, canvas, ai, management): switched off by EASEL_RATELIMIT_ENABLED=false. */
  limiter: RateCounter;
  /** Where rate-limit windows are counted: this process's memory, or Redis shared by the nodes (src/ratelimit/). */
  rateLimits: RateLimits;
  events: EventBus;
}

export interface ContextOptions {
  now?: () => number;
  scheduler?: Scheduler;
  log?: Logger;
  /** The data directory's free disk bytes (tests stand in for a full disk). */
  freeDiskBytes?: () => number;
}

/** The kernel alone: storage opened, blobs, timers, limits, events. createCore adds the foundation. */
export async function createContext(config: Config, options: ContextOptions = {}): Promise<AppContext> {
  const now = options.now ?? Date.now;
  const log = options.log ?? createLogger(config.logLevel);
  const { sql, db } = await openStorage(config, (err) =>
    log.warn('database notifications interrupted: per-node caches rely on their 10 s lifetime until they resume', {
      error: err instanceof Error ? err.message : String(err),
    }),
  );
  const events = new EventBus((event, err) => log.error('event listener failed', { event, error: String(err) }));
  const blobs = new BlobStore(
    config.dataDir,
    { freeBytes: options.freeDiskBytes ?? (() => freeBytesOf(config.dataDir)), minFreeBytes: config.minFreeDiskBytes },
    config.blobStore
      ? {
          remote: new S3BlobRemote(config.blobStore),
          cacheBytes: config.blobCacheBytes,
          now,
          observe: (operation, outcome) => events.emit('blobs.remote', { operation, outcome }),
        }
      : null,
  );
  // A new store is made one-level (layoutMigration says so with no legacy folder): only a move is worth a line.
  if (blobs.layoutMigration && blobs.layoutMigration.legacyFolders > 0)
    log.info('blob store moved to the one-level layout', {
      moved: blobs.layoutMigration.moved,
      legacyFolders: blobs.layoutMigration.legacyFolders,
      ms: blobs.layoutMigration.ms,
    });
  const scheduler = options.scheduler ?? realScheduler;
  const rateLimits = rateLimitsFor(config, { now, log, events });
  const nodeId = newId();
  // Nodes sharing a database and a bucket must see each other's blob holds and deletions.
  const claims = sql.engine === 'postgres' && blobs.remote ? new SharedBlobClaims(sql, nodeId, now) : null;
  return {
    config,
    version: VERSION,
    db,
    sql,
    nodeId,
    blobs,
    blobGc: new BlobCollector({ blobs, now, log, scheduler, events, claims }),
    log,
    now,
    scheduler,
    limiter: rateLimits.counter({
      enabled: config.rateLimitEnabled,
      maxKeys: 100_000,
      onFull: () => log.warn('rate limiter full: new callers are refused until the current windows end'),
    }),
    rateLimits,
    events,
  };
}
