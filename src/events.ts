// In-process notifications between features that must not import each other
// (e.g. deploy's unpublish closes realtime sockets). Listeners run
// synchronously; a failing listener is logged and never breaks the emitter.

export interface EventMap {
  /** Live pointer cleared. */
  'canvas.unpublished': { canvasId: string };
  /** A new version went live (deploy or rollback). */
  'canvas.published': { canvasId: string; versionId: string };
  /** Access settings changed (mode, password, expiry, members, status): open sessions must revalidate. */
  'canvas.access-changed': { canvasId: string };
  'canvas.deleted': { canvasId: string };
  /** A page asked for a collection or file group the canvas's runtime policy does not configure (refused COLLECTION_NOT_CONFIGURED). */
  'policy.unconfigured': { canvasId: string; kind: 'collection' | 'fileGroup'; name: string };
  /** An AI call was refused because the canvas's monthly AI budget is used up (`month`: YYYY-MM, UTC). */
  'ai.canvas-cap-reached': { canvasId: string; month: string; capUsd: number };
  /** A person's first submission to a collection of a canvas (not a replacement); `value` is the JSON text as stored. */
  'submission.created': { canvasId: string; collection: string; userId: string; value: string; updatedAt: number };
  /** A person replaced their submission. */
  'submission.updated': { canvasId: string; collection: string; userId: string; value: string; updatedAt: number };
  /** Submissions were removed: one person's (`userId`), or a whole collection's (`userId` null, `count` of them). */
  'submission.deleted': { canvasId: string; collection: string; userId: string | null; count: number };
  /** A collection record was created, replaced or incremented (`value`: its JSON text as stored). */
  'collection.record.created': {
    canvasId: string;
    collection: string;
    recordId: string;
    authorId: string;
    value: string;
    updatedAt: number;
  };
  'collection.record.updated': {
    canvasId: string;
    collection: string;
    recordId: string;
    authorId: string;
    value: string;
    updatedAt: number;
  };
  /** Records were deleted (one, or a clear's lot). */
  'collection.record.deleted': { canvasId: string; collection: string; recordIds: string[] };
  /** Somebody was put on a canvas's people list who was not on it (notifications mail them). */
  'canvas.member-added': { canvasId: string; userId: string; role: 'editor' | 'viewer'; byUserId: string };
  /** The canvas was given to another person (the previous owner stays on the list as an editor). */
  'canvas.owner-changed': { canvasId: string; fromUserId: string; toUserId: string; byUserId: string };
  /** Capability switches or the runtime policy changed. */
  'canvas.capabilities-changed': { canvasId: string };
  /** Deactivated, or lost the right to publish public links. */
  'user.changed': { userId: string };
  /** Somebody signed out (a session or a guest session ended): sockets it opened must go. */
  'session.ended': Record<string, never>;
  /** Instance settings changed (public links, AI, file quotas). */
  'settings.changed': Record<string, never>;

