// What the in-memory counters (usage, insights) share when a timer or
// shutdown writes what they took out of memory.
import type { Cancel } from './clock.ts';
import type { Logger } from './log.ts';

/**
 * Runs `write`; never throws. A failure means the database is gone (an app
 * closed without shutdown): it is logged as `{what} flush failed`, the timer
 * stops, and that batch's counts are lost.
 */
export async function writeCounts(what: string, log: Logger, cancelTimer: Cancel, write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (err) {
    cancelTimer();
    log.warn(`${what} flush failed`, { error: err instanceof Error ? err.message : String(err) });
  }
}
