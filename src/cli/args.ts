// The small argument grammar every subcommand shares: positionals, `--flag`,
// `--name value` or `--name=value`, `--` ends the options.

export class UsageError extends Error {}

export interface ParsedArgs {
  positional: string[];
  values: Record<string, string>;
  flags: Set<string>;
  help: boolean;
}

export function parseArgs(argv: string[], spec: { values?: readonly string[]; flags?: readonly string[] }): ParsedArgs {
  const out: ParsedArgs = { positional: [], values: {}, flags: new Set(), help: false };
  const valueNames = new Set(spec.values ?? []);
  const flagNames = new Set(['--json', ...(spec.flags ?? [])]);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h' || arg === '--help') out.help = true;
    else if (arg === '--') {
      out.positional.push(...argv.slice(i + 1));
      break;
    } else if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq < 0 ? arg : arg.slice(0, eq);
      if (flagNames.has(name) && eq < 0) out.flags.add(name);
      else if (valueNames.has(name)) {
        const value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
        if (value === undefined || value === '') throw new UsageError(`${name} needs a value`);
        out.values[name] = value;
      } else throw new UsageError(`unknown option ${name}`);
    } else out.positional.push(arg);
  }
  return out;
}

/** An http(s) base URL without a trailing slash, or a usage error naming where it came from. */
export function baseUrl(value: string, from: string): string {
  const base = value.trim().replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/.test(base)) throw new UsageError(`${from} must be an http(s) URL, got ${JSON.stringify(value)}`);
  return base;
}