  // Signals: the server finished something (tests await these instead of sleeping; logs and metrics may listen).
  /** A realtime frame went out to a channel's topic: a message, or a presence join/leave. */
  'realtime.fanout': { canvasId: string; channel: string; type: 'message' | 'join' | 'leave'; actorId: string };
  /** The hub let go of a socket (its channels left, its slot free; with Redis, recorded there). */
  'realtime.closed': { canvasId: string; connectionId: string };
  /** With Redis: this node reaped a node whose heartbeat stopped (`people`: the leaves it sent). */
  'realtime.node-reaped': { nodeId: string; people: number };
  /** Usage counters were folded into usage_daily (`rows` canvas-days). */
  'usage.flushed': { rows: number };
  /** Insight counts were folded into the insight tables (`rows` canvas-days). */
  'insights.flushed': { rows: number };
  /** An AI call's run is over: settled and recorded, its provider call let go. */
  'ai.call-finished': { callId: string; canvasId: string };
  /** An in-flight deploy holds a blob against collection (it has the bytes, its version row is to come). */
  'blobs.held': { hash: string };
  /** A write found a deletion of one of its blobs marked by another node's collection, and waits until it is over. */
  'blobs.deletion-awaited': { hashes: number };
  /** A request to the remote blob store (EASEL_BLOB_URL) ended: `missing` when a fetched blob was not there or not what its name says. */
  'blobs.remote': { operation: 'upload' | 'fetch' | 'delete'; outcome: 'ok' | 'failed' | 'missing' };
  /** A scheduled whole-store blob sweep ran. */
  'blobs.swept': { removed: number };
  /** A deploy committed (`already_current`: the release was live already). `durationMs` from its first byte (ZIP) or its finalize call. */
  'deploy.finished': { source: 'api' | 'upload'; outcome: 'published' | 'already_current' | 'preview'; bytes: number; durationMs: number };
  /** An AI call was settled and recorded. */
  'ai.settled': { model: string; outcome: string; inputTokens: number; outputTokens: number; costUsd: number };
  /** A Connections call ended: `upstream_2xx`…`upstream_5xx`, or the platform's error code. */
  'connections.finished': { outcome: string };
  /** Something a person may be mailed about happened: `recorded` in the outbox, or `skipped` (turned off, or nobody to mail). */
  'notifications.considered': { kind: string; outcome: 'recorded' | 'skipped' };
  /** The hourly share-expiry scan ran (`recorded`: new notices). */
  'notifications.share-scan': { recorded: number };
  /** The hourly submission digest scan ran (`recorded`: digests put in the outbox). */
  'notifications.digest-scan': { recorded: number };
  /** The notification outbox tried to send a message: `retrying` and `failed` when the relay did not take it. */
  'notifications.attempted': { id: string; kind: string; outcome: 'sent' | 'retrying' | 'failed' };
  /** A webhook delivery was tried: `delivered`, `retrying`, `failed` (given up), or `paused` (its hook failed for 24 h and was paused). */
  'webhooks.attempted': { deliveryId: string; hookId: string; event: string; outcome: 'delivered' | 'retrying' | 'failed' | 'paused' };
  /** A rate-limit class refused a caller (`deploy`, `management`, `create`, `ai`, `canvas`). */
  'ratelimit.refused': { class: string };
  /** A rate-limit hit was counted in this node's memory because Redis could not count it (src/ratelimit/fallback-report.ts). */
  'ratelimit.fallback': { reason: 'unavailable' | 'timeout' | 'error' | 'backing-off' };
  /** The rate limits' Redis connection is up (at start, or again after an outage). */
  'ratelimit.redis-connected': Record<string, never>;
}

// A listener may return a promise: `emitAndRecord` waits for it, `emit` does not.
type Listener<K extends keyof EventMap> = (payload: EventMap[K]) => void | Promise<void>;

export class EventBus {
  private readonly listeners = new Map<keyof EventMap, Array<Listener<never>>>();

  constructor(private readonly onError: (event: string, err: unknown) => void = () => {}) {}

  on<K extends keyof EventMap>(event: K, listener: Listener<K>): () => void {
    const list = this.listeners.get(event) ?? [];
    list.push(listener as Listener<never>);
    this.listeners.set(event, list);
    return () => {
      const i = list.indexOf(listener as Listener<never>);
      if (i >= 0) list.splice(i, 1);
    };
  }

  /** Whether anybody listens: hot paths skip building a payload nobody reads. */
  has(event: keyof EventMap): boolean {
    return (this.listeners.get(event)?.length ?? 0) > 0;
  }

  emit<K extends keyof EventMap>(event: K, payload: EventMap[K]): void {
    const list = this.listeners.get(event);
    if (!list || list.length === 0) return;
    // Each call handles its own failure; emit does not wait for a listener (emitAndRecord does).
    for (const listener of [...list]) void this.call(event, listener as Listener<K>, payload);
  }

  /**
   * As `emit`, then waits until every listener's promise settled (failures
   * logged, never thrown): for a fact a listener must have recorded before
   * the request that caused it answers (a notification's outbox row).
   */
  async emitAndRecord<K extends keyof EventMap>(event: K, payload: EventMap[K]): Promise<void> {
    const list = this.listeners.get(event) ?? [];
    await Promise.all([...list].map((listener) => this.call(event, listener as Listener<K>, payload)));
  }

  private call<K extends keyof EventMap>(event: K, listener: Listener<K>, payload: EventMap[K]): Promise<void> | undefined {
    try {
      return listener(payload)?.catch((err: unknown) => this.onError(event, err));
    } catch (err) {
      this.onError(event, err);
      return undefined;
    }
  }
}
