// A site folder as the server will see it: every regular file with its
// canvas-relative path, size and sha256. Dotfiles and dot-directories are
// skipped, as the server skips them. Symbolic links are skipped unless asked
// for, and then only those that resolve to a file inside the folder (a link
// to /proc/self/environ must never publish the environment). Listing and
// small reads are synchronous on purpose: for thousands of small files that
// is several times faster than a promise per file, and nothing else runs
// meanwhile.
import { closeSync, constants, fstatSync, openSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';

export interface LocalFile {
  /** Canvas-relative, `/`-separated. */
  path: string;
  absolute: string;
  size: number;
  hash: string;
}

/** Files at or under this size are read in one go; bigger ones are hashed as a stream. */
const WHOLE_READ_MAX = 1024 * 1024;

export interface SkippedLink {
  path: string;
  /** What the link says (as written, not resolved). */
  target: string;
  why: string;
}

export interface ListOptions {
  /** Include links that resolve to a file inside the folder (`--follow-symlinks`); others are skipped either way. */
  followSymlinks?: boolean;
  onSkip?: (skipped: SkippedLink) => void;
}

/**
 * Lists the folder. Symbolic links are skipped (each reported through
 * `onSkip`); with `followSymlinks`, a link whose real path is a file inside
 * the folder's real path is listed under its own name, read from that real
 * path. Links to folders are never followed, so a loop cannot run forever.
 */
export function listSite(root: string, options: ListOptions = {}): Array<Omit<LocalFile, 'hash'>> {
  const out: Array<Omit<LocalFile, 'hash'>> = [];
  const realRoot = realpathSync(root);
  const skip = (path: string, absolute: string, why: string) => options.onSkip?.({ path, target: readlinkSafe(absolute), why });
  const walk = (dir: string, prefix: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      const absolute = join(dir, e.name);
      const path = prefix + e.name;
      if (e.isDirectory()) {
        walk(absolute, path + '/');
      } else if (e.isFile()) {
        out.push({ path, absolute, size: statSync(absolute).size });
      } else if (e.isSymbolicLink()) {
        if (!options.followSymlinks) {
          skip(path, absolute, 'a symbolic link (--follow-symlinks includes links to files inside the folder)');
          continue;
        }
        const real = realpathSafe(absolute);
        if (real === null) skip(path, absolute, 'a broken link');
        else if (!real.startsWith(realRoot + sep)) skip(path, absolute, 'a link out of the folder');
        else {
          const target = statSync(real, { throwIfNoEntry: false });
          if (target?.isFile()) out.push({ path, absolute: real, size: target.size });
          else skip(path, absolute, target?.isDirectory() ? 'a link to a folder' : 'not a regular file');
        }
      }
    }
  };
  walk(realRoot, '');
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function realpathSafe(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

function readlinkSafe(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '?';
  }
}

/** The sha256 and the byte count actually read (a file rewritten since the listing keeps its manifest honest). */
export async function hashFile(absolute: string, sizeHint: number): Promise<{ hash: string; size: number }> {
  const hasher = new Bun.CryptoHasher('sha256');
  // O_NOFOLLOW: a file swapped for a link since the listing is refused, not read through.
  const fd = openSync(absolute, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    if (!fstatSync(fd).isFile()) throw new Error(`${absolute}: not a regular file`);
    if (sizeHint <= WHOLE_READ_MAX) {
      const bytes = readFileSync(fd);
      return { hash: hasher.update(bytes).digest('hex'), size: bytes.byteLength };
    }
    let size = 0;
    for await (const chunk of Bun.file(fd).stream() as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      hasher.update(chunk);
    }
    return { hash: hasher.digest('hex'), size };
  } finally {
    closeSync(fd);
  }
}

/** Hashes every file in order; `onHashed` sees each as it completes. */
export async function hashSite(
  files: Array<Omit<LocalFile, 'hash'>>,
  onHashed: (file: LocalFile) => void = () => {},
): Promise<LocalFile[]> {
  const result: LocalFile[] = [];
  for (const f of files) {
    const hashed = { ...f, ...(await hashFile(f.absolute, f.size)) };
    result.push(hashed);
    onHashed(hashed);
  }
  return result;
}
