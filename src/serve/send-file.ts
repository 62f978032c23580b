import { metaOf } from '../http/meta.ts';
import { sliceBody, type Body } from './body-cache.ts';
import { isCompressible, MIN_COMPRESS_BYTES, preferredEncodings, type CompressedStore, type Encoding } from './compress.ts';
import type { ManifestFile } from './manifest.ts';

export interface SendOptions {
  /** 200 for a page, 404 for a canvas's own 404.html (no validators, no ranges then). */
  status: 200 | 404;
  cacheControl: string;
  /** Security headers every canvas response carries. */
  headers: Record<string, string>;
}

/** Where the bytes come from: memory (small files) or the file itself. */
export interface FileSource {
  blobPath(hash: string): string;
  /**
   * The bytes kept under a stable key (the blob hash, a compressed copy's
   * path), read from `path()` on a miss; a hit is answered without a promise.
   */
  body(key: string, size: number, path: () => string): Body | Promise<Body>;
}

const ENCODING_SUFFIX: Record<Encoding, string> = { br: '-br', gzip: '-gz' };

/**
 * The If-None-Match entry naming this blob (any of its representations, weak
 * comparison as RFC 9110 wants for GET), normalised to a strong tag; null when none does.
 */
export function matchingEtag(ifNoneMatch: string, hash: string): string | null {
  for (const raw of ifNoneMatch.split(',')) {
    const tag = raw.trim();
    if (tag === '*') return `"${hash}"`;
    const opaque = tag.replace(/^W\//, '').replace(/^"|"$/g, '');
    if (opaque === hash || opaque === `${hash}-br` || opaque === `${hash}-gz`) return `"${opaque}"`;
  }
  return null;
}

export type ByteRange = { start: number; end: number } | 'unsatisfiable' | null;

/** One `bytes=` range (inclusive end), 'unsatisfiable', or null to ignore the header (bad syntax, several ranges). */
export function parseRange(header: string, size: number): ByteRange {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

/** What a file's full-body answers share, worked out on its first request. */
interface FileHeaders {
  compressible: boolean;
  /** The security headers these were built with (one CanvasServer's). */
  base: Record<string, string>;
  /** By Cache-Control, then by slot (status and encoding, see fullHeaders). */
  sets: Map<string, Array<Headers | undefined>>;
}

/**
 * Per manifest file (manifests are cached, so these objects live as long as
 * their version is live). A Response copies a ready Headers object in about
 * half the time it builds one from a plain object, and page views of the
 * same file ask for the same few header sets.
 */
const fileHeaders = new WeakMap<ManifestFile, FileHeaders>();

function headersOf(file: ManifestFile, o: SendOptions): FileHeaders {
  let known = fileHeaders.get(file);
  if (!known || known.base !== o.headers) {
    known = { compressible: isCompressible(file.mime) && file.size >= MIN_COMPRESS_BYTES, base: o.headers, sets: new Map() };
    fileHeaders.set(file, known);
  }
  return known;
}

/** The headers of a full-body answer (200 or the canvas's 404), built once per file and variant. */
function fullHeaders(file: ManifestFile, known: FileHeaders, o: SendOptions, encoding: Encoding | null): Headers {
  // No key string is built per request: Cache-Control is one of a few constant strings, the rest an index.
  let slots = known.sets.get(o.cacheControl);
  if (!slots) {
    slots = [];
    known.sets.set(o.cacheControl, slots);
  }
  const slot = (o.status === 200 ? 0 : 3) + (encoding === null ? 0 : encoding === 'br' ? 1 : 2);
  let headers = slots[slot];
  if (!headers) {
    // nosniff is in every canvas header set already; said here too, because sendWhole promises it (see there).
    const h: Record<string, string> = {
      ...o.headers,
      'x-content-type-options': 'nosniff',
      'content-type': file.mime,
      'cache-control': o.cacheControl,
    };
    if (known.compressible) h.vary = 'Accept-Encoding';
    if (encoding) h['content-encoding'] = encoding;
    if (o.status === 200) {
      h['accept-ranges'] = 'bytes';
      h.etag = encoding ? `"${file.hash}${ENCODING_SUFFIX[encoding]}"` : `"${file.hash}"`;
    }
    headers = new Headers(h);
    slots[slot] = headers;
  }
  return headers;
}

/**
 * One file of a live version: validators (ETag = the blob's sha256), 304,
 * single byte ranges (206/416), and a cached brotli or gzip copy when the
 * client accepts one. Range answers are never compressed. The common answer
 * (the whole file from memory) is made without a promise.
 */
export function sendFile(
  request: Request,
  file: ManifestFile,
  source: FileSource,
  compressed: CompressedStore,
  o: SendOptions,
): Response | Promise<Response> {
  const known = headersOf(file, o);

  if (o.status === 200) {
    const inm = request.headers.get('if-none-match');
    const rangeHeader = request.headers.get('range');
    const matched = inm === null ? null : matchingEtag(inm, file.hash);
    if (matched || (rangeHeader !== null && request.method === 'GET')) {
      const headers = {
        ...o.headers,
        'content-type': file.mime,
        'cache-control': o.cacheControl,
        ...(known.compressible ? { vary: 'Accept-Encoding' } : {}),
        'accept-ranges': 'bytes',
      };
      if (matched) {
        // The client's copy is current, whichever encoding it holds: confirm the tag it sent.
        return new Response(null, { status: 304, headers: { ...headers, etag: matched } });
      }
      const identityTag = `"${file.hash}"`;
      const ifRange = request.headers.get('if-range');
      const range = ifRange === null || ifRange.trim() === identityTag ? parseRange(rangeHeader!, file.size) : null;
      if (range === 'unsatisfiable') {
        return new Response(null, { status: 416, headers: { ...headers, 'content-range': `bytes */${file.size}`, etag: identityTag } });
      }
      if (range) {
        const partial = { ...headers, etag: identityTag, 'content-range': `bytes ${range.start}-${range.end}/${file.size}` };
        return Promise.resolve(source.body(file.hash, file.size, () => source.blobPath(file.hash))).then((body) =>
          respond(request, sliceBody(body, range.start, range.end + 1), range.end - range.start + 1, 206, partial),
        );
      }
    }
  }

  if (known.compressible) {
    const encodings = preferredEncodings(request.headers.get('accept-encoding'));
    for (const encoding of encodings) {
      const variant = compressed.known(file.hash, encoding);
      // Not worked out yet for this blob: find (or make) the copy, then answer.
      if (variant === undefined) return sendCompressed(request, file, known, source, compressed, o, encodings);
      if (variant)
        return sendWhole(request, source, variant.path, variant.size, () => variant.path, fullHeaders(file, known, o, encoding), o.status);
    }
  }
  return sendWhole(request, source, file.hash, file.size, () => source.blobPath(file.hash), fullHeaders(file, known, o, null), o.status);
}

/** The first accepted encoding with a copy worth sending, else identity. */
async function sendCompressed(
  request: Request,
  file: ManifestFile,
  known: FileHeaders,
  source: FileSource,
  compressed: CompressedStore,
  o: SendOptions,
  encodings: readonly Encoding[],
): Promise<Response> {
  for (const encoding of encodings) {
    const variant = await compressed.variant(file.hash, file.size, encoding);
    if (!variant) continue;
    return sendWhole(request, source, variant.path, variant.size, () => variant.path, fullHeaders(file, known, o, encoding), o.status);
  }
  return sendWhole(request, source, file.hash, file.size, () => source.blobPath(file.hash), fullHeaders(file, known, o, null), o.status);
}

function sendWhole(
  request: Request,
  source: FileSource,
  key: string,
  size: number,
  path: () => string,
  headers: Headers,
  status: number,
): Response | Promise<Response> {
  if (request.method === 'HEAD') return respond(request, null, size, status, Object.fromEntries(headers));
  const body = source.body(key, size, path);
  return body instanceof Promise ? body.then((b) => answer(request, b, status, headers)) : answer(request, body, status, headers);
}

/**
 * A full-body answer from fullHeaders' set, which carries nosniff, with the
 * request's id set on that shared set just before the Response copies it
 * (so the set always holds the last answer's id: every use sets it first, or
 * copies it into an answer the wrapper finishes). The request wrapper is
 * told the answer is finished (meta.finishedIn).
 */
function answer(request: Request, body: Body, status: number, headers: Headers): Response {
  const meta = metaOf(request);
  headers.set('x-request-id', meta.id);
  const response = new Response(body, { status, headers });
  meta.finishedIn = response;
  return response;
}

/** HEAD gets the GET headers, Content-Length included, and no body (also when called in process, without Bun's server). */
function respond(request: Request, body: Body | null, length: number, status: number, headers: Record<string, string>): Response {
  if (request.method !== 'HEAD') return new Response(body, { status, headers });
  return new Response(null, { status, headers: { ...headers, 'content-length': String(length) } });
}
