// A site folder as the server will see it: every regular file with its
// canvas-relative path, size and sha256. Dotfiles and dot-directories are
// skipped, as the server skips them. Listing and small reads are synchronous
// on purpose: for thousands of small files that is several times faster
// than a promise per file, and nothing else runs meanwhile.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface LocalFile {
  /** Canvas-relative, `/`-separated. */
  path: string;
  absolute: string;
  size: number;
  hash: string;
}

/** Files at or under this size are read in one go; bigger ones are hashed as a stream. */
const WHOLE_READ_MAX = 1024 * 1024;

/**
 * Lists the folder. A symbolic link to a file is followed; a link to a
 * folder is skipped (reported through `onSkip`) so a loop cannot run forever.
 */
export function listSite(root: string, onSkip: (path: string, why: string) => void = () => {}): Array<Omit<LocalFile, 'hash'>> {
  const out: Array<Omit<LocalFile, 'hash'>> = [];
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
        const target = statSync(absolute, { throwIfNoEntry: false });
        if (target?.isFile()) out.push({ path, absolute, size: target.size });
        else onSkip(path, target?.isDirectory() ? 'a link to a folder' : 'a broken link');
      }
    }
  };
  walk(root, '');
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The sha256 and the byte count actually read (a file rewritten since the listing keeps its manifest honest). */
export async function hashFile(absolute: string, sizeHint: number): Promise<{ hash: string; size: number }> {
  const hasher = new Bun.CryptoHasher('sha256');
  if (sizeHint <= WHOLE_READ_MAX) {
    const bytes = readFileSync(absolute);
    return { hash: hasher.update(bytes).digest('hex'), size: bytes.byteLength };
  }
  let size = 0;
  for await (const chunk of Bun.file(absolute).stream() as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    hasher.update(chunk);
  }
  return { hash: hasher.digest('hex'), size };
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
