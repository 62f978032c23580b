// Content types by file extension: mime-db (through mime-types) with the few
// entries where browsers want another name than the database gives, and
// `charset=utf-8` on every text type (files are served as UTF-8).
import mime from 'mime-types';

/** Where Easel serves another type than mime-db names, and why. */
const OVERRIDES: Record<string, string> = {
  // Browsers load these as scripts; mime-db says application/node.
  cjs: 'text/javascript',
  // The registered type (RFC 9512); mime-db still lists text/yaml.
  yaml: 'application/yaml',
  yml: 'application/yaml',
  // image/pjpeg is a legacy Internet Explorer name.
  jfif: 'image/jpeg',
  // What every browser accepts for favicons and cursors (mime-db: image/vnd.microsoft.icon, cur unknown).
  ico: 'image/x-icon',
  cur: 'image/x-icon',
  // The registered names, which browsers play (mime-db: audio/x-flac, video/x-m4v).
  flac: 'audio/flac',
  m4v: 'video/mp4',
  tgz: 'application/gzip',
};

const TEXT_APPLICATION_TYPES = new Set([
  'application/json',
  'application/xml',
  'application/javascript',
  'application/yaml',
  'application/toml',
  'application/x-subrip',
]);

/** Served as UTF-8 text: text/*, JSON and XML (suffixes included), YAML, TOML, SubRip. */
export function isTextLike(type: string): boolean {
  return type.startsWith('text/') || type.endsWith('+json') || type.endsWith('+xml') || TEXT_APPLICATION_TYPES.has(type);
}

/** The Content-Type for a lowercase extension (no dot), or null when neither the overrides nor mime-db know it. */
export function contentTypeForExtension(ext: string): string | null {
  if (ext === '') return null;
  const type = Object.hasOwn(OVERRIDES, ext) ? OVERRIDES[ext]! : mime.lookup(ext);
  if (!type) return null;
  return isTextLike(type) ? `${type}; charset=utf-8` : type;
}

/** The lowercase extension of a path's last segment, or '' (a leading dot alone is not an extension). */
export function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}
