// How every subcommand ends: 0 done, 1 the server refused (or could not be
// reached, or you are not signed in), 2 a usage error; the refusal on stderr
// as `easel <command>: CODE: message`, and with --json its body on stdout.
import { ApiError } from './api-client.ts';
import { UsageError } from './args.ts';
import type { CliIO } from './progress.ts';

export async function runCommand(name: string, usage: string, argv: string[], io: CliIO, body: () => Promise<void>): Promise<number> {
  try {
    await body();
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`easel ${name}: ${err.message}\n\n${usage}\n`);
      return 2;
    }
    if (err instanceof ApiError) {
      io.stderr(`easel ${name}: ${err.code}: ${err.message}\n`);
      if (argv.includes('--json')) io.stdout(errorJson(err));
      return 1;
    }
    io.stderr(`easel ${name}: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

/** A refusal as --json prints it: always `{code, message}`, with what else the server said (`current`, `release`…). */
export function errorJson(err: ApiError): string {
  const { error: _shortForm, ...rest } = err.body ?? {};
  return JSON.stringify({ ...rest, code: err.code, message: err.message }, null, 2) + '\n';
}

/** Opens a URL in the person's browser; false when there is no way to (the URL is printed either way). */
export function openInBrowser(url: string): boolean {
  const command =
    process.platform === 'darwin' ? ['open', url] : process.platform === 'win32' ? ['cmd', '/c', 'start', '', url] : ['xdg-open', url];
  if (!Bun.which(command[0]!)) return false;
  try {
    Bun.spawn(command, { stdin: 'ignore', stdout: 'ignore', stderr: 'ignore' }).unref();
    return true;
  } catch {
    return false;
  }
}
