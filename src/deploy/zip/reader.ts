// A ZIP reader over a file descriptor: the central directory is parsed from
// the end of the file and each entry's bytes are read on demand, so a 100 MB
// archive never sits in memory. fflate's readers accept garbage, tar files and
// truncated archives without complaint (BUN-NOTES "ZIP"), so every structure
// is checked here: magic, end-of-central-directory, bounds, and each local
// header against its central record.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** An archive this reader refuses; callers answer INVALID_ZIP. */
/** More central-directory records than the caller takes. */
export class ZipEntryLimitError extends Error {
  constructor(
    readonly count: number,
    readonly max: number,
  ) {
    super(`the archive holds ${count} entries`);
  }
}

const CD_WINDOW_BYTES = 1024 * 1024;

export class ZipFormatError extends Error {}

export interface ZipEntry {
  /** Raw name bytes as stored (validated by the caller). */
  nameBytes: Uint8Array;
  /** True when the UTF-8 flag (bit 11) is set. */
  utf8: boolean;
  flags: number;
  method: number;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
  localOffset: number;
  /** Host system of the creator (3 = Unix) and the external attributes (Unix mode in the top 16 bits). */
  madeByHost: number;
  externalAttrs: number;
  /** The name in UTF-8 from an Info-ZIP Unicode Path field (0x7075) written for these very name bytes. */
  unicodePath?: Uint8Array;
}

export const SIG_LOCAL = 0x04034b50;
/** General-purpose flag bit 11: the name is UTF-8. */
export const FLAG_UTF8 = 0x800;
export const METHOD_STORED = 0;
export const METHOD_DEFLATE = 8;
const SIG_CENTRAL = 0x02014b50;
const SIG_EOCD = 0x06054b50;
const SIG_ZIP64_EOCD = 0x06064b50;
const SIG_ZIP64_LOCATOR = 0x07064b50;
const EOCD_SIZE = 22;
const MAX_COMMENT = 0xffff;

export class ZipFile {
  private readonly fd: number;
  readonly size: number;
  /** Where the central directory begins: no entry's data may reach past it. */
  private cdOffset = 0;

  /**
   * `missingBefore`: the file holds no real bytes before this offset (they
   * were extracted while the body arrived, zip/follow.ts, and never written):
   * reading there is refused as a format error instead of answering zeros.
   */
  constructor(
    path: string,
    private readonly missingBefore = 0,
  ) {
    this.fd = openSync(path, 'r');
    this.size = fstatSync(this.fd).size;
  }

  /** Whether the entry's local header lies in the bytes extracted while arriving (see the constructor). */
  extractedEarly(entry: ZipEntry): boolean {
    return entry.localOffset < this.missingBefore;
  }

  /**
   * The range of an entry taken from the follower (its local header already
   * matched the central record): its data must still end before the central
   * directory.
   */
  followedRange(entry: ZipEntry, dataStart: number): { start: number; dataStart: number; end: number } {
    const end = dataStart + entry.compressedSize;
    if (end > this.cdOffset) throw new ZipFormatError('entry data runs past the central directory (truncated archive)');
    return { start: entry.localOffset, dataStart, end };
  }

  close(): void {
    closeSync(this.fd);
  }

