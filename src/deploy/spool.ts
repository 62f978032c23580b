// Streams a request body to a temporary file, counting as it goes: chunked
// bodies are held to the cap as well as declared ones (BUN-NOTES "Big
// bodies"); nothing is buffered beyond one chunk. `onData` sees the spooled
// length after every chunk, so a reader can follow the file as it grows.
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';

/** Thrown once more than `limit` bytes arrived; the partial file is already gone. */
export class SpoolLimitError extends Error {}

/** Writes the body to `path` and answers its length. */
export async function spoolBody(
  body: ReadableStream<Uint8Array> | null,
  path: string,
  limit: number,
  onData?: (spooled: number) => void,
): Promise<number> {
  const fd = openSync(path, 'w');
  let size = 0;
  let ok = false;
  try {
    if (body) {
      const reader = body.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          size += value.byteLength;
          if (size > limit) throw new SpoolLimitError(`body larger than ${limit} bytes`);
          for (let off = 0; off < value.byteLength;) off += writeSync(fd, value, off, value.byteLength - off);
          onData?.(size);
        }
      } catch (err) {
        await reader.cancel().catch(() => {});
        throw err;
      }
    }
    ok = true;
    return size;
  } finally {
    closeSync(fd);
    if (!ok) rmSync(path, { force: true });
  }
}
