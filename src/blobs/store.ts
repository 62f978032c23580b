import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, statfsSync, existsSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import { writeCapped } from '../streams/capped.ts';
import type { BlobHold } from './hold.ts';
import { inParallel } from './in-parallel.ts';
import { blobFilesUnder, blobPathUnder, list, openBlobLayout, renameIntoStore, type LayoutMigration } from './layout.ts';
import { LocalCopies } from './local-copies.ts';
import type { BlobRemote } from './remote.ts';
import { RemoteTier, type RemoteOperation, type RemoteOutcome } from './remote-tier.ts';

const HASH = /^[0-9a-f]{64}$/;
const SMALL_UPLOADS_AT_ONCE = 8;
const BIG_UPLOAD_BYTES = 5 * 1024 * 1024;

export interface StoredBlob {
  hash: string;
  size: number;
}

/** Thrown by the streaming writers; callers map it to their route's error code. */
export class BlobLimitError extends Error {
  constructor(readonly limit: number) {
    super(`blob larger than ${limit} bytes`);
  }
}

export class BlobHashMismatchError extends Error {
  constructor(
    readonly expected: string,
    readonly actual: string,
  ) {
    super('blob bytes do not match the expected sha256');
  }
}

/** Written once a remote tier holds every blob of the data directory: from then on the local folder is only a cache. */
export function remoteMarkerPath(dataDir: string): string {
  return join(dataDir, 'blobs', '.remote-seeded');
}

