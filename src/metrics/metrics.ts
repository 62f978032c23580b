// What GET /metrics exposes, in Prometheus' text format (prom-client): every
// request by route class, method and status with its latency; deploys; the
// runtime primitives (through the request series, by primitive); realtime,
// AI, Connections and rate-limit refusals (from the features' signals on the
// event bus, so no service knows about metrics); and, read at scrape time, the
// database, WAL and blob sizes, open sockets, memory and event-loop lag.
import { readdirSync } from 'node:fs';
import type { DiskUsageReport } from '../admin/disk-usage.ts';
import type { AppContext } from '../context.ts';
import type { EventMap } from '../events.ts';
import type { Lifecycle } from '../lifecycle.ts';
import { CONTENT_TYPE, Counter, Gauge, Histogram, Registry, type HistogramSeries } from './exposition.ts';
import { METHODS, methodIndex, routeClassOf } from './route-class.ts';

export interface MetricsSources {
  realtimeConnections: () => number;
  diskUsage: DiskUsageReport;
  /** The local cache of a remote blob store, and its bound; null when blobs live in the data directory. */
  blobCache: () => { bytes: number; limitBytes: number } | null;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const DEPLOY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
/** How often the event loop is asked to wake: the lag is how late it does. */
const LAG_SAMPLE_MS = 500;

// Label values known in advance: their series are declared at zero (see Labelled.declare).
const DEPLOY_SOURCES = ['api', 'upload'] satisfies Array<EventMap['deploy.finished']['source']>;
const DEPLOY_OUTCOMES = ['published', 'already_current'] satisfies Array<EventMap['deploy.finished']['outcome']>;
const RATE_CLASSES = ['deploy', 'management', 'create', 'ai', 'canvas'];
const UPSTREAM_CLASSES = ['upstream_2xx', 'upstream_3xx', 'upstream_4xx', 'upstream_5xx'];
const FALLBACK_REASONS = ['unavailable', 'timeout', 'error', 'backing-off'] satisfies Array<EventMap['ratelimit.fallback']['reason']>;
const REMOTE_OPERATIONS = ['upload', 'fetch', 'delete'] satisfies Array<EventMap['blobs.remote']['operation']>;
const REMOTE_OUTCOMES = ['ok', 'failed', 'missing'] satisfies Array<EventMap['blobs.remote']['outcome']>;

const each = <T extends readonly string[]>(values: T) => values.map((v) => [v]);
const pairs = (a: readonly string[], b: readonly string[]) => a.flatMap((x) => b.map((y) => [x, y]));

/**
 * Every series Easel counts into, registered on `registry`. The Redis and
 * remote-blob families exist only where those backends are configured.
 */
function defineSeries(registry: Registry, backends: { redis: boolean; remoteBlobs: boolean }) {
  return {
    requests: registry.add(
      new Histogram(
        'easel_http_request_duration_seconds',
        'HTTP requests by route class, method and status, with their latency (the _count series is the request count)',
        ['route', 'method', 'status'],
        LATENCY_BUCKETS,
      ),
    ),
    deploys: registry.add(
      new Counter('easel_deploys_total', 'Deploys that committed, by source and outcome', ['source', 'outcome']).declare(
        ...pairs(DEPLOY_SOURCES, DEPLOY_OUTCOMES),
      ),
    ),
    deployBytes: registry.add(
      new Counter('easel_deploy_bytes_total', 'Bytes of the versions deploys published', ['source']).declare(...each(DEPLOY_SOURCES)),
    ),
    deploySeconds: registry.add(
      new Histogram(
        'easel_deploy_duration_seconds',
        'Deploy time, from the first byte of a ZIP or the finalize call of a staged upload to the answer',
        ['source'],
        DEPLOY_BUCKETS,
      ).declare(...each(DEPLOY_SOURCES)),
    ),
    realtimeFrames: registry.add(
      new Counter('easel_realtime_messages_total', 'Realtime frames fanned out to a channel, by type', ['type']),
    ),
    aiCalls: registry.add(new Counter('easel_ai_calls_total', 'AI calls settled, by model and outcome', ['model', 'outcome'])),
    aiTokens: registry.add(new Counter('easel_ai_tokens_total', 'AI tokens recorded, by model and direction', ['model', 'direction'])),
    aiSpend: registry.add(new Counter('easel_ai_spend_usd_total', 'AI spend recorded, in US dollars', ['model'])),
    connectionCalls: registry.add(
      new Counter('easel_connections_calls_total', 'Connections calls by outcome (upstream status class, or the error code)', [
        'outcome',
      ]).declare(...each(UPSTREAM_CLASSES)),
    ),
    refusals: registry.add(
      new Counter('easel_ratelimit_refusals_total', 'Requests refused by a rate-limit class', ['class']).declare(...each(RATE_CLASSES)),
    ),
    rateFallbacks: backends.redis
      ? registry.add(
          new Counter(
            'easel_ratelimit_fallbacks_total',
            "Rate-limit hits counted in this node's memory because Redis (EASEL_REDIS_URL) could not count them, by reason",
            ['reason'],
          ).declare(...each(FALLBACK_REASONS)),
        )
      : null,
    blobRemote: backends.remoteBlobs
      ? registry.add(
          new Counter(
            'easel_blob_remote_operations_total',
            'Requests to the remote blob store (EASEL_BLOB_URL), by operation and outcome',
            ['operation', 'outcome'],
          ).declare(...pairs(REMOTE_OPERATIONS, REMOTE_OUTCOMES)),
        )
      : null,
  };
}

/** How late the event loop wakes up: the last sample, and the worst since the previous scrape. */
class EventLoopLag implements Lifecycle {
  last = 0;
  worst = 0;
  private timer: Timer | null = null;

