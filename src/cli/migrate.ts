// `easel migrate`: brings a data directory's database to this release's
// schema and exits, so an operator can migrate before starting the new
// release (a rolling upgrade step) instead of at its first start. It takes
// the data directory's lock: a server still running on it is refused.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DATABASE, schemaVersionAt } from '../backup/format.ts';
import { DataDirLockedError, lockDataDir } from '../db/data-dir-lock.ts';
import { loadConfig } from '../config.ts';
import { NewerSchemaError, SCHEMA_VERSION } from '../db/migrate.ts';
import { DatabaseUnavailable } from '../db/open-storage.ts';
import { migratePostgres } from '../db/postgres-migrate.ts';
import { PostgresSql } from '../db/postgres-sql.ts';
import { openDatabase } from '../db/open.ts';
import { parseArgs, UsageError } from './args.ts';
import type { CliIO } from './progress.ts';
import { runCommand } from './run.ts';

export const MIGRATE_USAGE = `Usage: easel migrate [--data-dir <dir>] [--json]

Applies the database migrations this release has that the database lacks,
then exits (the server does the same when it starts). With EASEL_DATABASE_URL
set, the Postgres database is migrated (nodes still running keep serving;
each migration is applied once, whoever runs it). Otherwise the data
directory's database, refused while a server runs on the directory.
--data-dir defaults to EASEL_DATA_DIR or ./data.`;

export function migrateCommand(argv: string[], env: Record<string, string | undefined>, io: CliIO): Promise<number> {
  return runCommand('migrate', MIGRATE_USAGE, argv, io, async () => {
    const args = parseArgs(argv, { values: ['--data-dir'] });
    if (args.help) return io.stdout(MIGRATE_USAGE + '\n');
    if (args.positional.length > 0) throw new UsageError('migrate takes no arguments');
    if (env.EASEL_DATABASE_URL) return migrateDatabase(env, args.flags.has('--json'), io);
    const dataDir = resolve(args.values['--data-dir'] ?? (env.EASEL_DATA_DIR || './data'));
    // A mistyped or unset directory would get a new, empty database and a "migrated" that migrated nothing of the instance.
    if (!existsSync(join(dataDir, DATABASE)))
      throw new Error(
        `${dataDir} holds no Easel database (${DATABASE}): check EASEL_DATA_DIR or --data-dir (a new instance needs no migrate: the server makes its database)`,
      );
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

async function migrateDatabase(env: Record<string, string | undefined>, json: boolean, io: CliIO): Promise<void> {
  const { database } = loadConfig({ EASEL_DATABASE_URL: env.EASEL_DATABASE_URL });
  const pg = new PostgresSql(database!.url, { max: 2 });
  try {
    const applied = await migratePostgres(pg).catch((err: unknown) => {
      if (err instanceof NewerSchemaError) throw err;
      throw new DatabaseUnavailable(database!.display, err);
    });
    const result = { database: database!.display, to: SCHEMA_VERSION, applied: applied.length };
    if (json) io.stdout(JSON.stringify(result, null, 2) + '\n');
    else if (applied.length === 0) io.stdout(`${database!.display}: already at schema ${SCHEMA_VERSION}, nothing to apply\n`);
    else io.stdout(`${database!.display}: migrated to schema ${SCHEMA_VERSION} (${applied.length} applied)\n`);
  } finally {
    await pg.close();
  }
}
