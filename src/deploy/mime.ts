// Content types by extension (src/http/mime.ts), decided once at deploy time and stored on the
// version's files (the serving path sends what is stored). An extension that
// is unknown, missing, or a server-side script type is served as text/plain,
// which the deploy reports as a warning.

import { contentTypeForExtension, extensionOf } from '../http/mime.ts';

const TEXT = 'text/plain; charset=utf-8';

/** Server-side script types: never executed here, and never served under their own type. */
const SCRIPT_TYPES = new Set(['php', 'php3', 'php4', 'php5', 'phtml', 'asp', 'aspx', 'jsp', 'cgi', 'pl', 'py', 'rb', 'sh']);

/** Answers by extension, remembered: mime-db's lookup was ~50 ms of a 2,000-file deploy. Bounded (extensions come from uploads). */
const known = new Map<string, string>();
const KNOWN_MAX = 512;

/** The Content-Type a deployed file is served with. */
export function mimeFor(path: string): string {
  const ext = extensionOf(path);
  const seen = known.get(ext);
  if (seen !== undefined) return seen;
  const type = SCRIPT_TYPES.has(ext) ? TEXT : (contentTypeForExtension(ext) ?? TEXT);
  if (known.size < KNOWN_MAX) known.set(ext, type);
  return type;
}

/** True when the file is downgraded to text/plain (unknown or missing extension, or a server-side script). */
export function isServedAsText(path: string): boolean {
  const ext = extensionOf(path);
  return SCRIPT_TYPES.has(ext) || contentTypeForExtension(ext) === null;
}

/** Text-like types worth scanning for a pasted canvas key. */
export function isTextType(mime: string): boolean {
  const type = mime.split(';')[0]!.trim().toLowerCase();
  return type.startsWith('text/') || /(javascript|json|xml|svg|yaml|toml|subrip)/.test(type);
}
