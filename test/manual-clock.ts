// A clock and scheduler tests move by hand: pass `now` and `scheduler` to the
// app, then `advance(ms)` runs every timer that falls due, in time order,
// with `now()` set to each timer's due time as it runs.
import type { Cancel, Scheduler } from '../src/clock.ts';

interface Task {
  at: number;
  every: number | null;
  fn: () => void;
  seq: number;
  cancelled: boolean;
}

export class ManualClock {
  private time: number;
  private seq = 0;
  private tasks: Task[] = [];

  constructor(start = Date.UTC(2026, 0, 5, 9, 0, 0)) {
    this.time = start;
  }

  readonly now = (): number => this.time;

  readonly scheduler: Scheduler = {
    timeout: (ms, fn) => this.add(ms, null, fn),
    interval: (ms, fn) => this.add(ms, Math.max(1, ms), fn),
  };

  /** Timers waiting to run. */
  get pending(): number {
    return this.tasks.filter((t) => !t.cancelled).length;
  }

  /** Moves time forward by `ms`, running what falls due on the way. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const due = this.tasks.filter((t) => !t.cancelled && t.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.time = Math.max(this.time, due.at);
      if (due.every === null) due.cancelled = true;
      else due.at += due.every;
      due.fn();
    }
    this.tasks = this.tasks.filter((t) => !t.cancelled);
    this.time = end;
  }

  /**
   * Moves time forward by `ms` like a process that slept through it: every
   * timer that fell due runs once, at the end, in order (a month of advance()
   * is half a million 5-second heartbeats, each a round trip on a cluster).
   */
  skip(ms: number): void {
    const end = this.time + ms;
    this.time = end;
    const due = this.tasks.filter((t) => !t.cancelled && t.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq);
    for (const task of due) {
      if (task.cancelled) continue;
      if (task.every === null) task.cancelled = true;
      else task.at += Math.ceil((end - task.at + 1) / task.every) * task.every;
      task.fn();
    }
    this.tasks = this.tasks.filter((t) => !t.cancelled);
  }

  /** Moves the clock without running timers (time that passed while nothing was scheduled to look). */
  set(ms: number): void {
    this.time = ms;
  }

  private add(ms: number, every: number | null, fn: () => void): Cancel {
    const task: Task = { at: this.time + Math.max(0, ms), every, fn, seq: this.seq++, cancelled: false };
    this.tasks.push(task);
    return () => {
      task.cancelled = true;
    };
  }
}
