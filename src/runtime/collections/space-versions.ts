import type { Database } from 'bun:sqlite';
import type { RecordSpace } from './store.ts';

const CHANGED_FN = 'easel_records_changed';
/** Collections whose last write is remembered; past it the oldest is forgotten and `floor` moves up. */
const MAX_SPACES = 10_000;

/**
 * `changed` moves on every write that can alter any page of the collection;
 * `appended` on an insert whose id is above every id already there (ids are
 * time-ordered, so that is how records are created), which only the last,
 * partly filled page can see.
 */
export interface SpaceVersion {
  changed: number;
  appended: number;
}

const keyOf = (canvasId: string, collection: string) => `${canvasId}\n${collection}`;

/** The SQL function has one callback per connection: a second instance would silence the first. */
const perConnection = new WeakMap<Database, SpaceVersions>();

/**
 * Versions per collection that move whenever one of its records is
 * inserted, updated or deleted on this connection, whoever writes it (the
 * service, a test's raw SQL): TEMP triggers call back into JavaScript, as
 * DataVersion does for the access tables, so a cache of one collection's
 * pages stays valid while other collections are written.
 *
 * Versions come from one increasing clock. A collection never written reads
 * as `floor`; forgetting a collection raises `floor` to the clock, so a value
 * read before can never come back and vouch for a stale entry.
 */
export class SpaceVersions {
  private clock = 0;
  private floor = 0;
  /** Oldest write first (re-inserted on every write). */
  private readonly versions = new Map<string, SpaceVersion>();

  /** One per connection: the function and the triggers are made once. */
  static of(db: Database): SpaceVersions {
    let versions = perConnection.get(db);
    if (!versions) {
      versions = new SpaceVersions(db);
      perConnection.set(db, versions);
    }
    return versions;
  }

  private constructor(private readonly db: Database) {
    db.function(CHANGED_FN, (canvasId: unknown, collection: unknown, appended: unknown) => {
      this.bump(keyOf(String(canvasId), String(collection)), appended === 1);
      return null;
    });
    const changed = (row: 'NEW' | 'OLD') => `SELECT ${CHANGED_FN}(${row}.canvas_id, ${row}.collection, 0);`;
    // One primary-key probe: is anything of the collection above the new id?
    const inserted = `SELECT ${CHANGED_FN}(NEW.canvas_id, NEW.collection, NOT EXISTS (SELECT 1 FROM main.collection_records
      WHERE canvas_id = NEW.canvas_id AND collection = NEW.collection AND id > NEW.id));`;
    for (const [op, body] of [
      ['INSERT', inserted],
      ['UPDATE', changed('OLD') + changed('NEW')],
      ['DELETE', changed('OLD')],
    ] as const) {
      db.exec(
        `CREATE TEMP TRIGGER IF NOT EXISTS easel_records_${op.toLowerCase()} AFTER ${op} ON main.collection_records BEGIN ${body} END`,
      );
    }
  }

  current(space: RecordSpace): SpaceVersion {
    return this.versions.get(keyOf(space.canvasId, space.collection)) ?? { changed: this.floor, appended: this.floor };
  }

  /** Rows read inside a transaction may still be rolled back (which moves no version): not to be kept. */
  storable(): boolean {
    return !this.db.inTransaction;
  }

  private bump(key: string, appended: boolean): void {
    const was = this.versions.get(key) ?? { changed: this.floor, appended: this.floor };
    this.clock++;
    this.versions.delete(key);
    this.versions.set(key, appended ? { changed: was.changed, appended: this.clock } : { changed: this.clock, appended: this.clock });
    if (this.versions.size > MAX_SPACES) {
      this.versions.delete(this.versions.keys().next().value!);
      this.floor = this.clock;
    }
  }
}