  start(): void {
    let expected = performance.now() + LAG_SAMPLE_MS;
    this.timer = setInterval(() => {
      const now = performance.now();
      this.last = Math.max(0, now - expected) / 1000;
      this.worst = Math.max(this.worst, this.last);
      expected = now + LAG_SAMPLE_MS;
    }, LAG_SAMPLE_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** The worst lag since the last call. */
  takeWorst(): number {
    const worst = this.worst;
    this.worst = this.last;
    return worst;
  }
}

/** Gauges read when Prometheus scrapes. */
function defineGauges(registry: Registry, sources: MetricsSources, lag: EventLoopLag): void {
  const disk = () => sources.diskUsage.read();
  const gauge = (name: string, help: string, read: () => number) => registry.add(new Gauge(name, help, read));
  gauge('easel_sqlite_database_bytes', 'Size of easel.db', () => disk().database.bytes);
  gauge('easel_sqlite_wal_bytes', 'Size of the write-ahead log (easel.db-wal)', () => disk().database.walBytes);
  gauge('easel_blob_bytes', 'Bytes in the blob store (measured at most once a minute)', () => disk().blobs.bytes);
  gauge('easel_blob_files', 'Blobs in the blob store (measured at most once a minute)', () => disk().blobs.files);
  if (sources.blobCache() !== null) {
    gauge('easel_blob_cache_bytes', "Bytes of this server's cache of a remote blob store", () => sources.blobCache()?.bytes ?? 0);
    gauge('easel_blob_cache_limit_bytes', 'The cache bound (EASEL_BLOB_CACHE_MB)', () => sources.blobCache()?.limitBytes ?? 0);
  }
  gauge('easel_disk_free_bytes', "Free bytes on the data directory's disk", () => disk().disk.freeBytes);
  gauge('easel_realtime_connections', 'Open realtime sockets', sources.realtimeConnections);
  gauge('easel_event_loop_lag_seconds', 'How late the event loop last woke for a timer', () => lag.last);
  gauge('easel_event_loop_lag_max_seconds', 'The worst event-loop lag since the previous scrape', () => lag.takeWorst());
  gauge('process_resident_memory_bytes', 'Resident memory of the process', () => process.memoryUsage.rss());
  gauge('process_heap_bytes', 'JavaScript heap in use', () => process.memoryUsage().heapUsed);
  registry.add(
    new Gauge(
      'process_cpu_seconds_total',
      'CPU time used by the process (user and system)',
      () => {
        const { user, system } = process.cpuUsage();
        return (user + system) / 1e6;
      },
      'counter',
    ),
  );
  gauge('process_open_fds', 'Open file descriptors (sockets, the database, blobs being served)', () => {
    try {
      return readdirSync('/proc/self/fd').length;
    } catch {
      return NaN;
    }
  });
  const started = Date.now() / 1000 - process.uptime();
  gauge('process_start_time_seconds', 'When the process started (Unix time)', () => started);
}

export class Metrics implements Lifecycle {
  private readonly registry = new Registry();
  private readonly series: ReturnType<typeof defineSeries>;
  private readonly lag = new EventLoopLag();
  /** route class → status × method index → its series, found once. */
  private readonly requestSeries = new Map<string, Map<number, HistogramSeries>>();
  private readonly canvasHostSuffix: string | null;
  private readonly unsubscribe: Array<() => void> = [];
  readonly contentType = CONTENT_TYPE;

  constructor(
    private readonly ctx: Pick<AppContext, 'config' | 'events'>,
    sources: MetricsSources,
  ) {
    this.canvasHostSuffix = ctx.config.urlMode === 'subdomain' ? `.${ctx.config.canvasHost.split(':')[0]!.toLowerCase()}` : null;
    this.series = defineSeries(this.registry, { redis: ctx.config.redis !== null, remoteBlobs: sources.blobCache() !== null });
    defineGauges(this.registry, sources, this.lag);
  }

  start(): void {
    this.lag.start();
    const { events } = this.ctx;
    const s = this.series;
    this.unsubscribe.push(
      events.on('deploy.finished', (e) => {
        s.deploys.inc([e.source, e.outcome]);
        s.deployBytes.inc([e.source], e.bytes);
        s.deploySeconds.observe([e.source], e.durationMs / 1000);
      }),
      events.on('realtime.fanout', (e) => s.realtimeFrames.inc([e.type])),
      events.on('ai.settled', (e) => {
        s.aiCalls.inc([e.model, e.outcome]);
        s.aiTokens.inc([e.model, 'input'], e.inputTokens);
        s.aiTokens.inc([e.model, 'output'], e.outputTokens);
        s.aiSpend.inc([e.model], e.costUsd);
      }),
      events.on('connections.finished', (e) => s.connectionCalls.inc([e.outcome])),
      events.on('ratelimit.refused', (e) => s.refusals.inc([e.class])),
      events.on('ratelimit.fallback', (e) => s.rateFallbacks?.inc([e.reason])),
      events.on('blobs.remote', (e) => s.blobRemote?.inc([e.operation, e.outcome])),
    );
  }

  stop(): void {
    this.lag.stop();
    for (const off of this.unsubscribe.splice(0)) off();
  }

  /** Called by the request wrapper once the answer is ready. */
  readonly observeRequest = (request: Request, status: number, seconds: number): void => {
    const route = routeClassOf(request.url, this.canvasHostSuffix === null ? null : request.headers.get('host'), this.canvasHostSuffix);
    const method = methodIndex(request.method);
    let byRoute = this.requestSeries.get(route);
    if (!byRoute) this.requestSeries.set(route, (byRoute = new Map()));
    const key = status * METHODS.length + method;
    let series = byRoute.get(key);
    if (!series) byRoute.set(key, (series = this.series.requests.series([route, METHODS[method]!, String(status)])));
    series.observe(seconds);
  };

  render(): string {
    return this.registry.render();
  }
}
