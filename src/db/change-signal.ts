/**
 * The tables whose rows the per-node caches hold facts from (sessions and
 * the people behind them, canvases, their lists, the instance settings), and
 * the guests' invites and sessions (a revoked invite or a guest signed out
 * closes that guest's realtime sockets on every node). A write to any of them, by
 * any writer, moves the signal; caches trust an entry only while the signal
 * still reads the number the entry was loaded at.
 */
export const WATCHED_TABLES = [
  'users',
  'sessions',
  'canvases',
  'canvas_members',
  'settings',
  'connection_profiles',
  'connection_protected_headers',
  'connection_grants',
  'guest_invites',
  'guest_sessions',
] as const;

export interface ChangeSignal {
  /** Moves whenever a watched table changes. */
  current(): number;
  /** May rows read now be cached? Not inside a transaction (they may be rolled back), nor while changes could go unseen. */
  storable(): boolean;
  /** Resolves at the next move (tests wait on it instead of a clock). */
  next(): Promise<void>;
  /**
   * Null when every change committed so far has moved the signal already
   * (SQLite: this process makes them all); else a promise that resolves once
   * it has, and the held snapshots have reloaded (Postgres: another node's
   * change arrives later than that node's answer may reach a client).
   */
  caughtUp(): Promise<void> | null;
}

/** The moving number and its waiters, as both adapters keep them; each says when rows may be kept. */
export abstract class ChangeCount implements ChangeSignal {
  private n = 0;
  private waiters: Array<() => void> = [];

  current(): number {
    return this.n;
  }

  abstract storable(): boolean;

  caughtUp(): Promise<void> | null {
    return null;
  }

  next(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  protected move(): void {
    this.n++;
    if (this.waiters.length === 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
