// One JSON line per event to stdout. Callers pass only metadata: never a key,
// token, password, cookie or stored value.
import { writeSync } from 'node:fs';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export function createLogger(level: LogLevel, write: (line: string) => void = batchedStdout()): Logger {
  const emit =
    (lvl: Exclude<LogLevel, 'silent'>) =>
    (msg: string, fields: Record<string, unknown> = {}) => {
      if (RANK[lvl] < RANK[level]) return;
      write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields }));
    };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

/**
 * Lines to stdout, written once per event-loop turn instead of once per line:
 * at tens of thousands of requests a second, one write per request log line
 * costs more than serving the page. Flushed at 64 KiB, after the turn, and at
 * exit, so nothing logged before a clean stop or a crash is lost.
 */
function batchedStdout(): (line: string) => void {
  let pending = '';
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending === '') return;
    const out = pending;
    pending = '';
    process.stdout.write(out);
  };
  process.on('exit', () => {
    if (pending !== '') writeSync(1, pending);
    pending = '';
  });
  return (line) => {
    pending += line + '\n';
    if (pending.length >= 65_536) return flush();
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
}
