// The blob store's requests to its remote tier: uploads that wait for a
// deletion of the same bytes still in flight, verified downloads, tracked
// deletions, each reported to `observe` (metrics) and each failure turned
// into 503 STORAGE_UNAVAILABLE naming the store, never a credential.
import { rmSync } from 'node:fs';
import { AppError } from '../errors.ts';
import { writeCapped } from '../streams/capped.ts';
import type { BlobRemote } from './remote.ts';

export type RemoteOperation = 'upload' | 'fetch' | 'delete';
export type RemoteOutcome = 'ok' | 'failed' | 'missing';

export class RemoteTier {
  /** Deletions under way: a write of the same bytes waits for them, or the deletion could land after it. */
  private readonly deleting = new Map<string, Promise<void>>();

  constructor(
    readonly remote: BlobRemote,
    private readonly observe: (operation: RemoteOperation, outcome: RemoteOutcome) => void = () => {},
  ) {}

  async upload(hash: string, path: string): Promise<void> {
    await this.deleting.get(hash);
    try {
      await this.remote.upload(hash, path);
      this.observe('upload', 'ok');
    } catch (err) {
      this.observe('upload', 'failed');
      throw this.unavailable(err);
    }
  }

  /**
   * Writes the blob's bytes to `path`: their size, or null when the store has
   * no such blob or its bytes do not hash to their name (never served).
   */
  async download(hash: string, path: string): Promise<number | null> {
    let body: ReadableStream<Uint8Array> | null;
    try {
      body = await this.remote.open(hash);
    } catch (err) {
      this.observe('fetch', 'failed');
      throw this.unavailable(err);
    }
    if (!body) {
      this.observe('fetch', 'missing');
      return null;
    }
    const hasher = new Bun.CryptoHasher('sha256');
    let size: number;
    try {
      size = await writeCapped(body, path, Infinity, {
        onChunk: (chunk) => {
          hasher.update(chunk);
        },
      });
    } catch (err) {
      rmSync(path, { force: true });
      this.observe('fetch', 'failed');
      throw this.unavailable(err);
    }
    if (hasher.digest('hex') !== hash) {
      rmSync(path, { force: true });
      this.observe('fetch', 'missing');
      return null;
    }
    this.observe('fetch', 'ok');
    return size;
  }

  async size(hash: string): Promise<number | null> {
    try {
      return (await this.remote.stat(hash))?.size ?? null;
    } catch (err) {
      throw this.unavailable(err);
    }
  }

  /** Starts the deletion (a failed one is left for the next sweep, which lists the store again); resolves when it is over. */
  delete(hash: string): Promise<void> {
    const job = this.remote
      .delete(hash)
      .then(
        () => this.observe('delete', 'ok'),
        () => this.observe('delete', 'failed'),
      )
      .finally(() => {
        if (this.deleting.get(hash) === job) this.deleting.delete(hash);
      });
    this.deleting.set(hash, job);
    return job;
  }

  private unavailable(cause: unknown): AppError {
    if (cause instanceof AppError) return cause;
    const reason = (cause as { code?: string } | null)?.code ?? (cause instanceof Error ? cause.name : 'error');
    return new AppError(
      'STORAGE_UNAVAILABLE',
      `the blob store at ${this.remote.location} did not answer (${reason}): try again shortly`,
      {},
      { status: 503 },
    );
  }
}
