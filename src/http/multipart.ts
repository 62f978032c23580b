/**
 * A streaming multipart/form-data reader (RFC 7578). Parts come out one at a
 * time with their body as a stream of chunks, so a file part can flow into
 * the blob store without the request ever being held in memory; a caller
 * must finish (or abandon) one part's body before asking for the next.
 *
 * Ours rather than a library's, after trying the maintained ones against the
 * spec (Files rule 1) and the flat-memory rule: @mjackson/multipart-parser
 * and @remix-run/multipart-parser 0.16 hold each part's bytes in memory;
 * busboy and @fastify/busboy report a part without Content-Type as
 * text/plain, so the spec's application/octet-stream default cannot be told
 * from an explicit type; multipasta 0.2 drops the name of a part whose
 * filename holds raw UTF-8 beyond Latin-1 (what browsers send) and throws on
 * a malformed filename*. test/files.test.ts pins each of those cases.
 */

export class MultipartError extends Error {}

/** The body as a whole (every part, drained or not, and the framing) passed the `maxBytes` given to readMultipart. */
export class MultipartTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the multipart body is over ${maxBytes} bytes`);
  }
}

export interface PartInfo {
  /** The form field name (null when the part has none). */
  name: string | null;
  /** The filename as sent (filename* preferred); null when the part has no filename parameter. */
  filename: string | null;
  contentType: string | null;
}

export interface Part extends PartInfo {
  body: AsyncIterable<Uint8Array>;
}

const MAX_HEADER_BYTES = 16 * 1024;
const MAX_PREAMBLE_BYTES = 16 * 1024;
const MAX_PARTS = 50;
const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

/** The boundary of a multipart/form-data Content-Type, or null. */
export function boundaryOf(contentType: string | null): string | null {
  if (!contentType) return null;
  const [type, ...params] = splitParams(contentType);
  if (type?.toLowerCase() !== 'multipart/form-data') return null;
  const boundary = params.find((p) => p.name === 'boundary')?.value ?? null;
  return boundary && boundary.length <= 200 ? boundary : null;
}

class Bytes {
  buf: Buffer = Buffer.from(CRLF); // a virtual CRLF makes the first delimiter look like the others
  private ended = false;
  /** Bytes read from the body so far. */
  private total = 0;
  constructor(
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    private readonly maxBytes: number,
  ) {}

  /** Appends the next chunk; false at the end of the body. */
  async more(): Promise<boolean> {
    if (this.ended) return false;
    const { done, value } = await this.reader.read();
    if (done) {
      this.ended = true;
      return false;
    }
    this.total += value.byteLength;
    if (this.total > this.maxBytes) throw new MultipartTooLargeError(this.maxBytes);
    const chunk = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    return true;
  }

  async atLeast(n: number): Promise<void> {
    while (this.buf.length < n) if (!(await this.more())) throw new MultipartError('the multipart body ends too early');
  }
}

/**
 * The parts of `stream`. Every byte of the body counts against `maxBytes`,
 * parts the caller skips (drained here) included, so a chunked body cannot
 * stream junk forever: past it, reading throws MultipartTooLargeError.
 */
export async function* readMultipart(stream: ReadableStream<Uint8Array>, boundary: string, maxBytes: number): AsyncGenerator<Part> {
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const reader = stream.getReader();
  const bytes = new Bytes(reader, maxBytes);
  try {
    // Preamble: everything before the first delimiter is ignored.
    for (;;) {
      const at = bytes.buf.indexOf(delimiter);
      if (at >= 0) {
        bytes.buf = bytes.buf.subarray(at + delimiter.length);
        break;
      }
      if (bytes.buf.length > MAX_PREAMBLE_BYTES) throw new MultipartError('no multipart boundary found');
      if (!(await bytes.more())) throw new MultipartError('no multipart boundary found');
    }
    for (let count = 0; ; count++) {
      await bytes.atLeast(2);
      if (bytes.buf[0] === 0x2d && bytes.buf[1] === 0x2d) return; // "--": the closing delimiter
      if (count >= MAX_PARTS) throw new MultipartError(`more than ${MAX_PARTS} parts`);
      const info = await readHeaders(bytes);
      let finished = false;
      /** The next piece of this part's body; null once its closing delimiter is reached. */
      const next = async (): Promise<Uint8Array | null> => {
        for (;;) {
          if (finished) return null;
          const at = bytes.buf.indexOf(delimiter);
          if (at >= 0) {
            const last = bytes.buf.subarray(0, at);
            bytes.buf = bytes.buf.subarray(at + delimiter.length);
            finished = true;
            if (last.length > 0) return last;
            return null;
          }
          // Keep a tail that could be the start of a delimiter split across chunks.
          const safe = bytes.buf.length - (delimiter.length - 1);
          if (safe > 0) {
            const out = bytes.buf.subarray(0, safe);
            bytes.buf = bytes.buf.subarray(safe);
            return out;
          }
          if (!(await bytes.more())) throw new MultipartError('the multipart body ends inside a part');
        }
      };
      const body = (async function* () {
        for (let chunk = await next(); chunk !== null; chunk = await next()) yield chunk;
      })();
      yield { ...info, body };
      while ((await next()) !== null); // whatever the caller left unread
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** After a delimiter: optional transport padding, CRLF, header lines, an empty line. */
async function readHeaders(bytes: Bytes): Promise<PartInfo> {
  for (;;) {
    const lineEnd = bytes.buf.indexOf(CRLF);
    if (lineEnd >= 0) {
      if (!/^[ \t]*$/.test(bytes.buf.subarray(0, lineEnd).toString('latin1'))) throw new MultipartError('malformed multipart delimiter');
      bytes.buf = bytes.buf.subarray(lineEnd + 2);
      break;
    }
    if (bytes.buf.length > 256) throw new MultipartError('malformed multipart delimiter');
    if (!(await bytes.more())) throw new MultipartError('the multipart body ends too early');
  }
  let block: string;
  for (;;) {
    if (bytes.buf.length >= 2 && bytes.buf[0] === 0x0d && bytes.buf[1] === 0x0a) {
      bytes.buf = bytes.buf.subarray(2);
      block = '';
      break;
    }
    const end = bytes.buf.indexOf(HEADER_END);
    if (end >= 0) {
      block = new TextDecoder().decode(bytes.buf.subarray(0, end));
      bytes.buf = bytes.buf.subarray(end + HEADER_END.length);
      break;
    }
    if (bytes.buf.length > MAX_HEADER_BYTES) throw new MultipartError('multipart part headers too large');
    if (!(await bytes.more())) throw new MultipartError('the multipart body ends too early');
  }
  const info: PartInfo = { name: null, filename: null, contentType: null };
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const header = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (header === 'content-type') info.contentType = value;
    if (header === 'content-disposition') {
      const [kind, ...params] = splitParams(value);
      if (kind?.toLowerCase() !== 'form-data') continue;
      const get = (n: string) => params.find((p) => p.name === n)?.value;
      const plain = (v: string | undefined) => (v === undefined ? null : unescapeFormName(v));
      info.name = plain(get('name'));
      const extended = get('filename*');
      info.filename = (extended !== undefined ? decodeExtended(extended) : null) ?? plain(get('filename'));
    }
  }
  return info;
}

/** `type; a=b; c="d; e"` → ['type', {name: 'a', value: 'b'}, …] (quoted strings honored). */
function splitParams(header: string): [string | undefined, ...Array<{ name: string; value: string }>] {
  const out: Array<{ name: string; value: string }> = [];
  const semi = header.indexOf(';');
  const head = (semi < 0 ? header : header.slice(0, semi)).trim();
  let i = semi < 0 ? header.length : semi + 1;
  while (i < header.length) {
    while (header[i] === ' ' || header[i] === '\t' || header[i] === ';') i++;
    const eq = header.indexOf('=', i);
    if (eq < 0) break;
    const name = header.slice(i, eq).trim().toLowerCase();
    i = eq + 1;
    while (header[i] === ' ' || header[i] === '\t') i++;
    let value = '';
    if (header[i] === '"') {
      i++;
      while (i < header.length && header[i] !== '"') {
        // Only \" is an escape: a lone backslash is kept (Windows paths in old clients' filenames).
        if (header[i] === '\\' && header[i + 1] === '"') i++;
        value += header[i++];
      }
      i++;
    } else {
      const end = header.indexOf(';', i);
      value = header.slice(i, end < 0 ? header.length : end).trim();
      i = end < 0 ? header.length : end;
    }
    out.push({ name, value });
  }
  return [head, ...out];
}

/** Browsers send `"`, CR and LF in names as %22, %0D and %0A (HTML's form-data encoding); nothing else is escaped. */
function unescapeFormName(v: string): string {
  return v.replace(/%(22|0D|0A)/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** RFC 5987 `UTF-8''%e2%82%ac.txt` → `€.txt`; null when it is not that form. */
function decodeExtended(value: string): string | null {
  const m = /^utf-8'[^']*'(.*)$/i.exec(value);
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return null;
  }
}
