// The argument grammar every subcommand shares: positionals, `--flag`,
// `--name value` or `--name=value`, `--` ends the options (node:util parseArgs).

import { parseArgs as parseWithNode } from 'node:util';

export class UsageError extends Error {}

export interface ParsedArgs {
  positional: string[];
  values: Record<string, string>;
  flags: Set<string>;
  help: boolean;
}

/** node:util's parser in strict mode; its refusals are reworded as usage errors in the CLI's voice. */
export function parseArgs(argv: string[], spec: { values?: readonly string[]; flags?: readonly string[] }): ParsedArgs {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {
    help: { type: 'boolean', short: 'h' },
    json: { type: 'boolean' },
  };
  for (const name of spec.flags ?? []) options[name.slice(2)] = { type: 'boolean' };
  for (const name of spec.values ?? []) options[name.slice(2)] = { type: 'string' };
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseWithNode({ args: argv, options, strict: true, allowPositionals: true });
  } catch (err) {
    throw usageErrorOf(err);
  }
  const out: ParsedArgs = { positional: parsed.positionals, values: {}, flags: new Set(), help: parsed.values.help === true };
  for (const [name, value] of Object.entries(parsed.values)) {
    if (name === 'help' || value === undefined) continue;
    if (typeof value === 'boolean') out.flags.add(`--${name}`);
    else if (value === '') throw new UsageError(`--${name} needs a value`);
    else out.values[`--${name}`] = value;
  }
  return out;
}

function usageErrorOf(err: unknown): Error {
  const code = (err as { code?: string }).code;
  const message = err instanceof Error ? err.message : String(err);
  const option = /'(-{1,2}[^' ]+)/.exec(message)?.[1] ?? '';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return new UsageError(`unknown option ${option}`);
  // A value option last or followed by another option ("--canvas --json"), or a flag given a value ("--json=yes").
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE')
    return new UsageError(/does not take an argument/.test(message) ? `${option} takes no value` : `${option} needs a value`);
  return err instanceof Error ? err : new Error(message);
}

/** Where commands go when nothing names an instance (the server's default address). */
export const DEFAULT_INSTANCE = 'http://localhost:8080';

/** An http(s) base URL without a trailing slash, or a usage error naming where it came from. */
export function baseUrl(value: string, from: string): string {
  const base = value.trim().replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/.test(base)) throw new UsageError(`${from} must be an http(s) URL, got ${JSON.stringify(value)}`);
  return base;
}
