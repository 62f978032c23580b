import type { AppContext } from '../../context.ts';
import { capabilityRefusal } from '../pipeline.ts';
import { DEFAULT_TUNING, type AiTuning } from './chat-run.ts';
import { anthropicOpener, type OpenStream } from './provider.ts';
import { AiService } from './service.ts';
import { AiCallStore } from './store.ts';

/** The AI feature's parts for one app context. `tuning` is mutable so tests can shorten the timings. */
export interface AiFeature {
  store: AiCallStore;
  service: AiService;
  open: OpenStream;
  tuning: AiTuning;
  /** Registers a running call (its abort); the returned function marks it finished. */
  track(abort: () => void): () => void;
}

/** How long shutdown waits for aborted calls to record themselves before the database closes. */
const SHUTDOWN_SETTLE_MS = 2_000;

const features = new WeakMap<AppContext, AiFeature>();

/**
 * The one AI feature of this app context, created on first use (when the
 * routes are built, i.e. at start). Reservations a previous process left
 * behind are settled then, before any call of this process exists.
 */
export function aiOf(ctx: AppContext): AiFeature {
  let f = features.get(ctx);
  if (!f) {
    const store = new AiCallStore(ctx.db);
    const orphans = store.settleOrphans(ctx.now());
    if (orphans > 0) ctx.log.warn('ai: settled calls left running by a previous process', { count: orphans });
    const running = new Set<{ abort: () => void; finished: Promise<void> }>();
    f = {
      store,
      service: new AiService({
        store,
        settings: () => ctx.settings.get(),
        now: ctx.now,
        log: ctx.log,
        capabilityRefusal: (canvas) => capabilityRefusal(ctx, canvas, 'ai'),
      }),
      open: anthropicOpener(ctx.config.aiBaseUrl, ctx.log),
      tuning: { ...DEFAULT_TUNING },
      track(abort) {
        let finish!: () => void;
        const entry = { abort, finished: new Promise<void>((r) => (finish = r)) };
        running.add(entry);
        return () => {
          running.delete(entry);
          finish();
        };
      },
    };
    // Streams still open when the server stops are aborted and recorded while the database is still there.
    ctx.onShutdown.push(async () => {
      if (running.size === 0) return;
      const finished = [...running].map((r) => r.finished);
      for (const r of running) r.abort();
      let timer: Timer | undefined;
      await Promise.race([Promise.all(finished), new Promise((r) => (timer = setTimeout(r, SHUTDOWN_SETTLE_MS)))]);
      clearTimeout(timer);
    });
    features.set(ctx, f);
  }
  return f;
}
