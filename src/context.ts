import type { Database } from 'bun:sqlite';
import { AuditLog } from './audit/store.ts';
import { GuestStore } from './auth/guests.ts';
import { Authenticator } from './auth/principal.ts';
import { sessionScopeOf } from './auth/session-scope.ts';
import { SignInHandoffs } from './auth/handoff.ts';
import { TokenStore } from './auth/tokens.ts';
import { SessionStore } from './auth/sessions.ts';
import { UserStore } from './auth/users.ts';
import { BlobCollector } from './blobs/gc.ts';
import { SharedBlobClaims } from './blobs/shared-claims.ts';
import { BlobStore, freeBytesOf } from './blobs/store.ts';
import { S3BlobRemote } from './blobs/s3-remote.ts';
import { CanvasStore } from './canvases/store.ts';
import type { Config } from './config.ts';
import { realScheduler, type Scheduler } from './clock.ts';
import { ConnectionStore } from './connections/store.ts';
import { openStorage } from './db/open-storage.ts';
import type { Sql } from './db/sql.ts';
import { EventBus } from './events.ts';
import { newId } from './ids.ts';
import { createLogger, type Logger } from './log.ts';
import type { RateCounter, RateLimits } from './ratelimit/port.ts';
import { rateLimitsFor } from './ratelimit/choose.ts';
import { loadInstanceSecret } from './serve/instance-secret.ts';
import { SettingsService } from './settings/service.ts';

import { VERSION } from './build-info.ts';

export { VERSION };

/**
 * Everything a request may need, built once per process (or per test suite).
 * Services get plain arguments; only routes see HTTP.
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
  users: UserStore;
  sessions: SessionStore;
  auth: Authenticator;
  /** Legacy guest invites and their sessions (CONTRACT §3). */
  guests: GuestStore;
  /** Personal access tokens (scripts and agents on /api/* and /mcp). */
  tokens: TokenStore;
  /** Sign-in handoffs from the base host to canvas hosts (subdomain mode). */
  handoffs: SignInHandoffs;
  audit: AuditLog;
  settings: SettingsService;
  /** Signs gate passes and draft preview tokens (src/serve/instance-secret.ts). */
  instanceSecret: Buffer;
  canvases: CanvasStore;
  /** Connection profiles, their sealed headers and grants. */
  connections: ConnectionStore;
  events: EventBus;
}

export interface ContextOptions {
  now?: () => number;
  scheduler?: Scheduler;
  log?: Logger;
  /** The data directory's free disk bytes (tests stand in for a full disk). */
  freeDiskBytes?: () => number;
}

export async function createContext(config: Config, options: ContextOptions = {}): Promise<AppContext> {
  const now = options.now ?? Date.now;
  const log = options.log ?? createLogger(config.logLevel);
  const { sql, db } = await openStorage(config, (err) =>
    log.warn('database notifications interrupted: per-node caches rely on their 10 s lifetime until they resume', {
      error: err instanceof Error ? err.message : String(err),
    }),
  );
  const users = new UserStore(sql, now);
  const sessions = new SessionStore(sql, config.sessionTtlHours * 3600 * 1000, now);
  const guests = new GuestStore(sql, config.sessionTtlHours * 3600 * 1000, now, config.adminEmails, config.oidcAdminGroups);
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
  const canvases = new CanvasStore(sql);
  const audit = new AuditLog(sql, now);
  const tokens = new TokenStore(sql, now, audit);
  const scheduler = options.scheduler ?? realScheduler;
  const rateLimits = rateLimitsFor(config, { now, log, events });
  const settings = new SettingsService(sql, config, now, (err) =>
    log.error('instance settings could not be reloaded', { error: err instanceof Error ? err.message : String(err) }),
  );
  await settings.load();
  const connections = new ConnectionStore(sql, (err) =>
    log.error('connection profiles could not be reloaded', { error: err instanceof Error ? err.message : String(err) }),
  );
  await connections.load();
  // A provider key an older release stored in plaintext is sealed now, or reported until it can be.
  const instanceSecret = await loadInstanceSecret(sql, now);
  const secrets = await settings.sealStoredSecrets();
  if (secrets === 'sealed') log.info('the AI provider key set by an admin is now encrypted with EASEL_SECRET_KEY');
  if (secrets === 'plaintext') log.warn('the AI provider key set by an admin is stored unencrypted: set EASEL_SECRET_KEY to encrypt it');
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
    users,
    sessions,
    auth: new Authenticator(config, users, sessions, guests, sessionScopeOf(config, canvases, sql.changes, now), tokens),
    tokens,
    guests,
    handoffs: new SignInHandoffs(sql, now),
    audit,
    settings,
    instanceSecret,
    canvases,
    connections,
    events,
  };
}
