import { mkdirSync, readdirSync, renameSync, rmSync, statSync, statfsSync, existsSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import { writeCapped } from '../streams/capped.ts';

const HASH = /^[0-9a-f]{64}$/;

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

/** Where a blob lives under a store's root (`ab/cd/<sha256>`): the store itself, and backups reading a data directory without opening one. */
export function blobPathUnder(root: string, hash: string): string {
  return join(root, hash.slice(0, 2), hash.slice(2, 4), hash);
}

/**
 * A content-addressed store under `<dataDir>/blobs`: `ab/cd/<sha256>`.
 * Writes go to `tmp/` and are renamed into place only once complete, so a
 * crash never leaves a partial blob under a real name.
 */
export class BlobStore {
  readonly root: string;
  readonly dataDir: string;
  private readonly tmp: string;
  /** Where the serving path keeps compressed copies (mirrors src/serve/compress.ts: `ab/<hash>.br|.gz`). */
  readonly compressedRoot: string;
  private readonly deleteListeners: Array<(hash: string) => void> = [];

  /**
   * `room`: the disk's free bytes and the floor to keep (EASEL_MIN_FREE_DISK_MB);
   * below it every write is refused with 507 before a byte is written.
   */
  constructor(
    dataDir: string,
    private readonly room: { freeBytes: () => number; minFreeBytes: number } = { freeBytes: () => freeBytesOf(dataDir), minFreeBytes: 0 },
  ) {
    this.dataDir = dataDir;
    this.root = join(dataDir, 'blobs');
    this.compressedRoot = join(dataDir, 'blobs-compressed');
    this.tmp = join(this.root, 'tmp');
    mkdirSync(this.tmp, { recursive: true });
    // Leftovers of writes interrupted by a crash are never referenced.
    for (const name of readdirSync(this.tmp)) rmSync(join(this.tmp, name), { force: true });
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
   * Streams `source` into the store, hashing as it goes. Stops with
   * BlobLimitError as soon as more than `maxBytes` arrive, and with
   * BlobHashMismatchError when `expectedHash` is given and does not match.
   */
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

  async put(
    source: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>,
    opts: { maxBytes?: number; expectedHash?: string } = {},
  ): Promise<StoredBlob> {
    this.ensureRoom();
    const tmpPath = join(this.tmp, newId());
    const hasher = new Bun.CryptoHasher('sha256');
    const limit = opts.maxBytes ?? Infinity;
    const size = await writeCapped(source, tmpPath, limit, {
      tooLarge: () => new BlobLimitError(limit),
      onChunk: (chunk) => hasher.update(chunk),
      sync: true,
    });
    const hash = hasher.digest('hex');
    if (opts.expectedHash !== undefined && opts.expectedHash !== hash) {
      rmSync(tmpPath, { force: true });
      throw new BlobHashMismatchError(opts.expectedHash, hash);
    }
    this.commit(tmpPath, hash);
    return { hash, size };
  }

  /** Stores bytes already in memory (small inputs only). */
  async putBytes(bytes: Uint8Array): Promise<StoredBlob> {
    this.ensureRoom(bytes.byteLength);
    const hash = new Bun.CryptoHasher('sha256').update(bytes).digest('hex');
    if (!this.has(hash)) {
      const tmpPath = join(this.tmp, newId());
      await Bun.write(tmpPath, bytes);
      this.commit(tmpPath, hash);
    }
    return { hash, size: bytes.byteLength };
  }

  private commit(tmpPath: string, hash: string): void {
    const target = this.pathOf(hash);
    if (existsSync(target)) {
      rmSync(tmpPath, { force: true });
      // Refresh the age so a sweep's grace period covers this new use too.
      const now = new Date();
      utimesSync(target, now, now);
      return;
    }
    mkdirSync(join(this.root, hash.slice(0, 2), hash.slice(2, 4)), { recursive: true });
    renameSync(tmpPath, target);
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
    rmSync(this.pathOf(hash), { force: true });
    for (const path of this.derivedPaths(hash)) rmSync(path, { force: true });
    for (const listener of this.deleteListeners) {
      try {
        listener(hash);
      } catch {
        // A listener's failure must not stop a collection half-way.
      }
    }
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
    for (const a of safeList(this.root)) {
      if (!/^[0-9a-f]{2}$/.test(a)) continue;
      for (const b of safeList(join(this.root, a))) {
        for (const name of safeList(join(this.root, a, b))) if (HASH.test(name)) yield name;
      }
    }
  }

  /**
   * Deletes stored blobs that `isReferenced` does not claim and that are older
   * than `graceMs` (so a blob written by an in-flight deploy, not yet
   * referenced by a committed row, is never collected). Returns the count.
   */
  sweep(isReferenced: (hash: string) => boolean, graceMs: number, now = Date.now()): number {
    let removed = 0;
    for (const hash of this.hashes()) {
      if (isReferenced(hash)) continue;
      try {
        if (now - statSync(this.pathOf(hash)).mtimeMs < graceMs) continue;
      } catch {
        continue;
      }
      this.delete(hash);
      removed++;
    }
    this.sweepOrphanCopies();
    return removed;
  }

  /** Compressed copies whose blob is gone (deleted before its copies were, or by a crash in between). */
  private sweepOrphanCopies(): void {
    for (const a of safeList(this.compressedRoot)) {
      if (!/^[0-9a-f]{2}$/.test(a)) continue;
      for (const name of safeList(join(this.compressedRoot, a))) {
        const hash = /^([0-9a-f]{64})\.(?:br|gz)$/.exec(name)?.[1];
        if (hash && !this.has(hash)) this.delete(hash);
      }
    }
  }
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
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
