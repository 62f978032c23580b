// `easel backup <file.tar or folder> [--data-dir <dir>]` and
// `easel restore <backup> [--data-dir <dir>]`. Exit codes: 0 done, 1 refused
// or failed (nothing left half-written), 2 usage.
import { resolve } from 'node:path';
import { S3BlobRemote } from '../blobs/s3-remote.ts';
import { blobStoreSettings } from '../config.ts';
import { createBackup } from '../backup/create.ts';
import { restoreBackup } from '../backup/restore.ts';
import { parseArgs, UsageError } from './args.ts';
import { formatBytes, Progress, type CliIO } from './progress.ts';
import { runCommand } from './run.ts';

export const BACKUP_USAGE = `Usage: easel backup <file.tar or folder> [--data-dir <dir>] [--json]

  Copies the data directory while the server runs: a consistent snapshot of the
  database and exactly the blobs it names. A name ending in .tar makes one
  archive file; anything else a new (or empty) folder. Never overwrites.
  With EASEL_BLOB_URL set, blobs the data directory holds no copy of are
  read from that blob store (so the backup is whole either way).
  --data-dir <dir>   the data directory (default: EASEL_DATA_DIR, else ./data)
  --json             print the backup's manifest as JSON on stdout`;

export const RESTORE_USAGE = `Usage: easel restore <backup .tar or folder> [--data-dir <dir>] [--json]

  Restores a backup into a new or empty data directory (refuses any other),
  checking every byte. Start the server on it afterwards.
  --data-dir <dir>   where to restore (default: EASEL_DATA_DIR, else ./data)
  --json             print the restored backup's manifest as JSON on stdout`;

interface Args {
  path: string;
  dataDir: string;
  json: boolean;
}

/** The shared grammar (args.ts); `null` when the usage text was asked for. */
function parse(argv: string[], env: Record<string, string | undefined>): Args | null {
  const args = parseArgs(argv, { values: ['--data-dir'] });
  if (args.help) return null;
  if (args.positional.length !== 1) throw new UsageError(args.positional.length === 0 ? 'name the backup' : 'one backup at a time');
  return {
    path: args.positional[0]!,
    dataDir: resolve(args.values['--data-dir'] ?? (env.EASEL_DATA_DIR || './data')),
    json: args.flags.has('--json'),
  };
}

function run(
  name: string,
  usage: string,
  argv: string[],
  env: Record<string, string | undefined>,
  io: CliIO,
  work: (args: Args) => Promise<void>,
) {
  return runCommand(name, usage, argv, io, async () => {
    const args = parse(argv, env);
    if (args === null) return io.stdout(usage + '\n');
    // A backup is the embedded database and its blobs; a Postgres instance has its own tools.
    if (env.EASEL_DATABASE_URL)
      throw new Error(
        `${name} works on the embedded database in the data directory; with EASEL_DATABASE_URL, back up Postgres with pg_dump (and the blob bucket with its own versioning or replication)`,
      );
    await work(args);
  });
}

export function backupCommand(argv: string[], env: Record<string, string | undefined>, io: CliIO): Promise<number> {
  return run('backup', BACKUP_USAGE, argv, env, io, async (args) => {
    const blobStore = blobStoreSettings(env);
    const { manifest, kind } = await createBackup(args.dataDir, args.path, {
      remote: blobStore ? new S3BlobRemote(blobStore) : null,
      progress: (count, bytes) => new Progress(io, 'copying blobs', count, bytes, 4),
    });
    if (args.json) io.stdout(JSON.stringify(manifest, null, 2) + '\n');
    else
      io.stdout(
        `backup written to ${args.path} (${kind}): database ${formatBytes(manifest.database.size)} (schema ${manifest.schemaVersion}), ${manifest.blobs.count} blobs (${formatBytes(manifest.blobs.bytes)})\n`,
      );
  });
}

export function restoreCommand(argv: string[], env: Record<string, string | undefined>, io: CliIO): Promise<number> {
  return run('restore', RESTORE_USAGE, argv, env, io, async (args) => {
    const { manifest } = await restoreBackup(args.path, args.dataDir);
    if (args.json) io.stdout(JSON.stringify(manifest, null, 2) + '\n');
    else
      io.stdout(
        `restored ${args.path} (made ${manifest.createdAt} by easel ${manifest.easelVersion}) into ${args.dataDir}: ${manifest.blobs.count} blobs (${formatBytes(manifest.blobs.bytes)}), every byte checked. Start the server with EASEL_DATA_DIR=${args.dataDir}\n`,
      );
  });
}
