// Extracts a ZIP while it is still arriving, from the request's chunks in
// memory. A ZIP's table of contents comes last, but the entries before it
// need not wait: the follower parses each local header as soon as its bytes
// are in and, when the entry is plainly fine, inflates, verifies and stores
// it meanwhile. Nothing it does is trusted on its own: once the whole body is
// in, the central directory is checked against every rule (zip/deploy.ts),
// and an entry is taken from the follower only when its local record agrees
// with the central one byte for byte (offset, name, method, CRC, sizes).
// Anything unusual (a data descriptor, encryption, a bad name, a cap, a bad
// CRC) simply stops the following: the regular path then meets the problem
// and reports it with its own code.
//
// The spool: bytes the follower extracted are never written to disk (writing
// the body and reading it back cost the event loop ~200 ms per 100 MB). Only
// what it did not take goes to the spool file, at its own offset: from where
// following stopped (the central directory, or the first entry it would not
// extract) to the end. The spool is therefore sparse: `finish` answers where
// its real bytes begin, and the ZIP reader refuses to read before that.
import { closeSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import type { DeployBlobWriter } from '../../blobs/writer.ts';
import { textMentionsKey } from '../key-scan.ts';
import { mimeFor } from '../mime.ts';
import { entryName } from './paths.ts';
import { applyZip64Extra, FLAG_UTF8, unicodePathOf, METHOD_DEFLATE, METHOD_STORED, SIG_LOCAL, type ZipEntry } from './reader.ts';

const FLAG_ENCRYPTED = 0x1;
const FLAG_DATA_DESCRIPTOR = 0x8;

export interface FollowLimits {
  fileBytes: number;
  compressedBytes: number;
  canvasBytes: number;
  files: number;
}

/** An entry extracted ahead of the central directory, with what its local header said. */
export interface FollowedEntry {
  nameBytes: Buffer;
  path: string;
  method: number;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
  /** Where its stored bytes begin (after the local header, name and extra field). */
  dataStart: number;
  hash: string;
  keyLint: boolean;
}

export type Inflate = (data: Uint8Array, maxBytes: number, declaredBytes: number) => Uint8Array;

/** The entry whose local header was read and whose data is still arriving or being extracted. */
interface Current {
  entry: ZipEntry;
  path: string;
  /** The local header's fixed part, and its name and extra field (spooled back if following stops here). */
  head: Buffer;
  tail: Buffer;
  dataStart: number;
  end: number;
  /** Data bytes copied into the scratch buffer as they arrive, or -1 while they are held as chunks. */
  filled: number;
}

export class ZipFollower {
  private fd: number | null = null;
  /** Offset of the next local header (may lie past `received` while a skipped entry's bytes are still coming). */
  private pos = 0;
  private stopped = false;
  private files = 0;
  private total = 0;
  /** Bytes received so far. */
  private received = 0;
  /** Received bytes not yet consumed nor assembled, from `heldFrom` to `received` (views of the request's chunks). */
  private held: Uint8Array[] = [];
  private heldFrom = 0;
  private current: Current | null = null;
  /**
   * Where an entry that was not whole in the chunks at hand is assembled as
   * its bytes arrive (so its chunks are not all kept alive until its end:
   * ten concurrent deploys of 20 MB entries peaked ~90 MB higher that way).
   * Reused: fresh buffers per entry cost page faults and GC.
   */
  private scratch = Buffer.alloc(0);
  private readonly found = new Map<number, FollowedEntry>();

  constructor(
    private readonly spoolPath: string,
    private readonly writer: DeployBlobWriter,
    private readonly limits: FollowLimits,
    private readonly inflate: Inflate,
  ) {}

  /**
   * Takes the next chunk of the body: extracts every entry now complete, or
   * spools the chunk once following has stopped. Waits while the writer's
   * window is full (the caller reads no more of the body meanwhile). Throws
   * only when the spool cannot be written.
   */
  async push(chunk: Uint8Array): Promise<void> {
    const at = this.received;
    this.received += chunk.byteLength;
    if (this.stopped) {
      this.spool(chunk, at);
      return;
    }
    const c = this.current;
    if (c && c.filled >= 0) {
      // Assembling (nothing is held meanwhile): the bytes up to the entry's end go straight into it.
      const take = Math.min(chunk.byteLength, c.end - at);
      this.scratch.set(chunk.subarray(0, take), c.filled);
      c.filled += take;
      if (take < chunk.byteLength) {
        this.held.push(chunk.subarray(take));
        this.heldFrom = c.end;
      }
    } else this.held.push(chunk);
    try {
      while (!this.stopped && (await this.step()));
    } catch {
      this.stopped = true;
    }
    if (this.stopped) this.spoolHeld();
    else this.dropConsumed();
  }

  /**
   * The body is complete: spools what is still held (the central directory,
   * or a truncated entry), gives the spool file the body's length, and
   * answers where its real bytes begin (everything before was extracted).
   */
  finish(): number {
    this.stopped = true;
    this.spoolHeld();
    this.fd ??= openSync(this.spoolPath, 'w');
    ftruncateSync(this.fd, this.received);
    closeSync(this.fd);
    this.fd = null;
    return Math.min(this.pos, this.received);
  }

  /** The entry extracted at the central record's offset, if its local record says exactly the same. */
  take(entry: ZipEntry, path: string): FollowedEntry | null {
    const f = this.found.get(entry.localOffset);
    if (!f) return null;
    const same =
      f.path === path &&
      f.method === entry.method &&
      f.crc32 === entry.crc32 &&
      f.compressedSize === entry.compressedSize &&
      f.uncompressedSize === entry.uncompressedSize &&
      f.nameBytes.equals(entry.nameBytes);
    return same ? f : null;
  }

  close(): void {
    this.stopped = true;
    this.held = [];
    this.current = null;
    this.scratch = Buffer.alloc(0);
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  /** One entry: true when it was handled (extracted or skipped), false when its bytes have not all arrived or following stopped. */
  private async step(): Promise<boolean> {
    const c = this.current ?? this.readHeader();
    if (c === null || c === 'skipped') return c === 'skipped';
    const { entry } = c;
    const size = entry.compressedSize;
    let data: Uint8Array;
    let lent: boolean;
    if (c.filled >= 0) {
      if (c.filled < size) return false;
      data = this.scratch.subarray(0, size);
      lent = true;
    } else if (c.end > this.received) {
      // Not whole yet: assemble it from here on, and let go of its chunks.
      if (this.scratch.byteLength < size) this.scratch = Buffer.allocUnsafe(Math.max(size, 1024 * 1024));
      c.filled = this.received - c.dataStart;
      this.copyHeld(c.dataStart, c.filled, this.scratch);
      this.held = [];
      this.heldFrom = this.received;
      return false;
    } else ({ data, lent } = this.bytes(c.dataStart, size));
    const { fileBytes } = this.limits;
    const bytes: Uint8Array = entry.method === METHOD_STORED ? data : this.inflate(data, fileBytes, entry.uncompressedSize);
    if (bytes.byteLength !== entry.uncompressedSize || Bun.hash.crc32(bytes) !== entry.crc32) {
      this.halt();
      return false;
    }
    // Assembled bytes are the scratch buffer, which the next entry reuses; a view of a chunk is never changed.
    const hash = await this.writer.write(bytes, { lent: lent && bytes === data });
    const keyLint = textMentionsKey(bytes, mimeFor(c.path));
    this.found.set(entry.localOffset, {
      nameBytes: c.tail.subarray(0, entry.nameBytes.byteLength),
      path: c.path,
      method: entry.method,
      crc32: entry.crc32,
      compressedSize: size,
      uncompressedSize: entry.uncompressedSize,
      dataStart: c.dataStart,
      hash,
      keyLint,
    });
    this.files++;
    this.total += entry.uncompressedSize;
    this.current = null;
    this.pos = c.end;
    this.dropConsumed();
    return true;
  }

  /**
   * The local header at `pos`: the entry to extract (now `current`),
   * 'skipped' (a directory or dotfile, its bytes dropped as they arrive: a
   * huge dotfile is never held), or null when it has not all arrived or
   * following stopped.
   */
  private readHeader(): Current | 'skipped' | null {
    const at = this.pos;
    const received = this.received;
    if (at + 30 > received) return null;
    const head = Buffer.from(this.bytes(at, 30).data);
    // The central directory (or anything else) ends the run of local entries.
    if (head.readUInt32LE(0) !== SIG_LOCAL) return this.halt();
    const flags = head.readUInt16LE(6);
    const method = head.readUInt16LE(8);
    const nameLen = head.readUInt16LE(26);
    const extraLen = head.readUInt16LE(28);
    const dataStart = at + 30 + nameLen + extraLen;
    if (dataStart > received) return null;
    if ((flags & (FLAG_ENCRYPTED | FLAG_DATA_DESCRIPTOR)) !== 0) return this.halt();
    if (method !== METHOD_STORED && method !== METHOD_DEFLATE) return this.halt();
    const tail = Buffer.from(this.bytes(at + 30, nameLen + extraLen).data);
    const entry: ZipEntry = {
      nameBytes: tail.subarray(0, nameLen),
      utf8: (flags & FLAG_UTF8) !== 0,
      flags,
      method,
      crc32: head.readUInt32LE(14),
      compressedSize: head.readUInt32LE(18),
      uncompressedSize: head.readUInt32LE(22),
      localOffset: at,
      // Unknown until the central directory: a link or a DOS directory is found out there.
      madeByHost: -1,
      externalAttrs: 0,
    };
    applyZip64Extra(entry, tail.subarray(nameLen));
    entry.unicodePath = unicodePathOf(entry.nameBytes, tail.subarray(nameLen));
    const end = dataStart + entry.compressedSize;
    const name = entryName(entry);
    if (name.kind === 'skip') {
      this.pos = end;
      this.dropConsumed();
      return 'skipped';
    }
    const { fileBytes, compressedBytes, canvasBytes, files } = this.limits;
    if (entry.uncompressedSize > fileBytes || entry.compressedSize > compressedBytes) return this.halt();
    if (this.files + 1 > files || this.total + entry.uncompressedSize > canvasBytes) return this.halt();
    this.current = { entry, path: name.path, head, tail, dataStart, end, filled: -1 };
    return this.current;
  }

  private halt(): null {
    this.stopped = true;
    return null;
  }

  /**
   * `length` held bytes at `position` (all received, none consumed): a view of
   * one chunk when they lie in one, else copied into the scratch buffer
   * (`lent`: the next call reuses it).
   */
  private bytes(position: number, length: number): { data: Uint8Array; lent: boolean } {
    if (length === 0) return { data: new Uint8Array(0), lent: false };
    let offset = position - this.heldFrom;
    let i = 0;
    while (offset >= this.held[i]!.byteLength) offset -= this.held[i++]!.byteLength;
    const first = this.held[i]!;
    if (offset + length <= first.byteLength) return { data: first.subarray(offset, offset + length), lent: false };
    if (this.scratch.byteLength < length) this.scratch = Buffer.allocUnsafe(Math.max(length, 1024 * 1024));
    this.copyHeld(position, length, this.scratch);
    return { data: this.scratch.subarray(0, length), lent: true };
  }

  /** Copies `length` held bytes at `position` to the start of `into`. */
  private copyHeld(position: number, length: number, into: Uint8Array): void {
    let offset = position - this.heldFrom;
    let i = 0;
    while (length > 0 && offset >= this.held[i]!.byteLength) offset -= this.held[i++]!.byteLength;
    for (let done = 0; done < length; i++, offset = 0) {
      const piece = this.held[i]!.subarray(offset, offset + length - done);
      into.set(piece, done);
      done += piece.byteLength;
    }
  }

  /** Lets go of held bytes before `pos`. */
  private dropConsumed(): void {
    while (this.held.length > 0 && this.heldFrom + this.held[0]!.byteLength <= this.pos) {
      this.heldFrom += this.held.shift()!.byteLength;
    }
    if (this.held.length > 0 && this.heldFrom < this.pos) {
      this.held[0] = this.held[0]!.subarray(this.pos - this.heldFrom);
      this.heldFrom = this.pos;
    }
    // Nothing held, and a skipped entry reaches past what arrived: later bytes start where they arrive.
    if (this.held.length === 0) this.heldFrom = this.received;
  }

  /** Following stopped: every byte from `pos` on goes to the spool (before it: extracted). */
  private spoolHeld(): void {
    const c = this.current;
    if (c && c.filled >= 0) {
      // An entry being assembled holds its own bytes: header, name and extra, and the data so far.
      this.spool(c.head, c.entry.localOffset);
      this.spool(c.tail, c.entry.localOffset + 30);
      this.spool(this.scratch.subarray(0, c.filled), c.dataStart);
    }
    this.current = null;
    this.dropConsumed();
    let at = this.heldFrom;
    for (const piece of this.held) {
      this.spool(piece, at);
      at += piece.byteLength;
    }
    this.held = [];
    this.heldFrom = this.received;
    this.scratch = Buffer.alloc(0);
  }

  private spool(chunk: Uint8Array, at: number): void {
    this.fd ??= openSync(this.spoolPath, 'w');
    for (let off = 0; off < chunk.byteLength;) off += writeSync(this.fd, chunk, off, chunk.byteLength - off, at + off);
  }
}
