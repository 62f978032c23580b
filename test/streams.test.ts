// The shared capped-stream reader (src/streams/capped.ts): the cap holds for
// chunked sources, the source is cancelled past it, and a partial file is removed.
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cappedChunks, readCapped, StreamLimitError, writeCapped } from '../src/streams/capped.ts';

const dir = mkdtempSync(join(tmpdir(), 'easel-streams-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A stream of `count` chunks of `size` bytes that records whether it was cancelled. */
function source(count: number, size: number): { stream: ReadableStream<Uint8Array>; cancelled: () => boolean; pulled: () => number } {
  let pulled = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled === count) return controller.close();
      pulled++;
      controller.enqueue(new Uint8Array(size).fill(pulled));
    },
    cancel() {
      cancelled = true;
    },
  });
  return { stream, cancelled: () => cancelled, pulled: () => pulled };
}

describe('readCapped', () => {
  test('reads a stream at or under the cap whole; null gives no bytes', async () => {
    expect((await readCapped(source(4, 10).stream, 40)).byteLength).toBe(40);
    expect((await readCapped(null, 10)).byteLength).toBe(0);
  });

  test('past the cap: StreamLimitError, and the source is cancelled rather than drained', async () => {
    const s = source(1000, 10);
    const err = await readCapped(s.stream, 25).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StreamLimitError);
    expect(s.cancelled()).toBe(true);
    expect(s.pulled()).toBeLessThan(10);
  });

  test("the caller's error, given the count; async iterables are capped too", async () => {
    async function* chunks() {
      for (let i = 0; i < 5; i++) yield new Uint8Array(10);
    }
    const err = await readCapped(chunks(), 15, { tooLarge: (size) => new Error(`at ${size}`) }).catch((e: unknown) => e);
    expect((err as Error).message).toBe('at 20');
  });

  test('an aborted signal ends a read that would never finish', async () => {
    const controller = new AbortController();
    const never = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) });
    const read = readCapped(never, 10, { signal: controller.signal }).catch((e: unknown) => e);
    controller.abort(new Error('deadline'));
    expect(((await read) as Error).message).toBe('deadline');
  });
});

describe('writeCapped', () => {
  test('writes the stream and reports each chunk with the running total', async () => {
    const path = join(dir, 'ok');
    const seen: number[] = [];
    expect(await writeCapped(source(3, 4).stream, path, 12, { onChunk: (_c, total) => void seen.push(total), sync: true })).toBe(12);
    expect(seen).toEqual([4, 8, 12]);
    expect(readFileSync(path)).toEqual(Buffer.from([1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]));
  });

  test('past the cap the partial file is gone and the source cancelled', async () => {
    const path = join(dir, 'big');
    const s = source(100, 4);
    await expect(writeCapped(s.stream, path, 10)).rejects.toBeInstanceOf(StreamLimitError);
    expect(existsSync(path)).toBe(false);
    expect(s.cancelled()).toBe(true);
  });

  test('a consumer that stops early cancels the source', async () => {
    const s = source(100, 4);
    for await (const chunk of cappedChunks(s.stream, 1000)) {
      expect(chunk.byteLength).toBe(4);
      break;
    }
    expect(s.cancelled()).toBe(true);
  });
});
