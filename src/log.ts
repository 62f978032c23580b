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
  /**
   * The `info` line of an answered request (never its query: it can carry
   * tokens). One per request, so it takes plain arguments, is built as one
   * string and written in batches.
   */
  request(requestId: string, method: string, path: string, status: number, durationMs: number): void;
  /** Whether `debug` lines are written: a caller on every request checks it before building the fields. */
  readonly debugs: boolean;
}

/**
 * Where lines go. `soon` lines are written after the current event-loop turn
 * (they are the rare ones tests and operators watch for); `batched` lines
 * (one per request) wait for the next size or timer flush.
 */
export interface LineSink {
  soon(line: string): void;
  batched(line: string): void;
}

export function createLogger(level: LogLevel, sink: LineSink | ((line: string) => void) = batchedStdout()): Logger {
  const out = typeof sink === 'function' ? { soon: sink, batched: sink } : sink;
  const emit =
    (lvl: Exclude<LogLevel, 'silent'>) =>
    (msg: string, fields?: Record<string, unknown>): void => {
      if (RANK[lvl] < RANK[level]) return;
      // Built as text (no merged copy of `fields` per line); a field named like a header key wins, as a later JSON key does.
      const rest = fields === undefined ? '}' : restOf(JSON.stringify(fields));
      out.soon(`{"time":"${isoNow()}","level":"${lvl}","msg":${JSON.stringify(msg)}${rest}`);
    };
  const logsInfo = RANK.info >= RANK[level];
  return {
    debugs: RANK.debug >= RANK[level],
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    request: (requestId, method, path, status, durationMs) => {
      if (!logsInfo) return;
      // The request id is [A-Za-z0-9._:-] (meta.ts) and a method an HTTP token: neither needs escaping; the path may.
      out.batched(
        `{"time":"${isoNow()}","level":"info","msg":"request","requestId":"${requestId}","method":"${method}","path":${jsonString(path)},"status":${status},"durationMs":${Math.round(durationMs * 100) / 100}}`,
      );
    },
  };
}

/** Printable ASCII but `"` and `\`: what JSON.stringify writes back unchanged between quotes (most request paths). */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

function jsonString(s: string): string {
  return PLAIN.test(s) ? `"${s}"` : JSON.stringify(s);
}

/** `,"a":1}` from `{"a":1}`; `}` from `{}`. */
function restOf(json: string): string {
  return json.length <= 2 ? '}' : `,${json.slice(1)}`;
}

// One Date per millisecond, not per line.
let isoMs = -1;
let iso = '';
function isoNow(): string {
  const ms = Date.now();
  if (ms !== isoMs) {
    isoMs = ms;
    iso = new Date(ms).toISOString();
  }
  return iso;
}

/** How long a request line may wait for company before it is written: what a kill -9 can lose. */
export const LOG_FLUSH_MS = 50;
/** Written at once when this much is waiting. */
export const LOG_FLUSH_BYTES = 64 * 1024;

export interface BatchOptions {
  /** Where a batch goes. */
  write: (chunk: string) => void;
  /** Runs `fn` after the current turn. */
  afterTurn: (fn: () => void) => void;
  /** Runs `fn` after `ms` (in a process: a timer that does not keep it alive). */
  after: (fn: () => void, ms: number) => void;
  flushMs?: number;
  flushBytes?: number;
}

/**
 * Lines joined into few writes: at tens of thousands of requests a second,
 * one write per request line costs more than serving the page. Flushed when
 * `flushBytes` wait, `flushMs` after the first batched line, after the turn
 * for a `soon` line, and by `flush()` (at exit). Order is kept: one buffer.
 */
export function lineBatcher(options: BatchOptions): LineSink & { flush(): void; take(): string } {
  const flushMs = options.flushMs ?? LOG_FLUSH_MS;
  const flushBytes = options.flushBytes ?? LOG_FLUSH_BYTES;
  let pending = '';
  const take = () => {
    const out = pending;
    pending = '';
    return out;
  };
  const flush = () => {
    if (pending !== '') options.write(take());
  };
  const add = (line: string): boolean => {
    pending += line + '\n';
    if (pending.length < flushBytes) return false;
    flush();
    return true;
  };
  return {
    flush,
    take,
    soon: oncePending(add, flush, options.afterTurn),
    batched: oncePending(add, flush, (fn) => options.after(fn, flushMs)),
  };
}

/** Adds a line; unless that flushed it, asks `schedule` for one flush (one at a time). */
function oncePending(add: (line: string) => boolean, flush: () => void, schedule: (fn: () => void) => void): (line: string) => void {
  let scheduled = false;
  const run = () => {
    scheduled = false;
    flush();
  };
  return (line) => {
    if (add(line) || scheduled) return;
    scheduled = true;
    schedule(run);
  };
}

/** The process's stdout, batched; whatever waits is written synchronously at exit (after SIGTERM's clean stop too). */
function batchedStdout(): LineSink {
  const batcher = lineBatcher({
    write: (chunk) => void process.stdout.write(chunk),
    afterTurn: (fn) => void setImmediate(fn),
    after: (fn, ms) => void setTimeout(fn, ms).unref(),
  });
  process.on('exit', () => {
    const rest = batcher.take();
    if (rest !== '') writeSync(1, rest);
  });
  return batcher;
}
