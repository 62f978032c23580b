// The whole map of Easel: every feature's parts, built in dependency order;
// every route and dispatcher a request can reach, in the order they are
// tried; and the start/stop order of everything that runs on its own.
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { remoteBlobsStart } from './blobs/remote-start.ts';
import { Elysia } from 'elysia';
import { apiMeRoutes } from './account/routes.ts';
import { adminRoutes } from './admin/routes.ts';
import { AdminService } from './admin/service.ts';
import { authRoutes } from './auth/routes.ts';
import { handoffRoutes } from './auth/handoff-routes.ts';
import { OidcSignIn } from './auth/oidc.ts';
import { Housekeeping } from './housekeeping.ts';
import { mcpRoutes } from './mcp/routes.ts';
import { tokenRoutes } from './auth/token-routes.ts';
import { AccessResolver } from './canvases/access-resolver.ts';
import { guestRoutes } from './canvases/guests/routes.ts';
import { canvasRoutes } from './canvases/routes.ts';
import { CanvasService } from './canvases/service.ts';
import { connectionAdminRoutes } from './connections/admin-routes.ts';
import { ConnectionProfiles } from './connections/profiles.ts';
import { createConnectionsFeature, type ConnectionsFeature, type ConnectionsOptions } from './connections/feature.ts';
import type { Core } from './foundation.ts';
import { dashboardRoutes } from './dashboard/routes.ts';
import { DeployFeature, deployBlobReferences } from './deploy/feature.ts';
import { deployRoutes } from './deploy/routes.ts';
import { uploadRoutes } from './deploy/upload/routes.ts';
import { peopleDeployRoutes } from './deploy/people-routes.ts';
import { authKinds } from './server/auth-kinds.ts';
import { BODY_STALL_MS } from './http/body-pace.ts';
import { promised, wrapHandler, type FetchHandler, type ServeHandler } from './http/handler.ts';
import { Metrics } from './metrics/metrics.ts';
import { capabilityStateRoutes } from './runtime/capability-routes.ts';
import { PolicyMisses } from './runtime/policy-misses.ts';
import { draftRoutes } from './drafts/routes.ts';
import { DraftService } from './drafts/service.ts';
import { draftBlobReferences } from './drafts/store.ts';
import { galleryRoutes } from './gallery/routes.ts';
import { Gallery } from './gallery/service.ts';
import { metricsRoutes } from './metrics/routes.ts';
import { openApiRoute } from './openapi/routes.ts';
import { cliLoginRoutes } from './auth/cli-login-routes.ts';
import { DiskUsageReport } from './admin/disk-usage.ts';
import { healthRoutes } from './server/health.ts';
import { WebhooksFeature } from './webhooks/feature.ts';
import { webhookRoutes } from './webhooks/routes.ts';
import { createNotificationsFeature, type NotificationsFeature, type NotificationsOptions } from './notifications/feature.ts';
import { notificationAdminRoutes } from './notifications/admin-routes.ts';
import { notificationMeRoutes } from './notifications/me-routes.ts';
import { unsubscribeRoutes } from './notifications/unsubscribe-routes.ts';
import { llmsTxtRoute } from './mcp/llms-txt.ts';
import { docsRoutes } from './docs/routes.ts';
import { renderError } from './http/on-error.ts';
import { allowedMethods } from './http/method-hint.ts';
import { routeListing, type Dispatcher, type ListedRoute } from './http/route-listing.ts';
import type { Lifecycle } from './lifecycle.ts';
import { createAiFeature, type AiFeature, type AiOptions } from './runtime/ai/feature.ts';
import { aiRoutes } from './runtime/ai/routes.ts';
import { aiUsageRoutes } from './runtime/ai/usage-routes.ts';
import { UsageReports } from './runtime/ai/usage-report.ts';
import { collectionRoutes } from './runtime/collections/routes.ts';
import { authoringManagementRoutes } from './authoring/management-routes.ts';
import { authoringRoutes } from './authoring/routes.ts';
import { AuthoringService } from './authoring/service.ts';
import { AuthoringStore } from './authoring/store.ts';
import { CollectionService } from './runtime/collections/service.ts';
import { RecordStore } from './runtime/collections/store.ts';
import { NOTHING_KEPT, RecordReadCache } from './runtime/collections/read-cache.ts';
import { SpaceVersions } from './runtime/collections/space-versions.ts';
import { connectionRoutes } from './runtime/connections/routes.ts';
import { fileBlobReferences } from './runtime/files/references.ts';
import { fileRoutes } from './runtime/files/routes.ts';
import { FileService } from './runtime/files/service.ts';
import { FileStore } from './runtime/files/store.ts';
import { kvRoutes } from './runtime/kv/routes.ts';
import { KvService } from './runtime/kv/service.ts';
import { KvStore } from './runtime/kv/store.ts';
import { canvasDataBrowseRoutes } from './canvas-data/browse-routes.ts';
import { canvasDataRoutes } from './canvas-data/routes.ts';
import { CanvasDataService } from './canvas-data/service.ts';
import { CanvasDataStore } from './canvas-data/store.ts';
import { meRoutes } from './runtime/me/routes.ts';
import { RuntimePipeline } from './runtime/pipeline.ts';
import type { RealtimeCoordination } from './runtime/realtime/coordination.ts';
import { RealtimeHub } from './runtime/realtime/hub.ts';
import { LocalCoordination } from './runtime/realtime/local-coordination.ts';
import { NodeRegistry } from './cluster/node-registry.ts';
import { processAlive } from './db/data-dir-lock.ts';
import { RedisCoordination, type RedisCoordinationOptions } from './runtime/realtime/redis/coordination.ts';
import { realtimeUpgrade } from './runtime/realtime/socket.ts';
import { REALTIME_UPGRADE } from './runtime/realtime/upgrade-route.ts';
import { runtimeFallbackRoutes, runtimePreflightRoutes } from './runtime/routes.ts';
import { submissionRoutes } from './runtime/submissions/routes.ts';
import { SubmissionService } from './runtime/submissions/service.ts';
import { SubmissionStore } from './runtime/submissions/store.ts';
import { UsageCounters } from './runtime/usage.ts';
import { InsightCounters } from './insights/counters.ts';
import { insightRoutes } from './insights/routes.ts';
import { InsightStore } from './insights/store.ts';
import { CanvasServer } from './serve/canvas-server.ts';
import { canvasPageDispatcher } from './serve/dispatch.ts';
import { CANVAS_PAGES } from './serve/pages-route.ts';
import { sharedKvGet } from './runtime/kv/fast-get.ts';
import { sdkVisitorWithoutSession } from './serve/sdk-admission.ts';
import { sdkRoutes } from './serve/sdk-route.ts';

