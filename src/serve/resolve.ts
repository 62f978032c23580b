import type { Manifest, ManifestFile } from './manifest.ts';
import { composedPath } from '../canvases/file-path.ts';

export type Resolution =
  | { kind: 'file'; path: string; file: ManifestFile }
  /** `to` is the encoded path inside the canvas (no leading slash) to redirect to with 301. */
  | { kind: 'redirect'; to: string }
  | { kind: 'missing' };

const DOT_SEGMENT = /(?:^|\/)\.\.?(?:\/|$)/;

/** Percent-decodes each segment; null for malformed escapes, NUL bytes or dot segments (never in a manifest). */
export function decodeCanvasPath(raw: string): string | null {
  if (raw === '') return '';
  if (!raw.includes('%')) {
    // Nothing to decode (most requests): only dot segments and NUL are refused.
    return DOT_SEGMENT.test(raw) || raw.includes('\0') ? null : raw;
  }
  const out: string[] = [];
  for (const seg of raw.split('/')) {
    let s: string;
    try {
      s = decodeURIComponent(seg);
    } catch {
      return null;
    }
    if (s === '.' || s === '..' || s.includes('\0') || s.includes('/')) return null;
    out.push(s);
  }
  // Anything past ASCII arrives percent-encoded, so only here can a path need composing.
  return composedPath(out.join('/'));
}

/**
 * Maps a request path inside a canvas (encoded, no leading slash) to a file of
 * the live manifest: the root serves index.html, or the only HTML file when
 * there is exactly one; `dir/` serves `dir/index.html`; `dir` redirects to
 * `dir/` when that index exists; `page` serves `page.html` as static hosts do.
 */
export function resolveCanvasPath(manifest: Manifest, raw: string): Resolution {
  const path = decodeCanvasPath(raw);
  if (path === null) return { kind: 'missing' };
  const files = manifest.files;
  const found = (p: string): Resolution => {
    const file = files.get(p);
    return file ? { kind: 'file', path: p, file } : { kind: 'missing' };
  };
  if (path === '') {
    if (files.has('index.html')) return found('index.html');
    return manifest.singleHtml ? found(manifest.singleHtml) : { kind: 'missing' };
  }
  if (path.endsWith('/')) return found(`${path}index.html`);
  const exact = files.get(path);
  if (exact) return { kind: 'file', path, file: exact };
  if (files.has(`${path}/index.html`)) return { kind: 'redirect', to: `${raw}/` };
  return found(`${path}.html`);
}
