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

/** Where the bytes come from: a path on disk and its size → memory (small files) or the file itself. */
export interface FileSource {
  blobPath(hash: string): string;
  body(path: string, size: number): Promise<Body>;
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

/**
 * One file of a live version: validators (ETag = the blob's sha256), 304,
 * single byte ranges (206/416), and a cached brotli or gzip copy when the
 * client accepts one. Range answers are never compressed.
 */
export async function sendFile(request: Request, file: ManifestFile, source: FileSource, compressed: CompressedStore, o: SendOptions): Promise<Response> {
  const compressible = isCompressible(file.mime) && file.size >= MIN_COMPRESS_BYTES;
  const headers: Record<string, string> = { ...o.headers, 'content-type': file.mime, 'cache-control': o.cacheControl };
  if (compressible) headers.vary = 'Accept-Encoding';
  const identityTag = `"${file.hash}"`;

  if (o.status === 200) {
    headers['accept-ranges'] = 'bytes';
    const inm = request.headers.get('if-none-match');
    const rangeHeader = request.headers.get('range');
    const matched = inm === null ? null : matchingEtag(inm, file.hash);
    if (matched) {
      // The client's copy is current, whichever encoding it holds: confirm the tag it sent.
      headers.etag = matched;
      return new Response(null, { status: 304, headers });
    }
    if (rangeHeader !== null && request.method === 'GET') {
      const ifRange = request.headers.get('if-range');
      const range = ifRange === null || ifRange.trim() === identityTag ? parseRange(rangeHeader, file.size) : null;
      if (range === 'unsatisfiable') {
        return new Response(null, { status: 416, headers: { ...headers, 'content-range': `bytes */${file.size}`, etag: identityTag } });
      }
      if (range) {
        headers.etag = identityTag;
        headers['content-range'] = `bytes ${range.start}-${range.end}/${file.size}`;
        const body = await source.body(source.blobPath(file.hash), file.size);
        return respond(request, sliceBody(body, range.start, range.end + 1), range.end - range.start + 1, 206, headers);
      }
    }
  }

  if (compressible) {
    for (const encoding of preferredEncodings(request.headers.get('accept-encoding'))) {
      const variant = await compressed.variant(file.hash, file.size, encoding);
      if (!variant) continue;
      headers['content-encoding'] = encoding;
      if (o.status === 200) headers.etag = `"${file.hash}${ENCODING_SUFFIX[encoding]}"`;
      return respond(request, () => source.body(variant.path, variant.size), variant.size, o.status, headers);
    }
  }
  if (o.status === 200) headers.etag = identityTag;
  return respond(request, () => source.body(source.blobPath(file.hash), file.size), file.size, o.status, headers);
}

/** HEAD gets the GET headers, Content-Length included, and no body (also when called in process, without Bun's server). */
async function respond(request: Request, body: Body | (() => Promise<Body>), length: number, status: number, headers: Record<string, string>): Promise<Response> {
  if (request.method !== 'HEAD') return new Response(typeof body === 'function' ? await body() : body, { status, headers });
  return new Response(null, { status, headers: { ...headers, 'content-length': String(length) } });
}
