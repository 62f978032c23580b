// Builds the real app on a fresh temp data directory. In process by default
// (`handler(new Request(...))`), or on a loopback port with `listen: true`.
import { RefusalLedger } from './declared-refusals.ts';
import { startS3Server, type S3TestServer } from './support/s3-server.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, basename } from 'node:path';
import { createApp, type App, type AppOptions, type Features } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import type { Scheduler } from '../src/clock.ts';
import { createCore } from '../src/foundation.ts';
import type { Core } from '../src/foundation.ts';
import { createLogger } from '../src/log.ts';
import type { EventMap } from '../src/events.ts';
import { dashboardOrigin } from '../src/http/cross-site.ts';
import { startServer, type RunningServer } from '../src/server/listener.ts';

export interface TestApp {
  ctx: Core;
  /** The app's feature parts (the same objects the routes use). */
  features: Features;
  /** The app itself (its routes and listing). */
  easel: App;
  dataDir: string;
  /** Base URL requests go to (http://localhost in process, the real port when listening). */
  base: string;
  /** Log lines the app wrote (parsed JSON). */
  logs: Array<Record<string, unknown>>;
  /** The first log line matching `pred`, already written or the next one (rejects after `timeoutMs`: a test that would hang). */
  nextLog(pred: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /**
   * A request to the app. Unsafe requests to the dashboard's routes (`/api/`,
   * `/auth/`) carry what the dashboard's own fetches carry, `Origin:
   * <EASEL_BASE_URL's origin>`, unless they say where they come from
   * themselves (an Origin or Sec-Fetch-Site header) or are a script's (an
   * Authorization header). `origin: null` sends no Origin at all, a string
   * sends that one.
   */
  request(path: string, init?: RequestInit & { cookie?: string; json?: unknown; origin?: string | null }): Promise<Response>;
  /** Signs in through dev login and returns the Cookie header value. */
  signIn(email: string, name?: string): Promise<string>;
  /**
   * A listener on the app's event bus; returns its remover. Events are
   * in-process: on the cluster it listens on both nodes, and an event fires
   * on the node that served the request.
   */
  /**
   * Every node of the app: this one alone, or on the cluster both (the first
   * is `app.ctx`'s). A test that tunes a node's features in place (limits,
   * an injected resolver) tunes each.
   */
  readonly nodes: readonly TestApp[];
  /**
   * `app.ctx`'s node has heard every change committed so far and reloaded
   * what it holds whole (settings, Connections): on the cluster, a test's
   * direct read of node A's memory after a request node B served. At once
   * on one node.
   */
  caughtUp(): Promise<void>;
  /** Requests Bun's listener still serves, bodies still being sent included (0 when the app does not listen). */
  pendingRequests(): number;
  onEvent<K extends keyof EventMap>(event: K, listener: (payload: EventMap[K]) => void): () => void;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  listen?: boolean;
  now?: () => number;
  /** Timers the test drives (test/manual-clock.ts); Bun's own when absent. */
  scheduler?: Scheduler;
  dataDir?: string;
  /** The data directory's free disk bytes (a full disk without filling one). */
  freeDiskBytes?: () => number;
  /** Tuning passed to createApp (shorter AI retries, an injected resolver…). */
  app?: AppOptions;
  /** The listener's idle timeout in seconds (slow-client tests shorten it). */
  idleTimeoutS?: number;
}

/** The cluster pass is running (EASEL_TEST_CLUSTER=postgres): a few tests of one node's own memory sit it out. */
export const ON_CLUSTER = process.env.EASEL_TEST_CLUSTER === 'postgres';

/** What /healthz names as an app's backends in this pass. */
export const TEST_BACKENDS = ON_CLUSTER
  ? { database: 'postgres', blobs: 's3', coordination: 'redis' }
  : { database: 'sqlite', blobs: process.env.EASEL_TEST_BLOBS === 's3' ? 's3' : 'local', coordination: 'local' };

let sharedS3: Promise<S3TestServer> | null = null;

/**
 * With EASEL_TEST_BLOBS=s3 (`bun run test:s3`), every app keeps its blobs in
 * a real S3-compatible server, one per test process, under its own prefix: the
 * storage suites run again on the remote tier.
 */
async function blobEnv(dataDir: string, env: Record<string, string> | undefined): Promise<Record<string, string>> {
  if (process.env.EASEL_TEST_BLOBS !== 's3' || env?.EASEL_BLOB_URL) return {};
  sharedS3 ??= startS3Server();
  // One prefix per data directory: a restart on the same directory finds its blobs where it left them.
  return (await sharedS3).env(`harness-${basename(dataDir)}/`);
}

/**
 * With EASEL_TEST_CLUSTER=postgres (`bun run test:cluster`), an app is two
 * nodes on one Postgres database, one S3 bucket and one Redis (real servers):
 * requests alternate between them, as a load balancer would spread them,
 * and the test's own reads (`app.ctx`) go to the first node. Suites that
 * read SQLite directly stay out of that pass.
 */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  if (ON_CLUSTER && !options.dataDir && !options.env?.EASEL_DATABASE_URL) {
    const { startClusterApp } = await import('./support/cluster-app.ts');
    return startClusterApp(options, startNode);
  }
  return startNode(options);
}