export interface AppOptions {
  /** Bundle the SDK at start rather than on its first request (the server; tests leave it off). */
  warmSdk?: boolean;
  /** Bundle the dashboard's page script at start rather than on its first request (the server; tests leave it off). */
  warmDashboard?: boolean;
  ai?: AiOptions;
  connections?: ConnectionsOptions;
  /** The SMTP relay's TLS trust (tests' own CA). */
  notifications?: NotificationsOptions;
  /** How long a request body may send nothing before it is cut (src/http/body-pace.ts; tests shorten it). */
  bodyStallMs?: number;
  /** How long a page waits for a blob copy from the remote blob store before it answers 503 (tests shorten it). */
  blobFetchWaitMs?: number;
  /** With EASEL_REDIS_URL: the node heartbeat and TTL, and the Redis clients (tests). */
  realtime?: RedisCoordinationOptions;
}

/** The parts of the features that hold state, for the listener and for tests. */
export interface Features {
  /** Canvas management (create, settings, people, ownership, capabilities): the routes, MCP, authoring and the gallery share it. */
  canvasService: CanvasService;
  access: AccessResolver;
  usage: UsageCounters;
  /** Page views, visitors, paths and API calls per canvas-day, counted in memory and flushed (src/insights/). */
  insights: InsightCounters;
  insightStore: InsightStore;
  pipeline: RuntimePipeline;
  pages: CanvasServer;
  deploy: DeployFeature;
  ai: AiFeature;
  connections: ConnectionsFeature;
  /** Connection profiles and grants, as instance admins manage them. */
  connectionProfiles: ConnectionProfiles;
  realtime: RealtimeHub;
  /** Collection records; what hangs off a record (attachments) listens for removals here. */
  collections: CollectionService;
  files: FileService;
  submissions: SubmissionService;
  kv: KvService;
  /** What pages asked for that their runtime policy does not configure (the canvas page names them). */
  policyMisses: PolicyMisses;
  data: CanvasDataService;
  /** Canvases that canvases' pages published for their visitors. */
  authoring: AuthoringService;
  /** oidc mode's sign-in (discovered at start); null in the other modes. */
  oidc: OidcSignIn | null;
  /** Hourly trimming of expired sessions, handoffs, tokens and old audit rows. */
  housekeeping: Housekeeping;
  /** People's browser drafts (the dashboard's editor), previewed by the page server. */
  drafts: DraftService;
  /** Instance administration: users, disabling canvases, settings, the admin lists. */
  admin: AdminService;
  /** The data directory's sizes and free room (admin usage, metrics). */
  diskUsage: DiskUsageReport;
  /** Email notifications: the outbox and its worker (nothing without EASEL_SMTP_URL). */
  notifications: NotificationsFeature;
  /** Canvas webhooks: deliveries recorded from the event bus, sent by a worker (src/webhooks/). */
  webhooks: WebhooksFeature;
  /** What GET /metrics exposes; every request is counted here. */
  metrics: Metrics;
}

