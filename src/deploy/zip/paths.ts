// Entry-name rules of PUT deploy (spec "PUT deploy rules" 3 and 4). Names
// arrive raw (BUN-NOTES "ZIP"): `..`, leading `/`, backslashes, drive letters.
import { AppError } from '../../errors.ts';
import type { ZipEntry } from './reader.ts';

/** Longer paths come from no real site and only bloat the manifest. */
export const MAX_PATH_CHARS = 1024;

export type EntryName = { kind: 'file'; path: string } | { kind: 'skip'; why: 'directory' | 'dotfile' | 'symlink' };

const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
const UNIX_HOST = 3;
const DOS_DIRECTORY = 0x10;
// C0, DEL and C1 controls (NUL included).
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * The canvas path an entry deploys to, or why it is dropped. Throws
 * INVALID_ZIP (backslash, control characters, undecodable or overlong name)
 * and ZIP_SLIP_REJECTED (a `..` segment, a leading `/`, a drive letter).
 */
export function entryName(entry: ZipEntry): EntryName {
  const raw = decodeName(entry);
  if (raw.includes('\\')) throw new AppError('INVALID_ZIP', 'entry names must use "/" (a backslash was found)', { path: raw });
  if (CONTROL.test(raw)) throw new AppError('INVALID_ZIP', 'entry name contains control characters', { path: raw.replace(CONTROL, '?') });
  if (raw.startsWith('/') || /^[A-Za-z]:/.test(raw))
    throw new AppError('ZIP_SLIP_REJECTED', 'absolute entry names are not allowed', { path: raw });
  const segments = raw.split('/');
  if (segments.includes('..')) throw new AppError('ZIP_SLIP_REJECTED', 'entry names must not contain ".." segments', { path: raw });
  const mode = entry.madeByHost === UNIX_HOST ? (entry.externalAttrs >>> 16) & S_IFMT : 0;
  if (raw.endsWith('/') || mode === S_IFDIR || isDosDirectory(entry)) return { kind: 'skip', why: 'directory' };
  // "./a" and "a//b" mean "a" and "a/b".
  const parts = segments.filter((s) => s !== '' && s !== '.');
  if (parts.length === 0) return { kind: 'skip', why: 'directory' };
  if (parts.some((s) => s.startsWith('.'))) return { kind: 'skip', why: 'dotfile' };
  // A link's bytes are its target's path, never what the site meant to serve.
  if (mode === S_IFLNK) return { kind: 'skip', why: 'symlink' };
  const path = parts.join('/');
  if (path.length > MAX_PATH_CHARS)
    throw new AppError('INVALID_ZIP', `entry names are at most ${MAX_PATH_CHARS} characters`, { path: path.slice(0, 80) + '…' });
  return { kind: 'file', path };
}

/** MS-DOS-made archives may mark a directory only by its attribute bit. */
function isDosDirectory(entry: ZipEntry): boolean {
  return entry.madeByHost === 0 && (entry.externalAttrs & DOS_DIRECTORY) !== 0 && entry.uncompressedSize === 0;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const latin1 = new TextDecoder('latin1');

/** UTF-8 when flagged or when the bytes are valid UTF-8; otherwise the legacy single-byte reading. */
function decodeName(entry: ZipEntry): string {
  try {
    return utf8.decode(entry.nameBytes);
  } catch {
    if (entry.utf8) throw new AppError('INVALID_ZIP', 'entry name is not valid UTF-8');
    return latin1.decode(entry.nameBytes);
  }
}
