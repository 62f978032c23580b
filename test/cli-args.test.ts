// passes: embedded — a pure parser, no server
// The CLI's shared argument grammar (src/cli/args.ts, node:util parseArgs underneath):
// what every subcommand accepts, and the usage errors people see.
import { describe, expect, test } from 'bun:test';
import { parseArgs, UsageError } from '../src/cli/args.ts';

const SPEC = { values: ['--canvas', '--title'], flags: ['--yes'] };
const parsed = (argv: string[]) => {
  const out = parseArgs(argv, SPEC);
  return { ...out, flags: [...out.flags].sort() };
};
const refusal = (argv: string[]) => {
  try {
    parseArgs(argv, SPEC);
  } catch (err) {
    return { usage: err instanceof UsageError, message: (err as Error).message };
  }
  return null;
};

describe('CLI arguments', () => {
  test('positionals, --name value, --name=value, flags, --json, -h and --', () => {
    expect(parsed(['site', '--canvas', 'c1', '--title=A b', '--yes', '--json', '--', '--not-an-option'])).toEqual({
      positional: ['site', '--not-an-option'],
      values: { '--canvas': 'c1', '--title': 'A b' },
      flags: ['--json', '--yes'],
      help: false,
    });
    expect(parsed(['-h']).help).toBe(true);
    expect(parsed(['--help']).help).toBe(true);
  });

  test('usage errors name the option', () => {
    expect(refusal(['--bogus'])).toEqual({ usage: true, message: 'unknown option --bogus' });
    expect(refusal(['--canvas'])).toEqual({ usage: true, message: '--canvas needs a value' });
    expect(refusal(['--canvas='])).toEqual({ usage: true, message: '--canvas needs a value' });
    // The next option is not taken as the value (the old parser made "--json" the canvas).
    expect(refusal(['--canvas', '--json'])).toEqual({ usage: true, message: '--canvas needs a value' });
    expect(refusal(['--yes=no'])).toEqual({ usage: true, message: '--yes takes no value' });
  });
});
