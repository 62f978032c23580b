// While `easel backup` copies blobs, the server must not collect any: a blob
// the snapshot names may lose its last reference in the live database (an old
// version pruned by a new deploy) before it is copied. The backup process
// leaves a file named by its pid; the collector skips its work while one
// names a live process (a backup killed mid-way leaves a stale file, which is
// removed on sight).
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from '../db/data-dir-lock.ts';

const HOLDS = 'backup-holds';

export function holdBlobsForBackup(dataDir: string): () => void {
  const dir = join(dataDir, HOLDS);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, String(process.pid));
  writeFileSync(path, `${new Date().toISOString()}\n`);
  return () => rmSync(path, { force: true });
}

export function blobsHeldForBackup(dataDir: string): boolean {
  let names: string[];
  try {
    names = readdirSync(join(dataDir, HOLDS));
  } catch {
    return false;
  }
  let held = false;
  for (const name of names) {
    const pid = Number(name);
    if (Number.isInteger(pid) && pid > 0 && processAlive(pid)) held = true;
    else rmSync(join(dataDir, HOLDS, name), { force: true });
  }
  return held;
}