/**
 * What answers before the router, in this order (createApp's dispatch below):
 * canvas pages are the hot path (the router would add ~1.3 µs to a ~4 µs
 * page view), and the realtime upgrade must reach Bun's server itself.
 */
export const DISPATCHERS: readonly Dispatcher[] = [
  {
    method: 'ALL',
    path: '{slug}.{EASEL_CANVAS_HOST}/*',
    note: "subdomain mode: the canvas's pages, gate and sign-in handoff; its /sdk/v1.js and /v1/c/{slug}/… go on to the routes",
  },
  { method: 'ALL', path: '/c/:slug/*', note: 'path mode: canvas pages; subdomain mode: 301 to the canvas host', declaration: CANVAS_PAGES },
  {
    method: 'GET',
    path: '/v1/c/:slug/realtime',
    note: 'the realtime WebSocket upgrade (runtime pipeline first)',
    declaration: REALTIME_UPGRADE,
  },
];

/** What the app needs of the Elysia instance (its full type is too deep for the compiler to carry around). */
export interface RouteTable {
  handle(request: Request): Promise<Response>;
  readonly routes: ReadonlyArray<{ method: string; path: string }>;
}

export interface App {
  ctx: Core;
  features: Features;
  /** The Elysia routes alone (the route listing; requests go through `handle`). */
  routes: RouteTable;
  /** The fetch handler in-process callers (tests) use: always a promise. */
  handle: FetchHandler;
  /** What Bun.serve calls: the same handler, answering at once when it can (no promise per page view). */
  serve: ServeHandler;
  /** Every dispatcher and route, in the order tried (src/http/route-listing.ts). */
  listing(): ListedRoute[];
  /** Recovery and timers, in the order listed below. */
  start(): Promise<void>;
  /** The reverse order; the caller closes the database afterwards. */
  stop(): Promise<void>;
}

