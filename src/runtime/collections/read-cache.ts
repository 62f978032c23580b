import { LruCache } from '../../cache/lru.ts';
import { VERSIONED_TTL_MS } from '../../db/versioned-cache.ts';
import type { SpaceVersion } from './space-versions.ts';
import type { RecordSpace, StoredRecord } from './store.ts';

/** Larger pages are rendered each time: one would crowd out hundreds of small ones. */
const MAX_PAGE_CHARS = 256 * 1024;

export interface PageKey {
  /** Only this author's records; null for everyone's. */
  authorId: string | null;
  cursor: string;
  limit: number;
}

/** A rendered page, and whether more records follow it (then records appended later cannot change it). */
export interface RenderedPage {
  text: string;
  full: boolean;
}

interface Entry {
  /** A page's JSON text, or one record. */
  value: string | StoredRecord;
  /** Appends cannot change it: a record, or a page that more records follow. */
  closed: boolean;
  version: SpaceVersion;
  at: number;
}

const weigh = (e: Entry) => (typeof e.value === 'string' ? e.value.length : e.value.value.length + 64);

/** What the cache asks of the collection write versions (SpaceVersions on the embedded engine). */
export interface SpaceVersionSource {
  current(space: RecordSpace): SpaceVersion;
  storable(): boolean;
}

/**
 * For Postgres: writes by other nodes move no version here, so nothing is
 * kept and every read goes to the database.
 */
export const NOTHING_KEPT: SpaceVersionSource = { current: () => ({ changed: 0, appended: 0 }), storable: () => false };

/**
 * Reads of collection records kept while their collection is unchanged: any
 * update or delete, or any insert for the page that ends the collection,
 * makes them stale (SpaceVersions sees every write on this connection). What
 * is kept is what a query selects, whoever asks, so rights are checked by
 * the caller before and after. Entries also expire after VERSIONED_TTL_MS,
 * for writes by another process.
 */
export class RecordReadCache {
  private readonly entries = new LruCache<string, Entry>({ maxEntries: 8192, maxWeight: 32 * 1024 * 1024, weigh });

  constructor(
    private readonly versions: SpaceVersionSource,
    private readonly now: () => number,
  ) {}

  /** A list page as the JSON text the list route answers. */
  async page(space: RecordSpace, page: PageKey, render: () => Promise<RenderedPage>): Promise<string> {
    const key = `${space.canvasId}\n${space.collection}\n${page.authorId ?? '\u0000'}\n${page.cursor}\n${page.limit}`;
    return (await this.read(key, space, async () => {
      const { text, full } = await render();
      return { value: text, closed: full, keep: text.length <= MAX_PAGE_CHARS };
    })) as string;
  }

  /** One record; an absent one is not kept (it may be created later). */
  async record(space: RecordSpace, id: string, load: () => Promise<StoredRecord | null>): Promise<StoredRecord | null> {
    const key = `${space.canvasId}\n${space.collection}\n#${id}`;
    return (await this.read(key, space, async () => {
      const record = await load();
      return { value: record, closed: true, keep: true };
    })) as StoredRecord | null;
  }

  private async read(
    key: string,
    space: RecordSpace,
    load: () => Promise<{ value: Entry['value'] | null; closed: boolean; keep: boolean }>,
  ): Promise<Entry['value'] | null> {
    const version = this.versions.current(space);
    const hit = this.entries.peek(key);
    if (
      hit &&
      hit.version.changed === version.changed &&
      (hit.closed || hit.version.appended === version.appended) &&
      this.now() - hit.at < VERSIONED_TTL_MS
    ) {
      return hit.value;
    }
    // Loading only reads, after `version` was taken: a write in between moves the version past the
    // one kept here, so rows older than a write are never kept as current. Whether they may be kept
    // is asked as the load starts: SQLite reads them then, maybe inside a transaction.
    const storable = this.versions.storable();
    const loaded = await load();
    if (loaded.value !== null && loaded.keep && storable)
      this.entries.set(key, { value: loaded.value, closed: loaded.closed, version, at: this.now() });
    else this.entries.delete(key);
    return loaded.value;
  }
}
