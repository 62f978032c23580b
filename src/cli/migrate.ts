// `easel migrate`: brings a data directory's database to this release's
// schema and exits, so an operator can migrate before starting the new
// release (a rolling upgrade step) instead of at its first start. It takes
// the data directory's lock: a server still running on it is refused.
import { resolve } from 'node:path';
import { schemaVersionAt } from '../backup/format.ts';
import { DataDirLockedError, lockDataDir } from '../db/data-dir-lock.ts';
import { SCHEMA_VERSION } from '../db/migrate.ts';
import { openDatabase } from '../db/open.ts';
import { parseArgs, UsageError } from './args.ts';
import type { CliIO } from './progress.ts';
import { runCommand } from './run.ts';

export const MIGRATE_USAGE = `Usage: easel migrate [--data-dir <dir>] [--json]

Applies the database migrations this release has that the data directory
lacks, then exits (the server does the same when it starts). Refused while a
server runs on the directory. --data-dir defaults to EASEL_DATA_DIR or ./data.`;

export function migrateCommand(argv: string[], env: Record<string, string | undefined>, io: CliIO): Promise<number> {
  return runCommand('migrate', MIGRATE_USAGE, argv, io, async () => {
    const args = parseArgs(argv, { values: ['--data-dir'] });
    if (args.help) return io.stdout(MIGRATE_USAGE + '\n');
    if (args.positional.length > 0) throw new UsageError('migrate takes no arguments');
    const dataDir = resolve(args.values['--data-dir'] ?? (env.EASEL_DATA_DIR || './data'));
    let lock;
    try {
      lock = lockDataDir(dataDir);
    } catch (err) {
      if (err instanceof DataDirLockedError)
        throw new Error(`${err.message} (${dataDir}): stop it first; a server applies its migrations itself when it starts`);
      throw err;
    }
    try {
      const before = schemaVersionAt(dataDir);
      openDatabase(dataDir).close();
      const result = { dataDir, from: before, to: SCHEMA_VERSION, applied: SCHEMA_VERSION - before };
      if (args.flags.has('--json')) io.stdout(JSON.stringify(result, null, 2) + '\n');
      else if (result.applied === 0) io.stdout(`${dataDir}: already at schema ${SCHEMA_VERSION}, nothing to apply\n`);
      else io.stdout(`${dataDir}: migrated from schema ${before} to ${SCHEMA_VERSION} (${result.applied} applied)\n`);
    } finally {
      lock.release();
    }
  });
}