export function createApp(ctx: Core, options: AppOptions = {}): App {
  // 1. Features, each after what it needs.
  const canvasService = new CanvasService(ctx);
  const access = new AccessResolver(ctx);
  const usage = new UsageCounters(ctx);
  const insightStore = new InsightStore(ctx.sql);
  const insights = new InsightCounters(ctx, insightStore);
  const pipeline = new RuntimePipeline(ctx, { access, usage, insights });
  const recordReads = new RecordReadCache(ctx.db ? SpaceVersions.of(ctx.db) : NOTHING_KEPT, ctx.now);
  const collections = new CollectionService(new RecordStore(ctx.sql), recordReads, usage, ctx.audit, ctx.now, ctx.events);
  const files = new FileService(
    new FileStore(ctx.sql),
    ctx.blobs,
    ctx.blobGc,
    () => ctx.settings.get(),
    usage,
    ctx.audit,
    ctx.now,
    collections,
    ctx.events,
  );
  const submissions = new SubmissionService(new SubmissionStore(ctx.sql), usage, ctx.audit, ctx.now, ctx.events);
  const kv = new KvService(new KvStore(ctx.sql), usage, ctx.now);
  const policyMisses = new PolicyMisses(ctx.sql, ctx.now, ctx.log);
  ctx.events.on('policy.unconfigured', (e) => policyMisses.note(e.canvasId, e.kind, e.name));
  const diskUsage = new DiskUsageReport(ctx);
  const deploy = new DeployFeature(ctx);
  const drafts = new DraftService({ ctx, versions: deploy.versions });
  // What realtime shares with other nodes: through Redis when EASEL_REDIS_URL is set, else in this process.
  const coordination = realtimeCoordination(ctx, options.realtime);
  const connections = createConnectionsFeature(ctx, options.connections);
  const notifications = createNotificationsFeature(ctx, options.notifications);
  const features: Features = {
    canvasService,
    access,
    usage,
    insights,
    insightStore,
    pipeline,
    pages: new CanvasServer(ctx, access, drafts, options.blobFetchWaitMs, insights),
    deploy,
    ai: createAiFeature(ctx, pipeline, options.ai),
    connections,
    connectionProfiles: new ConnectionProfiles(ctx),
    realtime: new RealtimeHub(ctx, { access, pipeline }, coordination),
    collections,
    files,
    submissions,
    kv,
    policyMisses,
    data: new CanvasDataService({
      kv,
      collections,
      submissions,
      files,
      store: new CanvasDataStore(ctx.sql),
      users: ctx.users,
      guests: ctx.guests,
      audit: ctx.audit,
      blobs: ctx.blobs,
    }),
    authoring: new AuthoringService(ctx, new AuthoringStore(ctx.sql), deploy, canvasService),
    oidc: ctx.config.authMode === 'oidc' ? new OidcSignIn(ctx.config, ctx.sql, ctx.now) : null,
    housekeeping: new Housekeeping(ctx),
    drafts,
    admin: new AdminService(ctx),
    diskUsage,
    notifications,
    // Webhooks send under the Connections egress rules and mail through the notifications outbox.
    webhooks: new WebhooksFeature({ ctx, egress: connections.egress, notifications }),
    metrics: new Metrics(ctx, {
      realtimeConnections: () => features.realtime.openConnections(),
      diskUsage,
      blobCache: () => ctx.blobs.cache(),
    }),
  };

  // 2. Every feature that keeps blob hashes tells the collector how to ask.
  for (const check of [...deployBlobReferences(ctx.sql), fileBlobReferences(ctx.sql), draftBlobReferences(ctx.sql)])
    ctx.blobGc.addReferenceCheck(check);
  // A record's attachments leave with it.
  collections.onRecordsRemoved((removed) => features.files.removeAttachments(removed));

  // 3. What a request meets, in order: canvas pages (a canvas host, or /c/{slug}/… on the base host),
  //    the realtime upgrade (on Bun's server itself), a plain shared-key KV read (the runtime API's commonest call), then the routes.
  const routes = buildRoutes(ctx, features, options);
  const pages = canvasPageDispatcher(ctx, features.pages);
  const realtime = realtimeUpgrade(ctx, features.realtime, pipeline);
  const kvGet = sharedKvGet(ctx, pipeline, features.kv);
  const dispatch = (request: Request) => pages(request) ?? realtime.handle(request) ?? kvGet(request) ?? routes.handle(request);
  const handle = wrapHandler(
    // On Postgres, a request reads the per-node caches only once they hold every change committed before it came
    // (another node may have answered a write a moment ago): read after write holds across nodes.
    (request) => ctx.sql.changes.caughtUp()?.then(() => dispatch(request)) ?? dispatch(request),
    ctx.log,
    features.metrics.observeRequest,
    options.bodyStallMs ?? BODY_STALL_MS,
  );

  // 4. Started in this order, stopped in reverse: sockets close and AI calls settle before counters flush.
  // Sign-in first: an identity provider that does not answer stops the start before anything else runs.
  // Metrics listen before anything can emit.
  const lifecycle: Lifecycle[] = [
    features.metrics,
    // On Postgres: join the database's nodes first, or refuse to start when that would split limits and realtime.
    ...(ctx.sql.engine === 'postgres'
      ? [
          new NodeRegistry({
            id: ctx.nodeId,
            sql: ctx.sql,
            now: ctx.now,
            scheduler: ctx.scheduler,
            withRedis: ctx.config.redis !== null,
            onHeartbeatError: (err) => ctx.log.warn('node heartbeat failed', { error: err instanceof Error ? err.message : String(err) }),
            run: { host: hostname(), dataDir: resolve(ctx.config.dataDir), pid: process.pid, alive: processAlive },
            onEarlierRunsGone: (ids) =>
              ctx.log.warn('an earlier run of this node stopped without leaving: its AI reservations and upload leases are released now', {
                nodes: ids,
              }),
          }),
        ]
      : []),
    ...(features.oidc ? [features.oidc] : []),
    remoteBlobsStart(ctx.blobs, ctx.log),
    features.deploy,
    ctx.blobGc,
    features.housekeeping,
    usage,
    insights,
    features.ai,
    // Connected before the hub takes sockets; let go after the hub recorded their departures.
    coordination,
    // Rate-limit windows in Redis (EASEL_REDIS_URL): connected before the first request is counted (after realtime refused a Redis that does not answer).
    ctx.rateLimits,
    features.realtime,
    // Sends what requests recorded; stopped first, so a send in flight ends before the database closes.
    features.notifications,
    // Records deliveries from events and sends them; a paused hook's mail goes to the outbox (stopped after this).
    features.webhooks,
  ];
  const serve: ServeHandler = (request, server) => {
    if (server) realtime.bind(server);
    return handle(request, server);
  };
  let started = false;
  return {
    ctx,
    features,
    routes,
    listing: () => routeListing(DISPATCHERS, routes.routes),
    handle: promised(serve),
    serve,
    async start() {
      if (started) return;
      started = true;
      for (const part of lifecycle) await part.start?.();
    },
    async stop() {
      if (!started) return;
      started = false;
      for (const part of [...lifecycle].reverse()) {
        try {
          await part.stop?.();
        } catch (err) {
          ctx.log.error('stopping a feature failed', { error: err instanceof Error ? err.message : String(err) });
        }
      }
    },
  };
}

