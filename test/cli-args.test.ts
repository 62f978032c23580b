// passes: embedded — a pure parser, no server
// The CLI's shared argument grammar (src/cli/args.ts, node:util parseArgs underneath):
// what every subcommand accepts, and the usage errors people see.
import { describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, UsageError } from '../src/cli/args.ts';
import { parseDeployArgs } from '../src/cli/deploy-args.ts';
import { instanceOf } from '../src/cli/people-api.ts';
import { tokenFor } from '../src/cli/user-config.ts';

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

describe('which instance a command goes to', () => {
  test('with EASEL_TOKEN and nothing naming an instance, every command goes where deploy does (the default address); without a token it asks for a login', () => {
    const home = mkdtempSync(join(tmpdir(), 'easel-cli-instance-'));
    try {
      const env = { HOME: home, XDG_CONFIG_HOME: join(home, 'cfg'), EASEL_TOKEN: 'easel_pat_' + 'a'.repeat(40) };
      const deploy = parseDeployArgs(['site', '--canvas', 'c1'], env, {
        linked: null,
        currentInstance: null,
        tokenFor: (instance) => tokenFor(env, instance),
      });
      expect('apiBase' in deploy && deploy.apiBase).toBe('http://localhost:8080');
      expect(instanceOf(undefined, env, home).base).toBe('http://localhost:8080');
      const { EASEL_TOKEN: _, ...signedOut } = env;
      expect(() => instanceOf(undefined, signedOut, home)).toThrow('not signed in to any Easel: run easel login <instance URL>');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
