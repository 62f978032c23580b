// `easel copy-data --from sqlite:<dir> --to postgres://…`: moves an embedded
// instance onto Postgres (and, with EASEL_BLOB_URL, its blobs onto S3)
// without losing a canvas, a key, a version or a KV entry. The source's lock
// is held throughout (a server running on it is refused); the records go in
// one transaction into an empty database, then every table's count is
// checked against the source.
import { resolve } from 'node:path';
import { S3BlobRemote } from '../blobs/s3-remote.ts';
import { blobStoreSettings, loadConfig } from '../config.ts';
import { copyBlobs, type CopiedBlobs } from '../copy/copy-blobs.ts';
import { copyRecords } from '../copy/copy-records.ts';
import { DataDirLockedError, lockDataDir } from '../db/data-dir-lock.ts';
import { NewerSchemaError } from '../db/migrate.ts';
import { openDatabase } from '../db/open.ts';
import { DatabaseUnavailable } from '../db/open-storage.ts';
import { migratePostgres } from '../db/postgres-migrate.ts';
import { PostgresSql } from '../db/postgres-sql.ts';
import { parseArgs, UsageError } from './args.ts';
import type { CliIO } from './progress.ts';
import { runCommand } from './run.ts';

export const COPY_DATA_USAGE = `Usage: easel copy-data --from sqlite:<data dir> --to postgres://… [--json]

  Copies every record of an embedded instance (its data directory, stopped)
  into a new, empty Postgres database, migrating it first. With
  EASEL_BLOB_URL (and the S3 variables) set, every blob is checked against
  its hash and uploaded to that bucket too; without it, give the new nodes
  a copy of the data directory's blobs/ folder. Row counts are compared
  table by table before it reports success. The source is never changed.
  --json   print what was copied as JSON on stdout`;

export function copyDataCommand(argv: string[], env: Record<string, string | undefined>, io: CliIO): Promise<number> {
  return runCommand('copy-data', COPY_DATA_USAGE, argv, io, async () => {
    const args = parseArgs(argv, { values: ['--from', '--to'] });
    if (args.help) return io.stdout(COPY_DATA_USAGE + '\n');
    if (args.positional.length > 0) throw new UsageError('copy-data takes no arguments besides --from and --to');
    const from = args.values['--from'];
    const to = args.values['--to'];
    if (!from?.startsWith('sqlite:') || from.length === 'sqlite:'.length) throw new UsageError('--from sqlite:<data dir> is required');
    if (!to) throw new UsageError('--to postgres://… is required');
    const dataDir = resolve(from.slice('sqlite:'.length));
    // Parsed as EASEL_DATABASE_URL is (and never echoed: it may carry a password).
    const { database } = loadConfig({ EASEL_DATABASE_URL: to });
    const settings = blobStoreSettings(env);
    const bucket = settings ? new S3BlobRemote(settings) : null;

    let lock;
    try {
      lock = lockDataDir(dataDir);
    } catch (err) {
      if (err instanceof DataDirLockedError) throw new Error(`${err.message} (${dataDir}): stop it first`);
      throw err;
    }
    const source = openDatabase(dataDir);
    const target = new PostgresSql(database!.url, { max: 2 });
    try {
      await migratePostgres(target).catch((err: unknown) => {
        if (err instanceof NewerSchemaError) throw err;
        throw new DatabaseUnavailable(database!.display, err);
      });
      const tables = await copyRecords(source, target);
      for (const { table, rows } of tables) {
        const [row] = await target.native((run) => run(`SELECT count(*)::bigint AS n FROM "${table}"`));
        if (Number(row!.n) !== rows) throw new Error(`table ${table}: ${rows} rows read but ${String(row!.n)} in the target`);
      }
      const blobs: CopiedBlobs | null = bucket ? await copyBlobs(dataDir, bucket) : null;
      const records = tables.reduce((sum, t) => sum + t.rows, 0);
      if (args.flags.has('--json')) {
        io.stdout(JSON.stringify({ from: dataDir, to: database!.display, tables, blobs }, null, 2) + '\n');
        return;
      }
      io.stdout(`${dataDir} → ${database!.display}: ${records} records in ${tables.length} tables\n`);
      if (blobs) io.stdout(`blobs → ${bucket!.location}: ${blobs.uploaded} uploaded, ${blobs.alreadyThere} already there\n`);
      else io.stdout(`blobs were not copied (EASEL_BLOB_URL is not set): give every node a copy of ${dataDir}/blobs\n`);
    } finally {
      source.close();
      await target.close();
      lock.release();
    }
  });
}
