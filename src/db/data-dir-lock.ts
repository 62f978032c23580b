import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const LOCK_FILE = 'easel.pid';

/** Another live process holds the data directory. */
export class DataDirLockedError extends Error {
  constructor(readonly pid: number) {
    super(`another easel process (pid ${pid}) is using this data directory`);
  }
}

/** EASEL_DATA_DIR names a file. */
export class DataDirNotADirectoryError extends Error {}

/**
 * One server per data directory: a pid file created exclusively. A file left
 * by a process that is gone (a crash, a kill -9) is taken over; one whose
 * process is alive refuses the start, naming it. Released at shutdown.
 */
export function lockDataDir(dataDir: string): { release(): void } {
  if (existsSync(dataDir) && !statSync(dataDir).isDirectory()) {
    throw new DataDirNotADirectoryError(
      `${dataDir} is a file, not a directory: point EASEL_DATA_DIR at a directory (it is created when missing)`,
    );
  }
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return {
        release() {
          const held = readPid(path);
          if (held === process.pid) rmSync(path, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = readPid(path);
      if (pid !== null && pid !== process.pid && processAlive(pid)) throw new DataDirLockedError(pid);
      rmSync(path, { force: true });
    }
  }
  throw new Error(`could not lock ${dataDir}`);
}

function readPid(path: string): number | null {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Whether a process with this pid exists (ours or another user's). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, owned by someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