export async function startNode(options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'easel-test-'));
  const logs: Array<Record<string, unknown>> = [];
  const logWaiters = new Set<(line: Record<string, unknown>) => void>();
  // Suites run path mode under proxy sign-in as a trusted single-author setup; test/config.test.ts checks the refusal without it.
  const env = {
    EASEL_DATA_DIR: dataDir,
    EASEL_PORT: '0',
    EASEL_LOG_LEVEL: 'debug',
    EASEL_PATH_MODE_TRUSTED_AUTHORS: 'on',
    ...(await blobEnv(dataDir, options.env)),
    ...options.env,
  };
  const config = loadConfig(env);
  const ctx = await createCore(config, {
    now: options.now,
    scheduler: options.scheduler,
    freeDiskBytes: options.freeDiskBytes,
    log: createLogger('debug', (text) => {
      const line = JSON.parse(text) as Record<string, unknown>;
      logs.push(line);
      for (const waiter of logWaiters) waiter(line);
    }),
  });
  let running: RunningServer | null = null;
  let base = 'http://localhost';
  let send: (req: Request) => Promise<Response>;
  let easel: ReturnType<typeof createApp>;
  if (options.listen) {
    running = await startServer(ctx, { app: options.app, idleTimeoutS: options.idleTimeoutS });
    easel = running.app;
    base = `http://127.0.0.1:${running.server.port}`;
    send = (req) => fetch(req, { redirect: 'manual' } as RequestInit);
  } else {
    easel = createApp(ctx, options.app);
    try {
      await easel.start();
    } catch (err) {
      // A refused start (a test of the refusal) leaves nothing open.
      await easel.stop();
      await ctx.sql.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
      throw err;
    }
    send = (req) => easel.handle(req, null);
  }
  const ledger = new RefusalLedger(() => easel.listing());
  const observed = send;
  send = async (req) => {
    const res = await observed(req);
    await ledger.record(req, res);
    return res;
  };
  const app: TestApp = {
    ctx,
    features: easel.features,
    easel,
    dataDir,
    base,
    logs,
    nextLog(pred, timeoutMs = 5_000) {
      const seen = logs.find(pred);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          logWaiters.delete(waiter);
          reject(new Error(`no matching log line within ${timeoutMs} ms`));
        }, timeoutMs);
        const waiter = (line: Record<string, unknown>) => {
          if (!pred(line)) return;
          logWaiters.delete(waiter);
          clearTimeout(timer);
          resolve(line);
        };
        logWaiters.add(waiter);
      });
    },
    request(path, init = {}) {
      const { origin, ...rest } = init;
      const headers = new Headers(init.headers);
      if (init.cookie) headers.set('cookie', init.cookie);
      if (typeof origin === 'string') headers.set('origin', origin);
      else if (origin === undefined && fromDashboard(path, init.method, headers)) headers.set('origin', dashboardOrigin(ctx.config));
      let body = init.body;
      if (init.json !== undefined) {
        headers.set('content-type', 'application/json');
        body = JSON.stringify(init.json);
      }
      return send(new Request(base + path, { ...rest, headers, body, redirect: 'manual' }));
    },
    async signIn(email, name) {
      const res = await app.request('/auth/dev/login', { method: 'POST', json: { email, name } });
      if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
      const cookie = res.headers.get('set-cookie')!;
      return cookie.split(';')[0]!;
    },
    get nodes() {
      return [app];
    },
    async caughtUp() {},
    pendingRequests: () => running?.server.pendingRequests ?? 0,
    onEvent(event, listener) {
      return ctx.events.on(event, listener);
    },
    async close() {
      if (running) await running.shutdown();
      else {
        await easel.stop();
        await ctx.sql.close();
      }
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
      const undeclared = ledger.undeclared();
      if (undeclared.length)
        throw new Error(
          `refusals this suite saw that their routes do not declare (add them to the route's errors):\n${undeclared.join('\n')}`,
        );
    },
  };
  return app;
}

/** An unsafe request to the dashboard's routes that does not say where it comes from (see TestApp.request). */
function fromDashboard(path: string, method: string | undefined, headers: Headers): boolean {
  if (!path.startsWith('/api/') && !path.startsWith('/auth/')) return false;
  if (['GET', 'HEAD', 'OPTIONS'].includes((method ?? 'GET').toUpperCase())) return false;
  return !headers.has('origin') && !headers.has('sec-fetch-site') && !headers.has('authorization');
}

export async function body(res: Response): Promise<any> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