/** The one place realtime's coordination is chosen: Redis shares it with the other nodes; without it, it stays in this process. */
function realtimeCoordination(ctx: Core, options: RedisCoordinationOptions | undefined): RealtimeCoordination {
  return ctx.config.redis ? new RedisCoordination(ctx, ctx.config.redis, options) : new LocalCoordination();
}

/**
 * Every Elysia route, in the order it is matched. onError comes first so it covers them all.
 * `standardHostname: false`: Elysia finds the path at a fixed offset in
 * request.url, by default 11, past which a Host of three characters or fewer
 * (`http://zz/zz/api/me`) hides the path's first segment; 7 (`http://`) is
 * right for every host (src/http/handler.ts refuses URLs it would misread).
 */
function buildRoutes(ctx: Core, f: Features, options: AppOptions): RouteTable {
  const auth = authKinds(ctx, f.pipeline);
  const aiReports = new UsageReports(ctx.sql);
  // Read when an error renders, by then every route is mounted.
  let mounted: Array<{ method: string; path: string }> = [];
  const app = new Elysia({ name: 'easel', handler: { standardHostname: false } })
    .onError(({ request, error, code }) => renderError(ctx, request, error, code, (path) => allowedMethods(mounted, path)))
    .use(healthRoutes(ctx))
    .use(metricsRoutes(ctx, f.metrics))
    .use(llmsTxtRoute(ctx.config))
    .use(openApiRoute(ctx, () => routeListing(DISPATCHERS, mounted)))
    // Sign-in, and the management API of the dashboard (/auth, /api).
    .use(authRoutes(ctx, f.oidc))
    .use(handoffRoutes(ctx))
    .use(cliLoginRoutes(ctx))
    .use(apiMeRoutes(ctx, auth))
    .use(notificationMeRoutes(ctx, auth, f.notifications))
    .use(unsubscribeRoutes(ctx, f.notifications.preferences))
    .use(tokenRoutes(ctx, auth))
    .use(
      canvasRoutes(
        f.canvasService,
        ctx,
        auth,
        async (canvas) => {
          // Only canvases a page published say so; every other view is as before.
          const authored = await f.authoring.summaryOf(canvas);
          return authored ? { authored } : {};
        },
        async (actor) => {
          const [authoredOf, { month, byCanvas }] = await Promise.all([
            f.authoring.summariesListedFor(actor.user.id),
            aiReports.monthByListedCanvas(actor.user.id, ctx.now()),
          ]);
          const capUsd = ctx.settings.get().aiCanvasMonthlyUsd;
          return (canvas) => {
            const authored = authoredOf(canvas);
            return {
              ...(authored ? { authored } : {}),
              aiMonth: { month, capUsd, ...(byCanvas.get(canvas.id) ?? { spentUsd: 0, calls: 0 }) },
            };
          };
        },
      ),
    )
    .use(capabilityStateRoutes(ctx, auth, f.policyMisses, f.kv, f.files))
    .use(galleryRoutes(ctx, auth, new Gallery({ ctx, access: f.access, versions: f.deploy.versions, canvasService: f.canvasService })))
    .use(authoringManagementRoutes(auth, f.authoring, ctx))
    .use(guestRoutes(ctx, auth, (m) => f.notifications.mailGuestInvite(m)))
    .use(aiUsageRoutes(ctx, auth))
    .use(adminRoutes(f.admin, ctx, auth, f.diskUsage))
    .use(connectionAdminRoutes(f.connectionProfiles, auth))
    .use(notificationAdminRoutes(auth, f.notifications))
    // The Deploy API (/v1/canvases, canvas key).
    .use(deployRoutes(auth, f.deploy))
    .use(uploadRoutes(auth, f.deploy))
    .use(peopleDeployRoutes(ctx, auth, f.deploy))
    .use(draftRoutes(ctx, auth, f.drafts))
    .use(canvasDataRoutes(ctx, auth, f.data))
    .use(canvasDataBrowseRoutes(ctx, auth, f.data))
    .use(webhookRoutes(ctx, auth, f.webhooks.hooks))
    .use(insightRoutes(ctx, auth, f.insightStore))
    // Agents: the same services as MCP tools (/mcp).
    .use(mcpRoutes(auth, { ctx, canvases: f.canvasService, deploy: f.deploy, data: f.data }))
    // The SDK and the dashboard's files.
    .use(sdkRoutes(ctx, { admitAnonymousVisitor: sdkVisitorWithoutSession(ctx, f.access), warm: options.warmSdk }))
    .use(dashboardRoutes(ctx, { warm: options.warmDashboard }))
    .use(docsRoutes(ctx))
    // The runtime API (/v1/c/{slug}): preflight, every primitive, then "no such route" in pipeline order.
    .use(runtimePreflightRoutes(ctx))
    .use(meRoutes(ctx, auth))
    .use(kvRoutes(auth, f.kv))
    .use(fileRoutes(ctx, auth, f.files))
    .use(aiRoutes(ctx, auth, f.ai))
    .use(connectionRoutes(ctx, auth, f.connections))
    .use(submissionRoutes(auth, f.submissions))
    .use(collectionRoutes(auth, f.collections))
    .use(authoringRoutes(ctx, auth, f.authoring))
    .use(runtimeFallbackRoutes(auth));
  mounted = app.routes;
  return app;
}