/** The remote location a data directory's blobs were moved to, or null when they never were. */
export function remoteLocationOf(dataDir: string): string | null {
  try {
    return readFileSync(remoteMarkerPath(dataDir), 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/** Blobs kept on a shared store (EASEL_BLOB_URL): the local folder is then a bounded cache. */
export interface RemoteOptions {
  remote: BlobRemote;
  cacheBytes: number;
  now?: () => number;
  /** Told how each remote request ended (metrics). */
  observe?: (operation: RemoteOperation, outcome: RemoteOutcome) => void;
}

/**
 * A content-addressed store under `<dataDir>/blobs`: `ab/<sha256>` (see
 * layout.ts; a store in the older two-level layout is migrated on open).
 * Writes go to `tmp/` and are renamed into place only once complete, so a
 * crash never leaves a partial blob under a real name.
 *
 * With a remote tier, a blob is uploaded before it gets its local name (so a
 * local copy always has its remote one), reads fetch a missing copy first
 * (`local`), and copies beyond the cache bound are dropped, least recently
 * used first. Without one, the folder is the store and nothing is dropped.
 */
export class BlobStore {
  readonly root: string;
  readonly dataDir: string;
  private readonly tmp: string;
  /** Where the serving path keeps compressed copies (mirrors src/serve/compress.ts: `ab/<hash>.br|.gz`). */
  readonly compressedRoot: string;
  private readonly deleteListeners: Array<(hash: string) => void> = [];
  readonly remote: BlobRemote | null;
  /** Local copies, bounded (remote tier only). */
  private readonly copies: LocalCopies | null;
  /** Copies being fetched: one download per hash however many readers wait. */
  private readonly fetching = new Map<string, Promise<boolean>>();
  private readonly tier: RemoteTier | null;
  /** False until local blobs a remote tier may lack have been uploaded (see seedRemote): until then nothing is dropped. */
  private seeded: boolean;
  /** What opening did to a store in the older two-level layout (the caller logs it); null when it was one-level already. */
  readonly layoutMigration: LayoutMigration | null;

  /**
   * `room`: the disk's free bytes and the floor to keep (EASEL_MIN_FREE_DISK_MB);
   * below it every write is refused with 507 before a byte is written.
   */
  constructor(
    dataDir: string,
    private readonly room: { freeBytes: () => number; minFreeBytes: number } = { freeBytes: () => freeBytesOf(dataDir), minFreeBytes: 0 },
    options: RemoteOptions | null = null,
  ) {
    this.dataDir = dataDir;
    this.root = join(dataDir, 'blobs');
    this.compressedRoot = join(dataDir, 'blobs-compressed');
    this.tmp = join(this.root, 'tmp');
    // Before anything reads a blob: a store written by an older release moves to the one-level layout here.
    this.layoutMigration = openBlobLayout(this.root);
    mkdirSync(this.tmp, { recursive: true });
    // Leftovers of writes interrupted by a crash are never referenced.
    for (const name of readdirSync(this.tmp)) rmSync(join(this.tmp, name), { force: true });
    this.remote = options?.remote ?? null;
    this.tier = options ? new RemoteTier(options.remote, options.observe) : null;
    this.seeded = options === null;
    this.copies = options
      ? new LocalCopies(options.cacheBytes, options.now ?? Date.now, (hash) => this.seeded && this.dropLocal(hash))
      : null;
    // The copies a previous run left count against the bound from the start.
    if (this.copies) for (const hash of this.hashes()) this.copies.use(hash, this.size(hash) ?? 0);
  }

  pathOf(hash: string): string {
    if (!HASH.test(hash)) throw new Error('not a sha256 hex digest');
    return blobPathUnder(this.root, hash);
  }

  has(hash: string): boolean {
    return HASH.test(hash) && existsSync(this.pathOf(hash));
  }

  size(hash: string): number | null {
    try {
      return statSync(this.pathOf(hash)).size;
    } catch {
      return null;
    }
  }

  file(hash: string) {
    return Bun.file(this.pathOf(hash));
  }

  /**
   * 507 INSUFFICIENT_STORAGE when writing `incoming` bytes would leave less
   * than the floor free: deploys, uploads and files call it before they
   * start, every write calls it again, so nothing is left half-written.
   */
  ensureRoom(incoming = 0): void {
    const free = this.room.freeBytes();
    if (free - incoming < this.room.minFreeBytes) {
      throw new AppError(
        'INSUFFICIENT_STORAGE',
        `the server's disk is nearly full (${Math.floor(free / 1024 / 1024)} MiB free, ${Math.floor(this.room.minFreeBytes / 1024 / 1024)} MiB kept in reserve): an administrator must make room`,
        {},
        { status: 507 },
      );
    }
  }

  /**
   * Streams `source` into the store, hashing as it goes. Stops with
   * BlobLimitError as soon as more than `maxBytes` arrive, and with
   * BlobHashMismatchError when `expectedHash` is given and does not match.
   * With `hold`, the blob is held (and secured) before the store is asked
   * whether it has it already.
   */
  async put(
    source: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>,
    opts: { maxBytes?: number; expectedHash?: string; hold?: BlobHold } = {},
  ): Promise<StoredBlob> {
    this.ensureRoom();
    const tmpPath = join(this.tmp, newId());
    const hasher = new Bun.CryptoHasher('sha256');
    const limit = opts.maxBytes ?? Infinity;
    const size = await writeCapped(source, tmpPath, limit, {
      tooLarge: () => new BlobLimitError(limit),
      onChunk: (chunk) => {
        hasher.update(chunk);
      },
      sync: true,
    });
    const hash = hasher.digest('hex');
    if (opts.expectedHash !== undefined && opts.expectedHash !== hash) {
      rmSync(tmpPath, { force: true });
      throw new BlobHashMismatchError(opts.expectedHash, hash);
    }
    await this.commit(tmpPath, hash, size, opts.hold);
    return { hash, size };
  }

  /** Stores bytes already in memory (small inputs only). */
  async putBytes(bytes: Uint8Array, hold?: BlobHold): Promise<StoredBlob> {
    this.ensureRoom(bytes.byteLength);
    const hash = new Bun.CryptoHasher('sha256').update(bytes).digest('hex');
    // With a remote tier a local copy does not tell that the store holds the blob (commit checks).
    if (!this.has(hash) || this.tier) {
      const tmpPath = join(this.tmp, newId());
      await Bun.write(tmpPath, bytes);
      await this.commit(tmpPath, hash, bytes.byteLength, hold);
    } else hold?.add(hash);
    return { hash, size: bytes.byteLength };
  }

  private async commit(tmpPath: string, hash: string, size: number, hold?: BlobHold): Promise<void> {
    if (hold) {
      hold.add(hash);
      try {
        await hold.secure();
      } catch (err) {
        rmSync(tmpPath, { force: true });
        throw err;
      }
    }
    const target = this.pathOf(hash);
    if (existsSync(target)) {
      try {
        if ((await this.lostRemotely([hash])).length > 0) await this.upload(hash, tmpPath);
      } finally {
        rmSync(tmpPath, { force: true });
      }
      // Refresh the age so a sweep's grace period covers this new use too.
      const now = new Date();
      utimesSync(target, now, now);
      this.copies?.use(hash, size);
      return;
    }
    try {
      await this.upload(hash, tmpPath);
    } catch (err) {
      rmSync(tmpPath, { force: true });
      throw err;
    }
    renameIntoStore(tmpPath, target);
    this.copies?.use(hash, size);
  }

  /**
   * With a remote tier: stores a complete local file remotely, before it gets
   * a local name (the deploy writer calls it too). A 503 STORAGE_UNAVAILABLE
   * when the remote refuses, so the write fails whole and nothing names it.
   */
  async upload(hash: string, path: string): Promise<void> {
    await this.tier?.upload(hash, path);
  }

  /**
   * Of `hashes` with a local copy here, those the remote tier no longer
   * holds: with a remote tier the local copies are a cache, and another node
   * may have collected a blob since this one wrote or fetched it (its
   * collection cannot drop this node's copy). A write that finds a local
   * copy asks, and uploads the bytes again when the blob is gone.
   */
  async lostRemotely(hashes: string[]): Promise<string[]> {
    const tier = this.tier;
    if (!tier) return [];
    const lost: string[] = [];
    await inParallel(hashes, SMALL_UPLOADS_AT_ONCE, async (hash) => {
      if ((await tier.size(hash)) === null) lost.push(hash);
    });
    return lost;
  }

  /**
   * Uploads a deploy's new blobs ([hash, local file] pairs): small ones eight
   * at a time (each is a round trip), big ones one at a time beside them (each
   * holds a part in memory while it is sent; eight at once tripled a 95 MB
   * deploy's peak memory for no speed).
   */
  async uploadMany(files: Array<[hash: string, path: string]>): Promise<void> {
    if (!this.tier) return;
    const big = files.filter(([, path]) => statSync(path).size > BIG_UPLOAD_BYTES);
    const small = files.filter((f) => !big.includes(f));
    const upload = ([hash, path]: [string, string]) => this.upload(hash, path);
    // Both lanes end before a failure is told, so the caller's cleanup never pulls a file from under an upload.
    const lanes = await Promise.allSettled([inParallel(small, SMALL_UPLOADS_AT_ONCE, upload), inParallel(big, 1, upload)]);
    const failed = lanes.find((lane) => lane.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }

  /** The local cache's use and bound with a remote tier; null without one (the folder is then the store). */
  cache(): { bytes: number; copies: number; limitBytes: number } | null {
    return this.copies ? { bytes: this.copies.bytes, copies: this.copies.count, limitBytes: this.copies.limitBytes } : null;
  }

  /** A copy the caller already knows is here was used again: it moves to the back of the cache's line (remote tier only). */
  touch(hash: string): void {
    this.copies?.touch(hash);
  }

  /** A local copy was written outside `put` (the deploy writer renames its own): count it against the cache bound. */
  noteLocal(hash: string, size: number): void {
    this.copies?.use(hash, size);
  }

  /**
   * Makes sure a local copy exists, fetching it from the remote tier when
   * there is one: true when `pathOf(hash)` may now be read, false when the
   * blob is stored nowhere (or failed its hash on the way). Synchronous in
   * the embedded store, so the serving path costs no extra turn there.
   */
  local(hash: string): boolean | Promise<boolean> {
    if (!HASH.test(hash)) return false;
    const present = existsSync(this.pathOf(hash));
    if (!this.copies) return present;
    if (present) {
      this.copies.use(hash, this.size(hash) ?? 0);
      return true;
    }
    let job = this.fetching.get(hash);
    if (!job) {
      job = this.fetch(hash).finally(() => this.fetching.delete(hash));
      this.fetching.set(hash, job);
    }
    return job;
  }

  private async fetch(hash: string): Promise<boolean> {
    const tmpPath = join(this.tmp, newId());
    const size = await this.tier!.download(hash, tmpPath);
    if (size === null) return false;
    renameIntoStore(tmpPath, this.pathOf(hash));
    this.copies!.use(hash, size);
    return true;
  }

  /**
   * The blob's size in the store; null when it is stored nowhere. With a
   * remote tier that is the remote's answer: a local copy is a cache, and may
   * outlive the object another node collected (see lostRemotely).
   */
  async sizeOf(hash: string): Promise<number | null> {
    if (!this.tier || !HASH.test(hash)) return this.size(hash);
    return this.tier.size(hash);
  }

  /** Files derived from a blob that must go with it: its cached compressed copies. */
  derivedPaths(hash: string): string[] {
    const dir = join(this.compressedRoot, hash.slice(0, 2));
    return [join(dir, `${hash}.br`), join(dir, `${hash}.gz`)];
  }

  /**
   * Removes the blob and its derived copies, then tells the listeners (a
   * cache that remembers a copy's path must forget it: the same bytes may
   * come back later under the same hash).
   */
  delete(hash: string): void {
    void this.remove(hash);
  }

  /** `delete`, resolved once the remote deletion is over. */
  remove(hash: string): Promise<void> {
    const job = this.tier?.delete(hash) ?? Promise.resolve();
    this.dropLocal(hash);
    return job;
  }

  /** Removes the local copy and its derived copies, and tells the listeners. */
  private dropLocal(hash: string): boolean {
    rmSync(this.pathOf(hash), { force: true });
    this.copies?.forget(hash);
    for (const path of this.derivedPaths(hash)) rmSync(path, { force: true });
    for (const listener of this.deleteListeners) {
      try {
        listener(hash);
      } catch {
        // A listener's failure must not stop a collection half-way.
      }
    }
    return true;
  }

  /** Called with each hash `delete` removed; answers the unsubscribe function. */
  onDelete(listener: (hash: string) => void): () => void {
    this.deleteListeners.push(listener);
    return () => {
      const i = this.deleteListeners.indexOf(listener);
      if (i >= 0) this.deleteListeners.splice(i, 1);
    };
  }

  /** Every stored hash (walks the fan-out folders). */
  *hashes(): Generator<string> {
    for (const { hash } of blobFilesUnder(this.root)) yield hash;
  }

  /** Every blob in the store with when it was written: with a remote tier the remote listing is the store. */
  stored(): AsyncIterable<{ hash: string; modifiedMs: number }> | Iterable<{ hash: string; modifiedMs: number }> {
    return this.remote ? this.remote.list() : this.localAges();
  }

  private *localAges(): Generator<{ hash: string; modifiedMs: number }> {
    for (const hash of this.hashes()) {
      const modifiedMs = this.mtimeOf(hash);
      if (modifiedMs !== null) yield { hash, modifiedMs };
    }
  }

  /** When the local copy was last written or re-used; null without one. */
  mtimeOf(hash: string): number | null {
    try {
      return statSync(this.pathOf(hash)).mtimeMs;
    } catch {
      return null;
    }
  }

  /**
   * Uploads local blobs the remote tier may lack (a data directory that ran
   * embedded before, or a restored backup), once per remote location; until
   * it is done no local copy is dropped. Returns the count uploaded.
   */
  async seedRemote(): Promise<number> {
    if (!this.remote || this.seeded) return 0;
    const marker = remoteMarkerPath(this.dataDir);
    let uploaded = 0;
    if (remoteLocationOf(this.dataDir) === null) {
      for (const hash of [...this.hashes()]) {
        if ((await this.remote.stat(hash).catch(() => null)) !== null) continue;
        await this.upload(hash, this.pathOf(hash));
        uploaded++;
      }
      await Bun.write(marker, `${this.remote.location}\n`);
    }
    this.seeded = true;
    return uploaded;
  }

  /** Drops compressed copies whose blob is gone (deleted before its copies were, or by a crash in between). */
  sweepOrphanCopies(): void {
    for (const a of list(this.compressedRoot)) {
      if (!/^[0-9a-f]{2}$/.test(a)) continue;
      for (const name of list(join(this.compressedRoot, a))) {
        const hash = /^([0-9a-f]{64})\.(?:br|gz)$/.exec(name)?.[1];
        if (hash && !this.has(hash)) this.dropLocal(hash);
      }
    }
  }
}

/** Free bytes for unprivileged writers on the file system holding `dir`. */
export function freeBytesOf(dir: string): number {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return Number.MAX_SAFE_INTEGER;
  }
}
