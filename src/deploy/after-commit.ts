import type { AppContext } from '../context.ts';

/**
 * Runs `fn` once the surrounding transaction has committed: at once when
 * there is none, else on the microtask queue (transaction bodies are
 * synchronous, so it runs after the outermost commit). A failure is logged,
 * never thrown: the publication already happened.
 */
export function afterCommit(ctx: AppContext, fn: () => void): void {
  const run = () => {
    try {
      fn();
    } catch (err) {
      ctx.log.error('after-commit work failed', { error: String(err) });
    }
  };
  if (ctx.db.inTransaction) queueMicrotask(run);
  else run();
}
