// What an instance keeps on disk, to search for plaintext secrets: the SQLite
// file and its WAL, or on the cluster the Postgres database's own files.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TestApp } from './harness.ts';

/** Every byte the instance keeps on disk (database, WAL) as latin1 text, to search for plaintext. */
export async function diskText(app: TestApp): Promise<string> {
  if (app.ctx.sql.engine === 'sqlite') {
    app.ctx.db!.exec('PRAGMA wal_checkpoint(FULL)');
    return readdirSync(app.dataDir)
      .filter((f) => f.startsWith('easel.db'))
      .map((f) => readFileSync(join(app.dataDir, f)).toString('latin1'))
      .join('\n');
  }
  // Postgres (the test's own server, on this machine): the database's files and the WAL, after a checkpoint.
  await app.ctx.sql.run('CHECKPOINT');
  const { dir, oid } = (await app.ctx.sql.get<{ dir: string; oid: string }>(
    "SELECT current_setting('data_directory') AS dir, oid::text AS oid FROM pg_database WHERE datname = current_database()",
  ))!;
  return [join(dir, 'base', oid), join(dir, 'pg_wal')]
    .flatMap((d) =>
      readdirSync(d, { withFileTypes: true })
        .filter((f) => f.isFile())
        .map((f) => join(d, f.name)),
    )
    .map((f) => readFileSync(f).toString('latin1'))
    .join('\n');
}
