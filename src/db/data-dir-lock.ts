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
 *
 * The file holds the pid and, where /proc says it, when that process
 * started: after a power loss the file survives the reboot and its pid may
 * belong to another program by then, which must not keep Easel down (systemd
 * does not restart a refused start). A live pid that started at another time
 * is another process.
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
      writeSync(fd, `${process.pid} ${startTimeOf(process.pid) ?? ''}`.trim() + '\n');
      closeSync(fd);
      return {
        release() {
          if (readHolder(path)?.pid === process.pid) rmSync(path, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = readHolder(path);
      if (holder !== null && holder.pid !== process.pid && holderAlive(holder)) throw new DataDirLockedError(holder.pid);
      rmSync(path, { force: true });
    }
  }
  throw new Error(`could not lock ${dataDir}`);
}

interface Holder {
  pid: number;
  /** When it started, as /proc said (null: a file from before this was written, or no /proc). */
  started: string | null;
}

function readHolder(path: string): Holder | null {
  try {
    const [pidText, started] = readFileSync(path, 'utf8').trim().split(/\s+/);
    const pid = Number(pidText);
    return Number.isInteger(pid) && pid > 0 ? { pid, started: started || null } : null;
  } catch {
    return null;
  }
}

/** The holder is still running: its pid is alive and, where both are known, it started when the file says. */
function holderAlive(holder: Holder): boolean {
  if (!processAlive(holder.pid)) return false;
  const now = holder.started === null ? null : startTimeOf(holder.pid);
  return now === null || now === holder.started;
}

/** When a process started (clock ticks after boot, /proc/<pid>/stat field 22), or null where /proc does not say. */
export function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count from the last ')'. Field 3 is the first after it.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
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
