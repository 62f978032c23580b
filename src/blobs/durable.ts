// One syncfs(2) for a whole deploy instead of an fdatasync per blob: 2000
// small files took 0.5–1 s of fsyncs on the reference VM, one syncfs ~60 ms.
// syncfs flushes every dirty page of the filesystem holding `dir` (for a
// dedicated data directory that is mostly our own writes). It is reached
// through bun:ffi on Linux; elsewhere, or when libc cannot be opened, callers
// fall back to syncing file by file.
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
