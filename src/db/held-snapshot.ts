import { PostgresChanges } from './postgres-changes.ts';
import type { Sql } from './sql.ts';

/**
 * Small, rarely written tables held whole in memory so hot paths read them
 * without a wait (instance settings, Connection profiles and grants). When
 * the change signal says someone else may have written them (another node,
 * raw SQL), the next read starts a reload and answers with what is held until
 * it lands; a writer on this node reloads before it answers, and a request
 * waits for it (ChangeSignal.caughtUp) before it reads.
 */
export class HeldSnapshot<T> {
  private held: { value: T; mark: number | null } | null = null;
  private reloading: Promise<unknown> | null = null;
  private watching = false;

  constructor(
    private readonly sql: Sql,
    private readonly read: () => Promise<T>,
    private readonly onReloadError: (err: unknown) => void,
  ) {}

  /** Reads the tables into memory: at start, and after this node's own change. */
  async load(): Promise<T> {
    const changes = this.sql.changes;
    // Taken before reading: a write landing during the read leaves the snapshot marked stale.
    const mark = changes.storable() ? changes.current() : null;
    const value = await this.read();
    this.held = { value, mark };
    this.watch();
    return value;
  }

  /**
   * On Postgres another node's change arrives as a notification: the reload
   * starts then, not at the next read, so a request reaching this node after
   * it heard finds the new value (the first read would otherwise answer the
   * old one). On SQLite every writer is this process, which reloads itself.
   */
  private watch(): void {
    if (this.watching || this.sql.engine !== 'postgres') return;
    this.watching = true;
    const changes = this.sql.changes;
    // A read that follows another node's write waits for the reload, not the copy held meanwhile.
    if (changes instanceof PostgresChanges)
      changes.settleWith(() => {
        this.get();
        return this.settled();
      });
    void (async () => {
      for (;;) {
        await changes.next();
        this.get();
      }
    })();
  }

  get(): T {
    const held = this.held;
    if (!held) throw new Error('a held snapshot was read before it was loaded');
    if (held.mark === null || held.mark !== this.sql.changes.current()) this.reload();
    return held.value;
  }

  private reload(): void {
    this.reloading ??= this.load().then(
      () => {
        this.reloading = null;
        // A change heard while this reload read (a notification it swallowed): what landed may predate it.
        // Reload again now, not at the next read, which would answer the older copy.
        const mark = this.held!.mark;
        if (mark !== null && mark !== this.sql.changes.current()) this.reload();
      },
      (err: unknown) => {
        this.reloading = null;
        this.onReloadError(err);
      },
    );
  }

  /** The snapshot once the reloads begun by reads (and the changes heard meanwhile) have landed (tests wait on it). */
  async settled(): Promise<T> {
    while (this.reloading) await this.reloading;
    return this.held!.value;
  }
}
