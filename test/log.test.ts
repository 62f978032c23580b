// The logger's stdout writer batches lines per event-loop turn: nothing may
// be lost or reordered, whether the process exits at once or keeps running.
import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';

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