  /**
   * The central directory's entries, in stored order, read a window at a time:
   * only the records being parsed are in memory, and an archive that declares
   * more than `maxEntries` records (directories and dotfiles included) is
   * refused from its end record, before any is read.
   */
  *entries(maxEntries: number): Generator<ZipEntry> {
    // Bytes extracted while arriving began with a local header (the follower checked).
    const head = this.missingBefore > 0 ? null : this.read(0, Math.min(4, this.size));
    const magic = head === null ? SIG_LOCAL : head.byteLength === 4 ? head.readUInt32LE(0) : 0;
    // A real archive starts with a local header, or is the 22-byte empty archive.
    if (magic !== SIG_LOCAL && magic !== SIG_EOCD) throw new ZipFormatError('not a ZIP archive');
    const eocd = this.findEocd();
    let count = eocd.readUInt16LE(10);
    let cdSize = eocd.readUInt32LE(12);
    let cdOffset = eocd.readUInt32LE(16);
    if (eocd.readUInt16LE(4) !== 0 || eocd.readUInt16LE(6) !== 0 || eocd.readUInt16LE(8) !== count)
      throw new ZipFormatError('multi-disk archives are not supported');
    if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) ({ count, cdSize, cdOffset } = this.zip64Eocd());
    if (count > maxEntries) throw new ZipEntryLimitError(count, maxEntries);
    const eocdAt = this.eocdAt;
    if (cdOffset + cdSize > eocdAt) throw new ZipFormatError('central directory out of bounds');
    this.cdOffset = cdOffset;
    // A window of the directory; a record is at most 46 + 3 × 64 KiB bytes, so a refill always fits the next one.
    let window: Buffer = Buffer.alloc(0);
    let windowStart = 0; // directory offset of window[0]
    let p = 0; // directory offset of the next record
    const need = (n: number): Buffer | null => {
      if (p + n > cdSize) return null;
      if (p + n > windowStart + window.byteLength) {
        const length = Math.min(Math.max(n, CD_WINDOW_BYTES), cdSize - p);
        window = this.read(cdOffset + p, length);
        windowStart = p;
      }
      return window.subarray(p - windowStart, p - windowStart + n);
    };
    for (let i = 0; i < count; i++) {
      const fixed = need(46);
      if (!fixed || fixed.readUInt32LE(0) !== SIG_CENTRAL) throw new ZipFormatError('truncated central directory');
      const nameLen = fixed.readUInt16LE(28);
      const extraLen = fixed.readUInt16LE(30);
      const commentLen = fixed.readUInt16LE(32);
      const record = need(46 + nameLen + extraLen + commentLen);
      if (!record) throw new ZipFormatError('truncated central directory');
      const entry: ZipEntry = {
        // A copy: the window is replaced as reading goes on.
        nameBytes: Buffer.from(record.subarray(46, 46 + nameLen)),
        utf8: (record.readUInt16LE(8) & FLAG_UTF8) !== 0,
        flags: record.readUInt16LE(8),
        method: record.readUInt16LE(10),
        crc32: record.readUInt32LE(16),
        compressedSize: record.readUInt32LE(20),
        uncompressedSize: record.readUInt32LE(24),
        localOffset: record.readUInt32LE(42),
        madeByHost: record.readUInt8(5),
        externalAttrs: record.readUInt32LE(38),
      };
      const extra = record.subarray(46 + nameLen, 46 + nameLen + extraLen);
      applyZip64Extra(entry, extra);
      entry.unicodePath = unicodePathOf(entry.nameBytes, extra);
      p += record.byteLength;
      yield entry;
    }
    if (p !== cdSize) throw new ZipFormatError('central directory size does not match its entries');
  }

  /**
   * Where the entry's stored bytes lie, after checking its local header
   * matches the central record and the data ends before the central
   * directory. `start` is the local header's offset (for the caller's
   * overlap check), `dataStart`..`end` the stored bytes.
   */
  localRange(entry: ZipEntry): { start: number; dataStart: number; end: number } {
    if (entry.localOffset + 30 > this.cdOffset) throw new ZipFormatError('entry out of bounds');
    const local = this.read(entry.localOffset, 30);
    if (local.readUInt32LE(0) !== SIG_LOCAL) throw new ZipFormatError('bad local header');
    const nameLen = local.readUInt16LE(26);
    const extraLen = local.readUInt16LE(28);
    if (local.readUInt16LE(8) !== entry.method) throw new ZipFormatError('local header disagrees with the central directory');
    const name = this.read(entry.localOffset + 30, nameLen);
    if (!name.equals(entry.nameBytes)) throw new ZipFormatError('local header disagrees with the central directory');
    const dataStart = entry.localOffset + 30 + nameLen + extraLen;
    const end = dataStart + entry.compressedSize;
    if (end > this.cdOffset) throw new ZipFormatError('entry data runs past the central directory (truncated archive)');
    return { start: entry.localOffset, dataStart, end };
  }

  /**
   * The entry's stored (compressed) bytes (see localRange for the checks).
   * `data` is a view of a scratch buffer reused by the next call (fresh
   * buffers per entry cost more in page faults than the reads themselves).
   */
  rawData(entry: ZipEntry): { data: Buffer; start: number; end: number } {
    const { start, dataStart, end } = this.localRange(entry);
    return { data: this.read(dataStart, entry.compressedSize, true), start, end };
  }

  private eocdAt = 0;

  private findEocd(): Buffer {
    if (this.size < EOCD_SIZE) throw new ZipFormatError('no end-of-central-directory record');
    const tailStart = Math.max(this.missingBefore, this.size - EOCD_SIZE - MAX_COMMENT);
    if (this.size - tailStart < EOCD_SIZE) throw new ZipFormatError('no end-of-central-directory record (not a ZIP, or truncated)');
    const tail = this.read(tailStart, this.size - tailStart);
    for (let i = tail.byteLength - EOCD_SIZE; i >= 0; i--) {
      if (tail.readUInt32LE(i) !== SIG_EOCD) continue;
      // A comment running past the end means the file was cut short.
      if (i + EOCD_SIZE + tail.readUInt16LE(i + 20) > tail.byteLength) continue;
      this.eocdAt = tailStart + i;
      return tail.subarray(i, i + EOCD_SIZE);
    }
    throw new ZipFormatError('no end-of-central-directory record (not a ZIP, or truncated)');
  }

  private zip64Eocd(): { count: number; cdSize: number; cdOffset: number } {
    if (this.eocdAt < 20) throw new ZipFormatError('missing ZIP64 locator');
    const locator = this.read(this.eocdAt - 20, 20);
    if (locator.readUInt32LE(0) !== SIG_ZIP64_LOCATOR) throw new ZipFormatError('missing ZIP64 locator');
    const at = safeNumber(locator.readBigUInt64LE(8));
    if (at + 56 > this.eocdAt - 20) throw new ZipFormatError('ZIP64 record out of bounds');
    const rec = this.read(at, 56);
    if (rec.readUInt32LE(0) !== SIG_ZIP64_EOCD) throw new ZipFormatError('bad ZIP64 record');
    const count = safeNumber(rec.readBigUInt64LE(32));
    if (count !== safeNumber(rec.readBigUInt64LE(24))) throw new ZipFormatError('multi-disk archives are not supported');
    // The central directory ends where the ZIP64 record starts.
    this.eocdAt = at;
    return { count, cdSize: safeNumber(rec.readBigUInt64LE(40)), cdOffset: safeNumber(rec.readBigUInt64LE(48)) };
  }

  private scratch = Buffer.alloc(0);

  private read(position: number, length: number, reuse = false): Buffer {
    if (position < 0 || length < 0 || position + length > this.size) throw new ZipFormatError('truncated archive');
    if (position < this.missingBefore) throw new ZipFormatError('a structure overlaps entries already extracted');
    let buf: Buffer;
    if (reuse) {
      if (this.scratch.byteLength < length) this.scratch = Buffer.allocUnsafe(Math.max(length, 1024 * 1024));
      buf = this.scratch.subarray(0, length);
    } else {
      buf = Buffer.allocUnsafe(length);
    }
    let done = 0;
    while (done < length) {
      const n = readSync(this.fd, buf, done, length - done, position + done);
      if (n === 0) throw new ZipFormatError('truncated archive');
      done += n;
    }
    return buf;
  }
}

