// Runs easel as a real process (`bun src/main.ts …` or the compiled binary)
// for the process-level tests: waits for the start line, collects output.
import type { Subprocess } from 'bun';
import { join } from 'node:path';

export const ROOT = join(import.meta.dir, '..');
export const FROM_SOURCE = [process.execPath, join(ROOT, 'src/main.ts')];
export const START_LINE = /^easel (\S+) listening on (\S+) \((?:public URL: \S+, )?data: (.+), auth: (\w+), urls: (\w+)\)$/;

export interface Easel {
  proc: Subprocess<'ignore', 'pipe', 'pipe'>;
  /** The address the server listens on, from the start line. */
  url: string;
  startLine: string;
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout matches `pattern` (lines the server logs are its signals across the process boundary). */
  printed(pattern: RegExp): Promise<void>;
  /** Resolves with the exit code. */
  exited: Promise<number>;
  signal(sig: 'SIGTERM' | 'SIGINT'): void;
}

export interface RunOptions {
  command?: string[];
  args?: string[];
  cwd?: string;
  env?: Record<string, string>;
}

/** A clean environment: no EASEL_* from the developer's shell leaks in. */
function envFor(extra: Record<string, string> = {}): Record<string, string> {
  const base: Record<string, string> = {};
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[key]) base[key] = process.env[key]!;
  return { ...base, EASEL_PORT: '0', EASEL_LOG_LEVEL: 'warn', ...extra };
}

function collect(stream: ReadableStream<Uint8Array>, onText: (all: string) => void): { text: () => string; done: Promise<void> } {
  let all = '';
  const decoder = new TextDecoder();
  const done = (async () => {
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      all += decoder.decode(value, { stream: true });
      onText(all);
    }
  })();
  return { text: () => all, done };
}

/** Runs a command to completion (version, help, refusals). */
export async function runToExit(options: RunOptions = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([...(options.command ?? FROM_SOURCE), ...(options.args ?? [])], {
    cwd: options.cwd ?? ROOT,
    env: envFor(options.env),
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** Starts the server and resolves once its start line is out (or rejects if it exits first). */
export async function startEasel(options: RunOptions = {}, timeoutMs = 15_000): Promise<Easel> {
  const proc = Bun.spawn([...(options.command ?? FROM_SOURCE), ...(options.args ?? [])], {
    cwd: options.cwd ?? ROOT,
    env: envFor(options.env),
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  let found: (line: string) => void = () => {};
  const started = new Promise<string>((resolve) => (found = resolve));
  const watchers: Array<{ pattern: RegExp; resolve: () => void }> = [];
  const out = collect(proc.stdout, (all) => {
    const line = all.split('\n').find((l) => START_LINE.test(l));
    if (line) found(line);
    for (const w of watchers.splice(0)) (w.pattern.test(all) ? w.resolve : () => watchers.push(w))();
  });
  const err = collect(proc.stderr, () => {});
  const exited = proc.exited.then(async (code) => {
    await Promise.all([out.done, err.done]);
    return code;
  });
  let timer: Timer | undefined;
  const startLine = await Promise.race([
    started,
    exited.then((code) => Promise.reject(new Error(`easel exited with ${code} before starting: ${err.text()}`))),
    new Promise<never>(
      (_, reject) =>
        (timer = setTimeout(() => reject(new Error(`no start line after ${timeoutMs} ms: ${out.text()} ${err.text()}`)), timeoutMs)),
    ),
  ]).finally(() => clearTimeout(timer));
  return {
    proc,
    url: START_LINE.exec(startLine)![2]!,
    startLine,
    stdout: out.text,
    stderr: err.text,
    printed: (pattern) =>
      pattern.test(out.text())
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            watchers.push({ pattern, resolve });
            void exited.then(() => (pattern.test(out.text()) ? resolve() : reject(new Error(`exited without printing ${pattern}`))));
          }),
    exited,
    signal: (sig) => proc.kill(sig),
  };
}

/** SIGTERM and the exit code. */
export async function stopEasel(easel: Easel): Promise<number> {
  easel.signal('SIGTERM');
  return easel.exited;
}
