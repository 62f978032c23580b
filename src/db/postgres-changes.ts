import type { SQL } from 'bun';
import { ChangeCount } from './change-signal.ts';

const CHANNEL = 'easel_changed';
/** A node's "have I heard everything before this?" mark on the channel, never a change. */
const MARK = 'mark:';

/**
 * The Postgres triggers behind the signal: every statement that writes a
 * watched table notifies the channel. Postgres delivers a notification when
 * (and only if) its transaction commits, to every node listening, and folds a
 * transaction's duplicates into one.
 */
export const CHANGE_FUNCTION = `
CREATE FUNCTION easel_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('${CHANNEL}', '');
  RETURN NULL;
END $$;
`;

/** The triggers for watched tables, in the migration that creates them (a test checks every watched table has one). */
export function changeTriggers(tables: readonly string[]): string {
  return tables
    .map(
      (table) => `CREATE TRIGGER ${table}_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table}
  FOR EACH STATEMENT EXECUTE FUNCTION easel_changed();\n`,
    )
    .join('');
}

/**
 * The ChangeSignal on Postgres: a count of the notifications this node has
 * heard, so a write committed by any node makes every node's cached facts
 * stale. Nothing is cached until the LISTEN is acknowledged; a reconnect
 * (which may have missed notifications) moves the count too. While a broken
 * connection is not yet noticed, entries still expire after
 * VERSIONED_TTL_MS.
 */
export class PostgresChanges extends ChangeCount {
  private listening = false;
  private readonly subscription: Promise<SQL.ListenSubscription | null>;
  /** This node's marks on the channel; a payload without this prefix is a change (the triggers send ''), or another node's mark. */
  private readonly markPrefix = `${MARK}${crypto.randomUUID()}:`;
  private marks = 0;
  /** The mark sent and not yet heard back, and the callers gathered for the next one (sent when it is heard). */
  private inFlight: { payload: string; done: () => void } | null = null;
  private gathering: { promise: Promise<void>; done: () => void } | null = null;
  private readonly settlers: Array<() => Promise<unknown>> = [];

  constructor(
    private readonly client: SQL,
    private readonly onError: (err: unknown) => void,
  ) {
    super();
    this.subscription = client
      .listen(
        CHANNEL,
        (payload) => this.heard(payload),
        () => {
          this.listening = true;
          this.move();
          // A (re)connected listener may have missed notifications, marks too: everything held is stale now.
          this.markHeard();
        },
      )
      .catch((err: unknown) => {
        onError(err);
        return null;
      });
  }

  private heard(payload: string): void {
    if (!payload.startsWith(MARK)) this.move();
    else if (payload === this.inFlight?.payload) this.markHeard();
  }

  /**
   * Caught up once a mark this node notifies after the call comes back on the
   * listening connection: Postgres delivers a session's notifications in
   * commit order, so every change committed before the call (the write a
   * client was answered for on another node) has moved the signal by then.
   * Callers arriving while a mark is out wait for the next one, sent when it
   * is heard: one round trip at a time, however many requests wait on it.
   */
  override caughtUp(): Promise<void> | null {
    if (!this.listening) return null; // nothing is held until then
    let gathering = this.gathering;
    if (!gathering) {
      let done!: () => void;
      const promise = new Promise<void>((resolve) => (done = resolve));
      gathering = this.gathering = { promise, done };
      if (!this.inFlight) this.sendMark();
    }
    return gathering.promise.then(() => this.settle());
  }

  /** A held snapshot waits for its reload before a caught-up read (HeldSnapshot registers itself). */
  settleWith(settle: () => Promise<unknown>): void {
    this.settlers.push(settle);
  }

  private async settle(): Promise<void> {
    await Promise.all(this.settlers.map((settle) => settle()));
  }

  private sendMark(): void {
    const batch = this.gathering!;
    this.gathering = null;
    const payload = this.markPrefix + ++this.marks;
    this.inFlight = { payload, done: batch.done };
    this.client.notify(CHANNEL, payload).catch((err: unknown) => {
      // The database is unreachable: the requests go on with what is held (those that need the database fail there).
      this.onError(err);
      if (this.inFlight?.payload === payload) this.markHeard();
    });
  }

  private markHeard(): void {
    const heard = this.inFlight;
    this.inFlight = null;
    heard?.done();
    if (this.gathering) this.sendMark();
  }

  storable(): boolean {
    return this.listening;
  }

  /**
   * This node committed a write to a watched table: its own caches are stale
   * now, not when its notification comes back (a few milliseconds later), as
   * SQLite's triggers move the signal at the write itself.
   */
  committedHere(): void {
    this.move();
  }

  async close(): Promise<void> {
    this.listening = false;
    await (await this.subscription)?.unlisten();
  }
}
