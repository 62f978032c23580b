// Writes a deploy's inflated files into the content-addressed blob store.
// Each hash is held against garbage collection before its existence is
// checked. New blobs are written to temporary files on the thread pool, a
// few at a time (the event loop keeps receiving and inflating meanwhile; a
// full window makes `write` wait, which holds the request body back, so
// memory stays flat); `commit` waits for every write, makes them durable
// (one syncfs off the event loop, or an fdatasync per file where that is unavailable) and only
// then renames them into place, so no real name ever points at bytes a power
// cut could lose, and the version row is written after its blobs are
// durable. A failed deploy removes exactly the blobs it created.
import { closeSync, existsSync, fdatasync, openSync, rmSync, utimesSync } from 'node:fs';
import { rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppContext } from '../context.ts';
import { newId } from '../ids.ts';
import { syncFilesystemOffLoop } from './durable.ts';
import { inParallel } from './in-parallel.ts';
import { renameIntoStoreOffLoop } from './layout.ts';

/** File-by-file fallback: syncs in flight at once. */
const PARALLEL_SYNCS = 16;
/** Staged blobs moved into place at once by `commit`. */
const PARALLEL_RENAMES = 16;
/** Lent bytes up to this size are copied (and the write runs on); larger ones are written before `write` returns. */
const COPY_LENT_UP_TO = 1024 * 1024;
/**
 * Blob files being written at once, and their bytes: enough to keep the
 * thread pool busy while the next entries inflate, few enough that a deploy
 * holds at most this much beyond the entry in hand (one file may be larger).
 */
export const WRITE_WINDOW = { files: 8, bytes: 16 * 1024 * 1024 } as const;

export class DeployBlobWriter {
  private readonly hold;
  /** New blobs: hash → temporary file. */
  private readonly pending = new Map<string, string>();
  /** Blobs this deploy created, with the mtime it left them with. */
  private readonly created = new Map<string, number>();
  /** Blobs found as local copies: with a remote tier, checked against it at commit (BlobStore.lostRemotely). */
  private readonly reused = new Set<string>();
  /** Temporary files being written, and their bytes. */
  private readonly writing = new Set<Promise<void>>();
  private writingBytes = 0;
  /** Temporary names: this deploy's id and a count (a random id per blob cost ~35 ms per 2,000 files). */
  private readonly tmpPrefix = `blob-${newId()}-`;
  private tmpCount = 0;
  /** The first write that failed: every later step throws it. */
  private failure: { error: unknown } | null = null;

  /** `perFile` forces the file-by-file fallback (systems without syncfs; tests). */
  constructor(
    private readonly ctx: Pick<AppContext, 'blobs' | 'blobGc'>,
    private readonly tmpDir: string,
    private readonly options: { perFile?: boolean } = {},
  ) {
    this.hold = ctx.blobGc.hold();
  }

  /**
   * Stages the bytes and answers their sha256 (the blob is in the store after
   * `commit`). The bytes are written after this returns: the caller must not
   * change them, unless it says they are `lent` (a scratch buffer it reuses):
   * those are copied when small, and when large written before this returns
   * (copies of 20 MB entries left ten concurrent deploys' RSS twice as high,
   * waiting for the GC). Waits while the write window is full; throws when an
   * earlier write failed.
   */
  async write(bytes: Uint8Array, options: { lent?: boolean } = {}): Promise<string> {
    this.throwIfFailed();
    const hash = new Bun.CryptoHasher('sha256').update(bytes).digest('hex');
    this.hold.add(hash);
    if (this.pending.has(hash)) return hash;
    const target = this.ctx.blobs.pathOf(hash);
    // A copy this node is deleting from the remote store is about to go: write the bytes again.
    if (existsSync(target) && !this.ctx.blobGc.beingDeleted(hash)) {
      // Refresh the age so a sweep's grace period covers this use too.
      const now = new Date();
      utimesSync(target, now, now);
      this.ctx.blobs.noteLocal(hash, bytes.byteLength);
      if (this.ctx.blobs.remote) this.reused.add(hash);
      return hash;
    }
    while (
      this.writing.size >= WRITE_WINDOW.files ||
      (this.writing.size > 0 && this.writingBytes + bytes.byteLength > WRITE_WINDOW.bytes)
    ) {
      await Promise.race(this.writing);
    }
    this.throwIfFailed();
    // The same bytes may have been staged while this call waited.
    if (this.pending.has(hash)) return hash;
    const waitForIt = options.lent === true && bytes.byteLength > COPY_LENT_UP_TO;
    // A copy (a Buffer's own slice() would be a view of the same memory).
    if (options.lent && !waitForIt) bytes = new Uint8Array(bytes);
    const tmp = join(this.tmpDir, `${this.tmpPrefix}${++this.tmpCount}`);
    this.pending.set(hash, tmp);
    this.writingBytes += bytes.byteLength;
    const job = writeFile(tmp, bytes)
      .then(
        () => {},
        async (error: unknown) => {
          this.failure ??= { error };
          await rm(tmp, { force: true }).catch(() => {});
        },
      )
      .finally(() => {
        this.writing.delete(job);
        this.writingBytes -= bytes.byteLength;
      });
    this.writing.add(job);
    if (waitForIt) {
      await job;
      this.throwIfFailed();
    }
    return hash;
  }

