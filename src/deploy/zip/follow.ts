// Extracts a ZIP while it is still arriving. The body is spooled to disk (a
// ZIP's table of contents comes last), but the entries before it need not
// wait: the follower reads each local header as soon as its bytes are in the
// spool and, when the entry is plainly fine, inflates, verifies and stores
// it meanwhile. Nothing it does is trusted on its own: once the whole body is
// in, the central directory is checked against every rule (zip/deploy.ts),
// and an entry is taken from the follower only when its local record agrees
// with the central one byte for byte (offset, name, method, CRC, sizes).
// Anything unusual (a data descriptor, encryption, a bad name, a cap, a bad
// CRC) simply stops the following: the regular path then meets the problem
// and reports it with its own code.
import { closeSync, openSync, readSync } from 'node:fs';
import type { DeployBlobWriter } from '../../blobs/writer.ts';
import { textMentionsKey } from '../key-scan.ts';
import { mimeFor } from '../mime.ts';
import { entryName } from './paths.ts';
import { applyZip64Extra, FLAG_UTF8, METHOD_DEFLATE, METHOD_STORED, SIG_LOCAL, type ZipEntry } from './reader.ts';

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
  hash: string;
  keyLint: boolean;
}

export type Inflate = (data: Buffer, maxBytes: number) => Uint8Array;

export class ZipFollower {
  private fd: number | null = null;
  /** Offset of the next local header. */
  private pos = 0;
  private stopped = false;
  private files = 0;
  private total = 0;
  private scratch = Buffer.alloc(0);
  private readonly found = new Map<number, FollowedEntry>();

  constructor(
    private readonly spoolPath: string,
    private readonly writer: DeployBlobWriter,
    private readonly limits: FollowLimits,
    private readonly inflate: Inflate,
  ) {}

  /**
   * Extracts every entry whose bytes now lie within the first `spooled` bytes.
   * Never throws. Waits while the writer's window is full (the caller reads no
   * more of the body meanwhile).
   */
  async advance(spooled: number): Promise<void> {
    if (this.stopped) return;
    try {
      this.fd ??= openSync(this.spoolPath, 'r');
      while (!this.stopped && (await this.step(spooled)));
    } catch {
      this.stop();
    }
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
    this.stop();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private stop(): void {
    this.stopped = true;
    this.scratch = Buffer.alloc(0);
  }

  /** One entry: true when it was handled (extracted or skipped), false when its bytes have not all arrived or following stopped. */
  private async step(spooled: number): Promise<boolean> {
    const at = this.pos;
    if (at + 30 > spooled) return false;
    const head = Buffer.from(this.read(at, 30));
    // The central directory (or anything else) ends the run of local entries.
    if (head.readUInt32LE(0) !== SIG_LOCAL) return this.halt();
    const flags = head.readUInt16LE(6);
    const method = head.readUInt16LE(8);
    const nameLen = head.readUInt16LE(26);
    const extraLen = head.readUInt16LE(28);
    const dataStart = at + 30 + nameLen + extraLen;
    if (dataStart > spooled) return false;
    if ((flags & (FLAG_ENCRYPTED | FLAG_DATA_DESCRIPTOR)) !== 0) return this.halt();
    if (method !== METHOD_STORED && method !== METHOD_DEFLATE) return this.halt();
    const tail = Buffer.from(this.read(at + 30, nameLen + extraLen));
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
    const end = dataStart + entry.compressedSize;
    const name = entryName(entry);
    if (name.kind === 'skip') {
      if (end > spooled) return false;
      this.pos = end;
      return true;
    }
    const { fileBytes, compressedBytes, canvasBytes, files } = this.limits;
    if (entry.uncompressedSize > fileBytes || entry.compressedSize > compressedBytes) return this.halt();
    if (this.files + 1 > files || this.total + entry.uncompressedSize > canvasBytes) return this.halt();
    if (end > spooled) return false;
    const data = this.read(dataStart, entry.compressedSize);
    const bytes: Uint8Array = method === METHOD_STORED ? data : this.inflate(data, fileBytes);
    if (bytes.byteLength !== entry.uncompressedSize || Bun.hash.crc32(bytes) !== entry.crc32) return this.halt();
    // Stored bytes are the scratch buffer, which the next read reuses.
    const hash = await this.writer.write(bytes, { lent: bytes === data });
    const keyLint = textMentionsKey(bytes, mimeFor(name.path));
    this.found.set(at, {
      nameBytes: tail.subarray(0, nameLen),
      path: name.path,
      method,
      crc32: entry.crc32,
      compressedSize: entry.compressedSize,
      uncompressedSize: entry.uncompressedSize,
      hash,
      keyLint,
    });
    this.files++;
    this.total += entry.uncompressedSize;
    this.pos = end;
    return true;
  }

  private halt(): false {
    this.stop();
    return false;
  }

  /** `length` bytes at `position` of the spool, in a scratch buffer reused by the next read. */
  private read(position: number, length: number): Buffer {
    if (this.scratch.byteLength < length) this.scratch = Buffer.allocUnsafe(Math.max(length, 1024 * 1024));
    const buf = this.scratch.subarray(0, length);
    for (let done = 0; done < length;) {
      const n = readSync(this.fd!, buf, done, length - done, position + done);
      if (n === 0) throw new Error('spool shorter than expected');
      done += n;
    }
    return buf;
  }
}
