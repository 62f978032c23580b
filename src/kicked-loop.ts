// A background loop that runs its tick every `everyMs` and at once when
// kicked (something was just recorded), never two ticks at a time and never
// in the kicker's turn: a kick during a tick runs one more tick after it.
// The notification outbox and the webhook deliveries send this way.
import type { Cancel, Scheduler } from './clock.ts';
import type { Logger } from './log.ts';

export interface KickedLoopDeps {
  scheduler: Scheduler;
  log: Logger;
  everyMs: number;
  /** Said in the log line when a tick throws. */
  name: string;
  tick: (stopped: () => boolean) => Promise<void>;
}

export class KickedLoop {
  private cancel: Cancel | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;

  constructor(private readonly d: KickedLoopDeps) {}

  start(): void {
    this.stopped = false;
    this.cancel = this.d.scheduler.interval(this.d.everyMs, () => this.kick());
    this.kick();
  }

  /** Ends the timer and waits for a tick under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancel?.();
    this.cancel = null;
    await this.running;
  }

  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = Promise.resolve()
      .then(() => this.d.tick(() => this.stopped))
      .catch((err) => this.d.log.warn(`${this.d.name} tick failed`, { error: err instanceof Error ? err.message : String(err) }))
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }
}
