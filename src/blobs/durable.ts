// One syncfs(2) for a whole deploy instead of an fdatasync per blob: 2000
// small files took 0.5–1 s of fsyncs on the reference VM, one syncfs ~60 ms.
// syncfs flushes every dirty page of the filesystem holding `dir` (for a
// dedicated data directory that is mostly our own writes). It is reached
// through bun:ffi on Linux; elsewhere, or when libc cannot be opened, callers
// fall back to syncing file by file.
//
// A deploy's flush takes 140-220 ms of waiting on the disk, which the event
// loop would spend blocked (every other request waits). syncFilesystemOffLoop
// runs the same syncfs in a child (`sync -f`, coreutils) and awaits its exit;
// where that cannot run, it does the syncfs here as before.
import { closeSync, openSync } from 'node:fs';

type SyncFs = (fd: number) => number;

let loaded: SyncFs | null | undefined;

function load(): SyncFs | null {
  if (process.platform !== 'linux') return null;
  try {
    // Required lazily: bun:ffi loads only where it can be used.
    const { dlopen, FFIType } = require('bun:ffi') as typeof import('bun:ffi');
    const libc = dlopen('libc.so.6', { syncfs: { args: [FFIType.i32], returns: FFIType.i32 } });
    return (fd) => libc.symbols.syncfs(fd) as number;
  } catch {
    return null;
  }
}

/** Whether syncFilesystem can work here. */
export function canSyncFilesystem(): boolean {
  if (loaded === undefined) loaded = load();
  return loaded !== null;
}

/** Flushes the filesystem that holds `dir`; false when not available (or it failed), so the caller syncs files itself. */
export function syncFilesystem(dir: string): boolean {
  if (!canSyncFilesystem()) return false;
  const fd = openSync(dir, 'r');
  try {
    return loaded!(fd) === 0;
  } finally {
    closeSync(fd);
  }
}

/** `sync -f` (coreutils) where it exists: null until looked up. */
let syncCommand: string | null | undefined;

/**
 * syncFilesystem with the loop free meanwhile: answers once `dir`'s
 * filesystem is flushed (true), or false when neither way is available or
 * the flush failed (the caller then syncs files itself).
 */
export async function syncFilesystemOffLoop(dir: string): Promise<boolean> {
  if (process.platform !== 'linux') return syncFilesystem(dir);
  if (syncCommand === undefined) syncCommand = Bun.which('sync');
  if (syncCommand !== null) {
    try {
      const child = Bun.spawn([syncCommand, '-f', dir], { stdin: 'ignore', stdout: 'ignore', stderr: 'ignore' });
      if ((await child.exited) === 0) return true;
    } catch {
      // Could not start (no process slots, the binary went away): flush from here.
    }
  }
  return syncFilesystem(dir);
}
