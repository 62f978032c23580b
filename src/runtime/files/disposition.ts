/** Only these render in the browser; everything else (SVG and HTML included) downloads. */
export const INLINE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif']);

/**
 * `inline` or `attachment` with a sanitized `filename` (printable ASCII, no
 * quotes, backslashes or path separators) and the exact name as RFC 5987
 * `filename*`.
 */
export function contentDisposition(mime: string, name: string): string {
  const kind = INLINE_TYPES.has(mime) ? 'inline' : 'attachment';
  const ascii = name.replace(/[^\x20-\x7e]|["\\/;%]/g, '_').trim() || 'download';
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeRfc5987(name)}`;
}

/** Percent-encodes everything but RFC 5987 attr-chars. */
function encodeRfc5987(s: string): string {
  return encodeURIComponent(s).replace(/['()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** The part's type without parameters, lowercased; application/octet-stream when absent or odd. */
export function cleanMime(contentType: string | null): string {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return MIME.test(type) ? type : 'application/octet-stream';
}

/**
 * A display name from an upload's filename: no directories, no control characters, at most 255
 * characters, composed (NFC: a Mac's "Re\u0301sume\u0301.pdf" is "Résumé.pdf", found by a search for it).
 */
export function cleanUploadName(filename: string | null): string {
  const base = (filename ?? '').split(/[/\\]/).pop()?.normalize('NFC') ?? '';
  const clean = [...base.replace(/[\x00-\x1f\x7f]/g, '').trim()].slice(0, 255).join('');
  return clean || 'upload';
}
