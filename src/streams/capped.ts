// The one way a stream is read up to a cap: request bodies, upstream
// responses, uploads spooled to disk, blobs streamed into the store. The cap
// is enforced while the bytes arrive (chunked bodies included, BUN-NOTES "Big
// bodies"), and a source that is not read to its end (past the cap, on an
// error, when the consumer stops early) is cancelled.
import { closeSync, fsync, openSync, rmSync, writeSync } from 'node:fs';
import { promisify } from 'node:util';

const fsyncAsync = promisify(fsync);

/** Thrown once more than `limit` bytes arrived (unless the caller names its own error). */
export class StreamLimitError extends Error {
  constructor(readonly limit: number) {
    super(`more than ${limit} bytes`);
  }
}

export type ByteSource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

export interface CapOptions {
  /** The error past the cap, given the count so far (default: StreamLimitError). */
  tooLarge?: (size: number) => Error;
  /** Each read is abandoned with the signal's reason once it aborts. */
  signal?: AbortSignal;
}

/**
 * The chunks of `source` (none when it is null), throwing past `limit`
 * bytes: the chunk that crosses the cap is never handed on.
 */
export async function* cappedChunks(source: ByteSource | null, limit: number, options: CapOptions = {}): AsyncGenerator<Uint8Array> {
  if (!source) return;
  const over = (size: number) => (options.tooLarge ? options.tooLarge(size) : new StreamLimitError(limit));
  let size = 0;
  if (!(source instanceof ReadableStream)) {
    // Leaving the loop early closes the iterator (a generator's finally runs).
    for await (const chunk of source) {
      size += chunk.byteLength;
      if (size > limit) throw over(size);
      yield chunk;
    }
    return;
  }
  const reader = source.getReader();
  let finished = false;
  try {
    for (;;) {
      const next = await (options.signal ? untilAborted(reader.read(), options.signal) : reader.read());
      if (next.done) {
        finished = true;
        return;
      }
      size += next.value.byteLength;
      if (size > limit) throw over(size);
      yield next.value;
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => {});
  }
}

/** The whole of `source` in memory (empty when it is null); throws past `limit` (see cappedChunks). */
export async function readCapped(source: ByteSource | null, limit: number, options: CapOptions = {}): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of cappedChunks(source, limit, options)) chunks.push(chunk);
  if (chunks.length === 1) return chunks[0]!;
  return chunks.length === 0 ? new Uint8Array(0) : new Uint8Array(Buffer.concat(chunks));
}

export interface WriteOptions extends CapOptions {
  /**
   * Called after each chunk is written, with the bytes written so far (a
   * reader may follow the file as it grows); the next chunk is read only once
   * a promise it answers settles.
   */
  onChunk?: (chunk: Uint8Array, written: number) => void | Promise<void>;
  /** fsync before closing (a blob about to be renamed into place). */
  sync?: boolean;
}

/**
 * Streams `source` into a new file at `path` and answers its length; nothing
 * is buffered beyond one chunk. On any failure (past the cap, a read or write
 * error) the partial file is removed before the error is thrown.
 */
export async function writeCapped(source: ByteSource | null, path: string, limit: number, options: WriteOptions = {}): Promise<number> {
  const fd = openSync(path, 'w');
  let size = 0;
  try {
    for await (const chunk of cappedChunks(source, limit, options)) {
      for (let off = 0; off < chunk.byteLength;) off += writeSync(fd, chunk, off, chunk.byteLength - off);
      size += chunk.byteLength;
      const waiting = options.onChunk?.(chunk, size);
      if (waiting) await waiting;
    }
    if (options.sync) await fsyncAsync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(path, { force: true });
    throw err;
  }
  closeSync(fd);
  return size;
}

/** `promise`, or the signal's reason as soon as it aborts (a DNS lookup cannot be cancelled, only abandoned). */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
