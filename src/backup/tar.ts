// A streaming POSIX ustar writer and reader for backups: entries pass through
// in chunks, so a backup of gigabytes keeps memory flat. Bun.Archive builds
// the whole archive in memory, and backups hold every blob of an instance.
// Only regular files are written or accepted; names are checked by the caller.
import type { FileSink } from 'bun';

const BLOCK = 512;
const ZERO_BLOCK = new Uint8Array(BLOCK);
const enc = new TextEncoder();
const dec = new TextDecoder();

export class TarFormatError extends Error {}

function putString(header: Uint8Array, offset: number, length: number, value: string): void {
  const bytes = enc.encode(value);
  if (bytes.length > length) throw new TarFormatError(`tar field too long: ${value}`);
  header.set(bytes, offset);
}

function putOctal(header: Uint8Array, offset: number, length: number, value: number): void {
  putString(header, offset, length, value.toString(8).padStart(length - 1, '0') + '\0');
}

/** Sizes of 8 GiB and more use the base-256 form GNU tar and libarchive read. */
function putSize(header: Uint8Array, value: number): void {
  if (value < 8 ** 11) return putOctal(header, 124, 12, value);
  let rest = BigInt(value);
  for (let i = 135; i > 124; i--) {
    header[i] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  header[124] = 0x80;
}

function readSize(header: Uint8Array): number {
  if (header[124]! & 0x80) {
    let value = 0n;
    for (let i = 125; i < 136; i++) value = (value << 8n) | BigInt(header[i]!);
    return Number(value);
  }
  return readOctal(header, 124, 12);
}

function readOctal(header: Uint8Array, offset: number, length: number): number {
  const text = dec
    .decode(header.subarray(offset, offset + length))
    .replace(/[\0 ]+$/g, '')
    .replace(/^[ ]+/, '');
  if (!/^[0-7]*$/.test(text)) throw new TarFormatError('not a tar archive (a header field is not octal)');
  return text === '' ? 0 : parseInt(text, 8);
}

function checksum(header: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i]!;
  return sum;
}

function headerFor(name: string, size: number, mtimeMs: number): Uint8Array {
  const header = new Uint8Array(BLOCK);
  putString(header, 0, 100, name);
  putOctal(header, 100, 8, 0o600);
  putOctal(header, 108, 8, 0);
  putOctal(header, 116, 8, 0);
  putSize(header, size);
  putOctal(header, 136, 12, Math.floor(mtimeMs / 1000));
  header[156] = 0x30; // '0': a regular file
  putString(header, 257, 8, 'ustar\x0000');
  putString(header, 148, 8, checksum(header).toString(8).padStart(6, '0') + '\0 ');
  return header;
}

export class TarWriter {
  constructor(private readonly sink: FileSink) {}

  /** Writes one file whose body is exactly `size` bytes (a source that gives more or fewer is an error). */
  async add(name: string, size: number, body: AsyncIterable<Uint8Array> | Uint8Array, mtimeMs = Date.now()): Promise<void> {
    void this.sink.write(headerFor(name, size, mtimeMs));
    let written = 0;
    if (body instanceof Uint8Array) {
      void this.sink.write(body);
      written = body.byteLength;
    } else {
      for await (const chunk of body) {
        written += chunk.byteLength;
        if (written > size) throw new TarFormatError(`${name} grew while it was being archived`);
        void this.sink.write(chunk);
        await this.sink.flush();
      }
    }
    if (written !== size) throw new TarFormatError(`${name} shrank while it was being archived`);
    const pad = (BLOCK - (size % BLOCK)) % BLOCK;
    if (pad > 0) void this.sink.write(ZERO_BLOCK.subarray(0, pad));
  }

  /** The two zero blocks that end an archive. */
  async finish(): Promise<void> {
    void this.sink.write(ZERO_BLOCK);
    void this.sink.write(ZERO_BLOCK);
    await this.sink.end();
  }
}

export interface TarEntry {
  name: string;
  size: number;
  /** The entry's bytes; must be read to the end (or not at all) before the next entry is asked for. */
  body(): AsyncGenerator<Uint8Array>;
}

/** Reads exact byte counts from a chunked stream. */
class ByteReader {
  private buffered: Uint8Array[] = [];
  private bufferedBytes = 0;
  private done = false;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.reader = stream.getReader();
  }

  private async fill(atLeast: number): Promise<boolean> {
    while (this.bufferedBytes < atLeast && !this.done) {
      const { done, value } = await this.reader.read();
      if (done) this.done = true;
      else if (value.byteLength > 0) {
        this.buffered.push(value);
        this.bufferedBytes += value.byteLength;
      }
    }
    return this.bufferedBytes >= atLeast;
  }

  /** Up to `max` bytes (at least one), or null at the end of the stream. */
  async some(max: number): Promise<Uint8Array | null> {
    if (!(await this.fill(1))) return null;
    const first = this.buffered[0]!;
    if (first.byteLength <= max) {
      this.buffered.shift();
      this.bufferedBytes -= first.byteLength;
      return first;
    }
    this.buffered[0] = first.subarray(max);
    this.bufferedBytes -= max;
    return first.subarray(0, max);
  }

  /** Exactly `n` bytes, or null when the stream ends first. */
  async exact(n: number): Promise<Uint8Array | null> {
    if (!(await this.fill(n))) return null;
    const out = new Uint8Array(n);
    let at = 0;
    while (at < n) {
      const part = (await this.some(n - at))!;
      out.set(part, at);
      at += part.byteLength;
    }
    return out;
  }

  cancel(): void {
    this.reader.cancel().catch(() => {});
  }
}

/**
 * The regular-file entries of an archive, in order. Anything else (links,
 * devices, PAX or GNU extensions) is refused: a backup never holds them, so
 * meeting one means the file is not ours.
 */
export async function* readTar(stream: ReadableStream<Uint8Array>): AsyncGenerator<TarEntry> {
  const input = new ByteReader(stream);
  try {
    for (;;) {
      const header = await input.exact(BLOCK);
      if (header === null) throw new TarFormatError('the archive ends without its end marker (truncated)');
      if (header.every((b) => b === 0)) return;
      const stored = readOctal(header, 148, 8);
      if (stored !== checksum(header)) throw new TarFormatError('not a tar archive, or a damaged one (header checksum mismatch)');
      const type = header[156]!;
      const name = dec.decode(header.subarray(0, 100)).replace(/\0.*$/s, '');
      if (type !== 0x30 && type !== 0) throw new TarFormatError(`${name}: only regular files belong in a backup`);
      const prefix = dec.decode(header.subarray(345, 500)).replace(/\0.*$/s, '');
      const size = readSize(header);
      const fullName = prefix ? `${prefix}/${name}` : name;
      const padded = size + ((BLOCK - (size % BLOCK)) % BLOCK);
      let left = padded;
      const next = async (max: number) => {
        const chunk = await input.some(max);
        if (chunk === null) throw new TarFormatError(`${fullName}: the archive ends inside this file (truncated)`);
        left -= chunk.byteLength;
        return chunk;
      };
      yield {
        name: fullName,
        size,
        async *body() {
          while (left > padded - size) yield await next(left - (padded - size));
          while (left > 0) await next(left);
        },
      };
      // An entry the caller did not read is skipped.
      while (left > 0) await next(left);
    }
  } finally {
    input.cancel();
  }
}
