// The logger's stdout writer batches lines per event-loop turn: nothing may
// be lost or reordered, whether the process exits at once or keeps running.
import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { createLogger, lineBatcher } from '../src/log.ts';

const LOG = join(import.meta.dir, '../src/log.ts');

function run(script: string): { lines: Array<Record<string, unknown>>; code: number } {
  const proc = Bun.spawnSync([process.execPath, '-e', `import { createLogger } from ${JSON.stringify(LOG)};\n${script}`], {
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const text = proc.stdout.toString();
  return {
    lines: text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l)),
    code: proc.exitCode ?? -1,
  };
}

describe('log lines on stdout', () => {
  test('lines logged just before process.exit are all written, in order', () => {
    const { lines, code } = run(
      `const log = createLogger('info'); for (let i = 0; i < 5; i++) log.info('line', { i }); log.debug('hidden'); process.exit(3);`,
    );
    expect(code).toBe(3);
    expect(lines.map((l) => [l.level, l.msg, l.i])).toEqual([0, 1, 2, 3, 4].map((i) => ['info', 'line', i]));
  });

  test('past 64 KiB and across turns: every line once, in order, each a whole JSON object', () => {
    const { lines } = run(`
      const log = createLogger('info');
      const pad = 'x'.repeat(1000);
      for (let i = 0; i < 200; i++) log.warn('burst', { i, pad });
      setTimeout(() => { log.info('later', { i: 200 }); }, 10);
    `);
    expect(lines.map((l) => l.i)).toEqual(Array.from({ length: 201 }, (_, i) => i));
    expect(lines.at(-1)).toMatchObject({ level: 'info', msg: 'later' });
  });
});

/** A batcher whose turn and timer are run by hand: what it wrote, and what it has asked to run. */
function handRun(flushBytes = 1_000) {
  const writes: string[] = [];
  const afterTurn: Array<() => void> = [];
  const timers: Array<{ fn: () => void; ms: number }> = [];
  const batcher = lineBatcher({
    write: (chunk) => void writes.push(chunk),
    afterTurn: (fn) => void afterTurn.push(fn),
    after: (fn, ms) => void timers.push({ fn, ms }),
    flushMs: 50,
    flushBytes,
  });
  const runTurn = () => {
    for (const fn of afterTurn.splice(0)) fn();
  };
  const runTimers = () => {
    for (const t of timers.splice(0)) t.fn();
  };
  return { batcher, writes, afterTurn, timers, runTurn, runTimers };
}

describe('batching', () => {
  test('request lines wait for the timer (one per batch, flushMs), then go out in one write, in order', () => {
    const h = handRun();
    h.batcher.batched('a');
    h.batcher.batched('b');
    h.batcher.batched('c');
    expect(h.writes).toEqual([]);
    expect(h.timers.map((t) => t.ms)).toEqual([50]);
    expect(h.afterTurn).toEqual([]);
    h.runTimers();
    expect(h.writes).toEqual(['a\nb\nc\n']);
    h.batcher.batched('d');
    expect(h.timers).toHaveLength(1);
  });

  test('reaching the size writes at once, without the timer', () => {
    const h = handRun(10);
    h.batcher.batched('12345');
    expect(h.writes).toEqual([]);
    h.batcher.batched('67890');
    expect(h.writes).toEqual(['12345\n67890\n']);
    h.runTimers();
    expect(h.writes).toHaveLength(1);
  });

  test('any other line flushes after the turn, taking the waiting request lines with it in order; flush() and take() empty it', () => {
    const h = handRun();
    h.batcher.batched('r1');
    h.batcher.soon('warn');
    h.batcher.soon('error');
    expect(h.afterTurn).toHaveLength(1);
    h.runTurn();
    expect(h.writes).toEqual(['r1\nwarn\nerror\n']);
    h.batcher.batched('r2');
    h.batcher.flush();
    h.batcher.batched('r3');
    expect(h.batcher.take()).toBe('r3\n');
    expect(h.writes).toEqual(['r1\nwarn\nerror\n', 'r2\n']);
  });
});

describe('lines', () => {
  test('a request line is one JSON object with the request facts; the path is escaped; nothing below the level', () => {
    const lines: string[] = [];
    const log = createLogger('info', (l) => void lines.push(l));
    log.request('r-1', 'GET', '/c/a"b\\c/', 404, 1.23456);
    log.info('plain', { n: 1 });
    log.info('bare');
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      {
        time: expect.any(String),
        level: 'info',
        msg: 'request',
        requestId: 'r-1',
        method: 'GET',
        path: '/c/a"b\\c/',
        status: 404,
        durationMs: 1.23,
      },
      { time: expect.any(String), level: 'info', msg: 'plain', n: 1 },
      { time: expect.any(String), level: 'info', msg: 'bare' },
    ]);
    expect(new Date(JSON.parse(lines[0]!).time).toISOString()).toBe(JSON.parse(lines[0]!).time);
    const quiet: string[] = [];
    createLogger('warn', (l) => void quiet.push(l)).request('r-2', 'GET', '/', 200, 1);
    expect(quiet).toEqual([]);
  });

  test('the path in a request line is the text JSON.stringify makes, whether or not it needs escaping', () => {
    const paths = [
      '/c/app/assets/app.js',
      '/c/a b/~x!$&()*+,;=@[]^_`{|}',
      '/c/a"b',
      '/c/a\\b',
      '/c/\u0001\u001f\u007f',
      '/c/é\u2028\ud800',
      '',
    ];
    const lines: string[] = [];
    const log = createLogger('info', (l) => void lines.push(l));
    for (const path of paths) log.request('r', 'GET', path, 200, 1);
    expect(lines.map((l) => l.slice(l.indexOf('"path":') + 7, l.indexOf(',"status"')))).toEqual(paths.map((p) => JSON.stringify(p)));
  });
});
