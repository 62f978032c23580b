// The files an export lists, as one ZIP streamed entry by entry: each entry
// stored (files are mostly compressed already), its bytes read from the blob
// store a chunk at a time, so memory holds a chunk, never a file. Names are
// the files' own, made safe as archive paths and unique (`notes (2).txt`).
import { Zip, ZipPassThrough } from 'fflate';

export interface ZippedFile {
  name: string;
  /** Opens the file's bytes, or null when it can no longer be read (it is then left out). */
  open(): Promise<ReadableStream<Uint8Array> | null>;
}

export function zipStream(files: AsyncIterable<ZippedFile>): ReadableStream<Uint8Array> {
  let chunks: AsyncIterator<Uint8Array> | null = null;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        chunks ??= zipChunks(files)[Symbol.asyncIterator]();
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      async cancel() {
        await chunks?.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}

async function* zipChunks(files: AsyncIterable<ZippedFile>): AsyncIterable<Uint8Array> {
  const out: Uint8Array[] = [];
  let failure: Error | null = null;
  const archive = new Zip((err, chunk) => {
    if (err) failure = err;
    else out.push(chunk);
  });
  const drain = function* () {
    if (failure) throw failure;
    while (out.length > 0) yield out.shift()!;
  };
  const names = new UniqueNames();
  for await (const file of files) {
    const bytes = await file.open();
    if (bytes === null) continue;
    const entry = new ZipPassThrough(names.take(file.name));
    archive.add(entry);
    for await (const chunk of bytes as unknown as AsyncIterable<Uint8Array>) {
      entry.push(chunk);
      yield* drain();
    }
    entry.push(new Uint8Array(0), true);
    yield* drain();
  }
  archive.end();
  yield* drain();
}

// Controls, path separators and characters archivers refuse on some systems.
const UNSAFE = /[\u0000-\u001f\u007f/\\:*?"<>|]/g;

/** Archive names: one path segment each, never `.`/`..`, unique (case-insensitively, as on Windows and macOS). */
export class UniqueNames {
  private readonly taken = new Set<string>();

  take(raw: string): string {
    let base = raw.replace(UNSAFE, '_').trim().slice(0, 200);
    if (base === '' || base === '.' || base === '..') base = 'file';
    const dot = base.lastIndexOf('.');
    const [stem, ext] = dot > 0 ? [base.slice(0, dot), base.slice(dot)] : [base, ''];
    let name = base;
    for (let n = 2; this.taken.has(name.toLowerCase()); n++) name = `${stem} (${n})${ext}`;
    this.taken.add(name.toLowerCase());
    return name;
  }
}
