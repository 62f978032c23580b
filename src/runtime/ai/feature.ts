// The AI feature's parts for one app: the call store, the service, the
// provider opener and the timings (options let tests shorten them), plus the
// calls in flight so stop() can abort and record them.
import type { Cancel } from '../../clock.ts';
import { NODE_TTL_MS } from '../../cluster/node-registry.ts';
import type { Core } from '../../foundation.ts';
import type { Lifecycle } from '../../lifecycle.ts';
import type { RuntimePipeline } from '../pipeline.ts';
import { DEFAULT_TUNING, type AiTuning } from './chat-run.ts';
import { anthropicOpener, type OpenStream } from './provider.ts';
import { AiService } from './service.ts';
import { AiCallStore } from './store.ts';

/** The part of the app context this feature uses. */
export type AiDeps = Pick<Core, 'config' | 'sql' | 'log' | 'now' | 'nodeId' | 'scheduler' | 'settings' | 'events'>;

export interface AiFeature extends Lifecycle {
  store: AiCallStore;
  service: AiService;
  open: OpenStream;
  tuning: AiTuning;
  /** Registers a running call (its abort); the returned function marks it finished. */
  track(abort: () => void): () => void;
}

export interface AiOptions {
  tuning?: Partial<AiTuning>;
}

/** How long stop() waits for aborted calls to record themselves before the database closes. */
const SHUTDOWN_SETTLE_MS = 2_000;

export function createAiFeature(ctx: AiDeps, pipeline: RuntimePipeline, options: AiOptions = {}): AiFeature {
  const store = new AiCallStore(ctx.sql, ctx.nodeId);
  let cancelSweep: Cancel = () => {};
  // On a cluster other nodes keep calling while one restarts or dies: only dead nodes' reservations are orphans.
  const settleOrphans = async (): Promise<void> => {
    const onCluster = ctx.sql.engine === 'postgres';
    const orphans = await store.settleOrphans(ctx.now(), onCluster ? ctx.now() - NODE_TTL_MS : null);
    if (orphans > 0) ctx.log.warn('ai: settled calls left running by a stopped process', { count: orphans });
  };
  const running = new Set<{ abort: () => void; finished: Promise<void> }>();
  return {
    store,
    service: new AiService({
      store,
      settings: () => ctx.settings.get(),
      now: ctx.now,
      log: ctx.log,
      events: ctx.events,
      capabilityRefusal: (canvas) => pipeline.capabilityRefusal(canvas, 'ai'),
    }),
    open: anthropicOpener(ctx.config.aiBaseUrl, ctx.log),
    tuning: { ...DEFAULT_TUNING, ...options.tuning },
    track(abort) {
      let finish!: () => void;
      const entry = { abort, finished: new Promise<void>((r) => (finish = r)) };
      running.add(entry);
      return () => {
        running.delete(entry);
        finish();
      };
    },
    // Reservations a previous process left behind are settled before any call of this process exists.
    async start() {
      await settleOrphans();
      if (ctx.sql.engine === 'postgres')
        cancelSweep = ctx.scheduler.interval(NODE_TTL_MS, () =>
          settleOrphans().catch((err: unknown) => ctx.log.warn('ai: settling orphaned calls failed', { error: String(err) })),
        );
    },
    // Streams still open when the server stops are aborted and recorded while the database is still there.
    async stop() {
      cancelSweep();
      if (running.size === 0) return;
      const finished = [...running].map((r) => r.finished);
      for (const r of running) r.abort();
      let timer: Timer | undefined;
      await Promise.race([Promise.all(finished), new Promise((r) => (timer = setTimeout(r, SHUTDOWN_SETTLE_MS)))]);
      clearTimeout(timer);
    },
  };
}
