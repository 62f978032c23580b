import type { SQL } from 'bun';
import { ChangeCount } from './change-signal.ts';

const CHANNEL = 'easel_changed';

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

  constructor(client: SQL, onError: (err: unknown) => void) {
    super();
    this.subscription = client
      .listen(
        CHANNEL,
        () => this.move(),
        () => {
          this.listening = true;
          this.move();
        },
      )
      .catch((err: unknown) => {
        onError(err);
        return null;
      });
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
