// Validation and normalization of a staged-upload manifest (spec "Begin
// rules", CONTRACT §9 Manifest). Pure: no IO.
import { composedPath } from '../../canvases/file-path.ts';
import { AppError, overCap } from '../../errors.ts';
import { mimeFor } from '../mime.ts';
import type { ManifestFile } from '../publish.ts';

const MiB = 1024 * 1024;
/** Deploy API limits (spec Limits; binary units per CONTRACT §9). */
export const UPLOAD_LIMITS = {
  fileBytes: 25 * MiB,
  files: 2000,
  canvasBytes: 100 * MiB,
} as const;

const HASH = /^[0-9a-f]{64}$/;
// C0, DEL and C1 controls (NUL included), as for ZIP entry names.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** Longer paths are never produced by a real site and only bloat the session row. */
const MAX_PATH_CHARS = 1024;

export interface NormalizedManifest {
  files: ManifestFile[];
  totalBytes: number;
  /** Distinct hashes in first-seen order, with their declared size. */
  blobs: Map<string, number>;
}

const invalid = (message: string, path?: string) => new AppError('INVALID_MANIFEST', message, path === undefined ? {} : { path });

/**
 * Checks the manifest and returns the deployable entries: directory entries
 * (a path ending in `/`) and dotfiles or dot-directories are skipped; one
 * leading `./` or `/` is stripped. Declared sizes are held against the caps.
 */
export function normalizeManifest(manifest: unknown): NormalizedManifest {
  if (!Array.isArray(manifest)) throw invalid('manifest must be an array of {path, hash, size}');
  if (manifest.length === 0) throw invalid('manifest is empty');
  const files: ManifestFile[] = [];
  const seenPaths = new Set<string>();
  const blobs = new Map<string, number>();
  let totalBytes = 0;
  manifest.forEach((entry: unknown, index) => {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry))
      throw invalid(`manifest[${index}] must be an object {path, hash, size}`);
    const { path: rawPath, hash, size } = entry as Record<string, unknown>;
    if (typeof rawPath !== 'string') throw invalid(`manifest[${index}].path must be a string`);
    const path = canvasPath(rawPath);
    if (path === null) return; // directory entry
    if (typeof hash !== 'string' || !HASH.test(hash))
      throw invalid(`manifest[${index}].hash must be 64 lowercase hex characters (sha256)`, path);
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0)
      throw invalid(`manifest[${index}].size must be a non-negative integer`, path);
    const known = blobs.get(hash);
    if (known !== undefined && known !== size) throw invalid(`hash ${hash} is declared with two sizes (${known} and ${size})`, path);
    blobs.set(hash, size);
    if (isHidden(path)) return;
    if (seenPaths.has(path)) throw invalid(`path ${path} is listed twice`, path);
    seenPaths.add(path);
    if (size > UPLOAD_LIMITS.fileBytes) {
      throw new AppError('FILE_TOO_LARGE', `${path} is larger than 25 MB`, { path });
    }
    files.push({ path, hash, size, mime: mimeFor(path) });
    totalBytes += size;
  });
  if (files.length === 0) throw invalid('no deployable entry left after skipping directories and dotfiles');
  if (files.length > UPLOAD_LIMITS.files) {
    throw overCap('TOO_MANY_FILES', `more than ${UPLOAD_LIMITS.files} files`);
  }
  if (totalBytes > UPLOAD_LIMITS.canvasBytes) {
    throw overCap('CANVAS_TOO_LARGE', 'more than 100 MB in total');
  }
  // Only hashes of deployable files are asked for: a skipped dotfile's bytes are never needed.
  const needed = new Map<string, number>();
  for (const f of files) needed.set(f.hash, f.size);
  return { files, totalBytes, blobs: needed };
}

/**
 * The canvas-relative path, or null for a directory entry. Throws
 * ZIP_SLIP_REJECTED for `..` segments and INVALID_PATH for anything that is
 * not a plain relative path once one leading `./` or `/` is gone.
 */
export function canvasPath(raw: string): string | null {
  if (raw.endsWith('/')) {
    if (raw.split('/').includes('..')) throw slip(raw);
    return null;
  }
  let path = raw;
  if (path.startsWith('./')) path = path.slice(2);
  else if (path.startsWith('/')) path = path.slice(1);
  const segments = path.split('/');
  if (segments.includes('..') || path.split('\\').includes('..')) throw slip(raw);
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path) || path.startsWith('\\')) throw badPath(raw, 'is absolute');
  if (CONTROL.test(path)) throw badPath(raw, 'contains control characters');
  if (path.includes('\\')) throw badPath(raw, 'contains a backslash (use /)');
  // As in a ZIP: "a//b" and "a/./b" mean "a/b".
  const clean = composedPath(segments.filter((s) => s !== '' && s !== '.').join('/'));
  if (clean === '') throw badPath(raw, 'is empty');
  if (clean.length > MAX_PATH_CHARS) throw badPath(raw.slice(0, 64) + '…', `is longer than ${MAX_PATH_CHARS} characters`);
  return clean;
}

/** Dotfiles and anything inside a dot-directory are dropped, as in a ZIP deploy. */
export function isHidden(path: string): boolean {
  return path.split('/').some((s) => s.startsWith('.'));
}

function slip(raw: string): AppError {
  return new AppError('ZIP_SLIP_REJECTED', `path ${JSON.stringify(raw)} has a ".." segment`, { path: raw });
}

function badPath(raw: string, why: string): AppError {
  return new AppError('INVALID_PATH', `path ${JSON.stringify(raw)} ${why}`, { path: raw });
}