  /** Blob files being written right now, and their bytes (at most WRITE_WINDOW, or one larger file). */
  get inFlight(): { files: number; bytes: number } {
    return { files: this.writing.size, bytes: this.writingBytes };
  }

  /** Resolves once no write is running; throws the first that failed. */
  async settled(): Promise<void> {
    while (this.writing.size > 0) await Promise.all(this.writing);
    this.throwIfFailed();
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure.error;
  }

  /** Drops staged blobs outside `hashes` (written ahead of a check that then did not use them). */
  async keepOnly(hashes: Set<string>): Promise<void> {
    await this.settled();
    for (const hash of this.reused) if (!hashes.has(hash)) this.reused.delete(hash);
    for (const [hash, tmp] of this.pending) {
      if (hashes.has(hash)) continue;
      rmSync(tmp, { force: true });
      this.pending.delete(hash);
    }
  }

  /** Makes every new blob durable, then moves it into the store (and makes the names durable too). */
  async commit(): Promise<void> {
    // Durable means after the last byte: no write may still be running when the filesystem is synced.
    await this.settled();
    if (this.options.perFile || !(await syncFilesystemOffLoop(this.tmpDir))) await syncEach([...this.pending.values()]);
    // A remote tier holds every blob before any local name does (see BlobStore.upload).
    const blobs = this.ctx.blobs;
    if (blobs.remote) {
      await this.hold.secure();
      const lost = await blobs.lostRemotely([...this.reused]);
      await blobs.uploadMany([...this.pending, ...lost.map((hash): [string, string] => [hash, blobs.pathOf(hash)])]);
    }
    this.reused.clear();
    // Renames and stats on the thread pool, a few at once: for 2,000 new blobs they were ~130 ms on the event loop.
    await inParallel([...this.pending], PARALLEL_RENAMES, async ([hash, tmp]) => {
      const target = blobs.pathOf(hash);
      if (existsSync(target)) {
        await rm(tmp, { force: true });
        return;
      }
      await renameIntoStoreOffLoop(tmp, target);
      const { mtimeMs, size } = await stat(target);
      this.created.set(hash, mtimeMs);
      blobs.noteLocal(hash, size);
    });
    this.pending.clear();
    if (this.created.size > 0 && !this.options.perFile) await syncFilesystemOffLoop(this.ctx.blobs.root);
  }

  /** The deploy committed (its rows now reference the blobs): let go of the holds. */
  release(): Promise<void> {
    return this.hold.release();
  }

  /** The deploy failed: drop staged files, let go, and delete what it created that nothing else took up meanwhile. */
  async discard(): Promise<void> {
    // Removing a file still being written would leave it to be finished (and kept) after.
    while (this.writing.size > 0) await Promise.all(this.writing);
    for (const tmp of this.pending.values()) rmSync(tmp, { force: true });
    this.pending.clear();
    await this.hold.release();
    if (this.created.size > 0) await this.ctx.blobGc.collect(this.created.keys(), this.created);
  }
}

/** fdatasync for each file, a few at a time on the thread pool. */
function syncEach(paths: string[]): Promise<void> {
  return inParallel(paths, PARALLEL_SYNCS, async (path) => {
    const fd = openSync(path, 'r+');
    try {
      await new Promise<void>((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve())));
    } finally {
      closeSync(fd);
    }
  });
}