/** ZIP64 extended information (0x0001): 64-bit values for the fields stored as 0xFFFFFFFF, in order. */
export function applyZip64Extra(entry: ZipEntry, extra: Buffer): void {
  const needs = entry.uncompressedSize === 0xffffffff || entry.compressedSize === 0xffffffff || entry.localOffset === 0xffffffff;
  if (!needs) return;
  for (let p = 0; p + 4 <= extra.byteLength;) {
    const id = extra.readUInt16LE(p);
    const len = extra.readUInt16LE(p + 2);
    if (p + 4 + len > extra.byteLength) break;
    if (id === 0x0001) {
      let q = p + 4;
      const next = (): number => {
        if (q + 8 > p + 4 + len) throw new ZipFormatError('bad ZIP64 extra field');
        const v = safeNumber(extra.readBigUInt64LE(q));
        q += 8;
        return v;
      };
      if (entry.uncompressedSize === 0xffffffff) entry.uncompressedSize = next();
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = next();
      if (entry.localOffset === 0xffffffff) entry.localOffset = next();
      return;
    }
    p += 4 + len;
  }
  throw new ZipFormatError('missing ZIP64 extra field');
}

/**
 * Info-ZIP's Unicode Path (0x7075: version 1, the CRC-32 of the name field,
 * the name in UTF-8), as tools that write a legacy name beside it do (APPNOTE
 * 4.6.9). A CRC of other bytes means the name was changed by a tool that did
 * not know the field: then it is stale and left unread. A copy, since callers
 * read from windows that are reused.
 */
export function unicodePathOf(nameBytes: Uint8Array, extra: Buffer): Uint8Array | undefined {
  for (let p = 0; p + 4 <= extra.byteLength;) {
    const id = extra.readUInt16LE(p);
    const len = extra.readUInt16LE(p + 2);
    if (p + 4 + len > extra.byteLength) return undefined;
    if (id === 0x7075 && len >= 5 && extra[p + 4] === 1 && extra.readUInt32LE(p + 5) === Bun.hash.crc32(nameBytes))
      return Uint8Array.from(extra.subarray(p + 9, p + 4 + len));
    p += 4 + len;
  }
  return undefined;
}

function safeNumber(v: bigint): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new ZipFormatError('ZIP64 value out of range');
  return Number(v);
}
