// Where blobs live under a store's root (`<dataDir>/blobs`): one level of
// fan-out, `ab/<sha256>`, so a store has at most 256 folders, each made by
// the first blob that needs it (a new store makes none: a start, and every
// test's fresh data directory, stays as cheap as before). Stores written before (issue 42)
// used two levels, `ab/cd/<sha256>`: a young store then made a folder for
// almost every blob, a third of a cold deploy's CPU. The marker file LAYOUT
// (containing `1`) says a store is one-level; a store without it is migrated
// in place when it opens (openBlobLayout), crash-safely: each blob moves by
// one atomic rename, and the marker is written last, so a start that finds
// no marker simply walks again and finishes the job.
//
// Backup archives keep the two-level names (src/backup/format.ts), so every
// release restores every archive. Readers of a data directory that this
// release may not have opened yet (backup, copy-data) find blobs in either
// layout (locateBlobUnder, blobFilesUnder).
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** The marker's name in the blobs root and what it holds. */
export const LAYOUT_MARKER = 'LAYOUT';
const LAYOUT_ONE_LEVEL = '1\n';

const HASH = /^[0-9a-f]{64}$/;
const FOLDER = /^[0-9a-f]{2}$/;

/** Where a blob lives under a store's root: `ab/<sha256>`. */
export function blobPathUnder(root: string, hash: string): string {
  return join(root, hash.slice(0, 2), hash);
}

/** Where a blob lived before the one-level layout: `ab/cd/<sha256>`. */
export function legacyBlobPathUnder(root: string, hash: string): string {
  return join(root, hash.slice(0, 2), hash.slice(2, 4), hash);
}

/**
 * The blob's file under `root` in either layout, or null: for readers of a
 * data directory a running server may be migrating meanwhile (so the
 * one-level name is asked again after the legacy one).
 */
export function locateBlobUnder(root: string, hash: string): string | null {
  const path = blobPathUnder(root, hash);
  if (existsSync(path)) return path;
  const legacy = legacyBlobPathUnder(root, hash);
  if (existsSync(legacy)) return legacy;
  return existsSync(path) ? path : null;
}

/** Every blob file under `root` in either layout, each hash once (a blob in both places counts at its one-level name). */
export function* blobFilesUnder(root: string): Generator<{ hash: string; path: string }> {
  for (const a of list(root)) {
    if (!FOLDER.test(a)) continue;
    const folder = join(root, a);
    for (const name of list(folder)) {
      if (HASH.test(name)) {
        if (name.startsWith(a)) yield { hash: name, path: join(folder, name) };
      } else if (FOLDER.test(name)) {
        for (const hash of list(join(folder, name))) {
          if (HASH.test(hash) && hash.startsWith(a + name) && !existsSync(blobPathUnder(root, hash)))
            yield { hash, path: join(folder, name, hash) };
        }
      }
    }
  }
}

/** What opening a store without the marker did: blobs moved out of legacy folders, legacy folders found, milliseconds taken. */
export interface LayoutMigration {
  moved: number;
  legacyFolders: number;
  ms: number;
}

/**
 * Makes `root` a one-level store: with the marker, nothing (one existence
 * check); without it, every legacy
 * `ab/cd/<sha256>` is renamed to `ab/<sha256>` (a blob already there only
 * loses its legacy copy: a blob only ever gets a name once whole), each
 * emptied `cd` folder goes, the folders are synced, and the marker is
 * written last. Answers null when the marker was there.
 */
export function openBlobLayout(root: string, now: () => number = performance.now.bind(performance)): LayoutMigration | null {
  const marker = join(root, LAYOUT_MARKER);
  if (existsSync(marker)) return null;
  const started = now();
  mkdirSync(root, { recursive: true });
  let moved = 0;
  let legacyFolders = 0;
  for (const a of list(root)) {
    if (!FOLDER.test(a)) continue;
    const folder = join(root, a);
    const names = list(folder);
    const legacy = names.filter((name) => FOLDER.test(name));
    if (legacy.length === 0) continue;
    // Blobs already here (moved by a run that was cut short): one listing instead of a check per blob.
    const present = new Set(names.filter((name) => HASH.test(name)));
    legacyFolders += legacy.length;
    for (const b of legacy) {
      for (const hash of list(join(folder, b))) {
        if (!HASH.test(hash) || !hash.startsWith(a + b)) continue;
        const from = join(folder, b, hash);
        if (present.has(hash)) rmSync(from, { force: true });
        else {
          renameSync(from, join(folder, hash));
          moved++;
        }
      }
    }
    // The new names are durable before any old folder goes (a rename's two entries may reach the disk apart).
    fsyncPath(folder);
    for (const b of legacy) {
      try {
        rmdirSync(join(folder, b));
      } catch {
        // Something that is not a blob was left in it: kept, and never read.
      }
    }
    fsyncPath(folder);
  }
  // Nothing was legacy (a new store): a marker lost to a crash only means walking an all one-level store again.
  if (legacyFolders === 0) {
    writeFileSync(marker, LAYOUT_ONE_LEVEL);
    return { moved, legacyFolders, ms: Math.round(now() - started) };
  }
  fsyncPath(root);
  const tmp = `${marker}.tmp`;
  writeFileSync(tmp, LAYOUT_ONE_LEVEL);
  fsyncPath(tmp);
  renameSync(tmp, marker);
  fsyncPath(root);
  return { moved, legacyFolders, ms: Math.round(now() - started) };
}

/** Renames a complete file to its blob name, making its folder when it is the first blob there (at most 256 in a store's life). */
export function renameIntoStore(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (err) {
    if (!missingFolder(err)) throw err;
    mkdirSync(dirname(to), { recursive: true });
    renameSync(from, to);
  }
}

/** renameIntoStore on the thread pool (a deploy moves thousands at once). */
export async function renameIntoStoreOffLoop(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (err) {
    if (!missingFolder(err)) throw err;
    await mkdir(dirname(to), { recursive: true });
    await rename(from, to);
  }
}

const missingFolder = (err: unknown) => (err as { code?: string }).code === 'ENOENT';

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The names in `dir`, or none when it cannot be read (absent, not a folder): a store's walks skip what is not there. */
export function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
