// Entry-name rules of PUT deploy (spec "PUT deploy rules" 3 and 4). Names
// arrive raw (BUN-NOTES "ZIP"): `..`, leading `/`, backslashes, drive letters.
import { AppError } from '../../errors.ts';
import { composedPath } from '../../canvases/file-path.ts';
import type { ZipEntry } from './reader.ts';

/** Longer paths come from no real site and only bloat the manifest. */
export const MAX_PATH_CHARS = 1024;

export type EntryName = { kind: 'file'; path: string } | { kind: 'skip'; why: 'directory' | 'dotfile' | 'symlink' };

const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
const UNIX_HOST = 3;
const DOS_DIRECTORY = 0x10;
/**
 * The spec refuses a backslash (INVALID_ZIP); the usual archiver behind one is the Compress-Archive
 * built into Windows PowerShell 5.1 (its Archive module before 1.2.3), so the answer says what writes "/".
 */
const BACKSLASH =
  'entry names must use "/" (a backslash was found: the Compress-Archive built into Windows PowerShell 5.1 writes them; PowerShell 7, Archive module 1.2.3 or later, `tar -a -c -f site.zip *` or 7-Zip write "/")';
// C0, DEL and C1 controls (NUL included).
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * The canvas path an entry deploys to, or why it is dropped. Throws
 * INVALID_ZIP (backslash, control characters, undecodable or overlong name)
 * and ZIP_SLIP_REJECTED (a `..` segment, a leading `/`, a drive letter).
 */
export function entryName(entry: ZipEntry): EntryName {
  const raw = decodeName(entry);
  if (raw.includes('\\')) throw new AppError('INVALID_ZIP', BACKSLASH, { path: raw });
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
  const path = composedPath(parts.join('/'));
  if (path.length > MAX_PATH_CHARS)
    throw new AppError('INVALID_ZIP', `entry names are at most ${MAX_PATH_CHARS} characters`, { path: path.slice(0, 80) + '…' });
  return { kind: 'file', path };
}

/** MS-DOS-made archives may mark a directory only by its attribute bit. */
function isDosDirectory(entry: ZipEntry): boolean {
  return entry.madeByHost === 0 && (entry.externalAttrs & DOS_DIRECTORY) !== 0 && entry.uncompressedSize === 0;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Bytes 0x80–0xFF of IBM code page 437, which APPNOTE (appendix D) names for
 * an entry without the UTF-8 flag: Windows' "Compressed (zipped) folder"
 * writes "café" as 63 61 66 82, and Python, 7-Zip and unzip read it so.
 */
const CP437_HIGH =
  'ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0';

function cp437(bytes: Uint8Array): string {
  let text = '';
  for (const b of bytes) text += b < 0x80 ? String.fromCharCode(b) : CP437_HIGH[b - 0x80];
  return text;
}

/**
 * The name's Info-ZIP Unicode Path (extra field 0x7075) when it is there for
 * these name bytes; else UTF-8 when flagged or when the bytes are valid UTF-8
 * (Info-ZIP's zip and macOS write UTF-8 without the flag); else code page 437.
 */
function decodeName(entry: ZipEntry): string {
  if (entry.unicodePath) {
    try {
      return utf8.decode(entry.unicodePath);
    } catch {
      throw new AppError('INVALID_ZIP', 'entry name (its Unicode Path field) is not valid UTF-8');
    }
  }
  try {
    return utf8.decode(entry.nameBytes);
  } catch {
    if (entry.utf8) throw new AppError('INVALID_ZIP', 'entry name is not valid UTF-8');
    return cp437(entry.nameBytes);
  }
}
