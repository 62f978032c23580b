// `easel restore <backup> --data-dir <dir>`: a backup (tar or folder) into an
// empty data directory. Every byte is checked on the way in (the database
// against the manifest's hash, each blob against its name), anything that is
// not part of a backup is refused, and the restored database must pass
// SQLite's integrity check and find every blob it names. On any failure the
// directory is left as empty as it was found.
import { blobPathUnder, openBlobLayout } from '../blobs/layout.ts';
import { Database } from 'bun:sqlite';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { SCHEMA_VERSION } from '../db/migrate.ts';
import { cappedChunks, writeCapped } from '../streams/capped.ts';
import { verified } from './create.ts';
import { BackupError, DATABASE, hashOfBlobName, MANIFEST, parseManifest, referencedHashes, type Manifest } from './format.ts';
import { readTar, TarFormatError, type TarEntry } from './tar.ts';

const MAX_MANIFEST_BYTES = 64 * 1024;

export interface RestoreSummary {
  dataDir: string;
  manifest: Manifest;
}

export async function restoreBackup(source: string, dataDir: string): Promise<RestoreSummary> {
  const info = statSync(source, { throwIfNoEntry: false });
  if (!info) throw new BackupError(`${source}: no such backup file or folder`);
  if (existsSync(dataDir)) {
    if (!statSync(dataDir).isDirectory()) throw new BackupError(`${dataDir} is a file: restore into a new or empty folder`);
    if (readdirSync(dataDir).length > 0)
      throw new BackupError(`${dataDir} is not empty: restore only goes into a new or empty data directory (it never overwrites one)`);
  }
  const created = !existsSync(dataDir);
  mkdirSync(dataDir, { recursive: true });
  try {
    const manifest = await restoreEntries(info.isDirectory() ? folderEntries(source) : readTar(Bun.file(source).stream()), dataDir);
    checkDatabase(dataDir);
    return { dataDir, manifest };
  } catch (err) {
    if (created) rmSync(dataDir, { recursive: true, force: true });
    else for (const name of readdirSync(dataDir)) rmSync(join(dataDir, name), { recursive: true, force: true });
    if (err instanceof TarFormatError) throw new BackupError(`${source}: ${err.message}`);
    throw err;
  }
}

async function restoreEntries(entries: AsyncIterable<TarEntry>, dataDir: string): Promise<Manifest> {
  let manifest: Manifest | null = null;
  let database = false;
  const blobs = new Set<string>();
  let blobBytes = 0;
  // The data directory gets the one-level blob layout (folders and marker) now; archives keep the two-level names.
  const blobsRoot = join(dataDir, 'blobs');
  openBlobLayout(blobsRoot);
  for await (const entry of entries) {
    if (manifest === null) {
      if (entry.name !== MANIFEST || entry.size > MAX_MANIFEST_BYTES)
        throw new BackupError(`this is not an Easel backup (it starts with ${JSON.stringify(entry.name)}, not ${MANIFEST})`);
      manifest = parseManifest(await textOf(entry));
      if (manifest.schemaVersion > SCHEMA_VERSION)
        throw new BackupError(
          `the backup was made by a newer Easel (schema ${manifest.schemaVersion}; this build knows up to ${SCHEMA_VERSION}): restore it with that release or a later one`,
        );
      continue;
    }
    if (entry.name === DATABASE && !database) {
      if (entry.size !== manifest.database.size)
        throw new BackupError('the database in the backup does not have the size its manifest records');
      await writeCapped(verified(entry.body(), manifest.database.sha256), join(dataDir, DATABASE), entry.size, { sync: true });
      database = true;
      continue;
    }
    const hash = hashOfBlobName(entry.name);
    if (hash === null || blobs.has(hash)) throw new BackupError(`unexpected entry ${JSON.stringify(entry.name)}: this backup was altered`);
    const path = blobPathUnder(blobsRoot, hash);
    mkdirSync(dirname(path), { recursive: true });
    await writeCapped(verified(entry.body(), hash), path, entry.size, { sync: true });
    blobs.add(hash);
    blobBytes += entry.size;
  }
  if (manifest === null) throw new BackupError('the backup is empty');
  if (!database) throw new BackupError('the backup holds no database (it was cut short)');
  if (blobs.size !== manifest.blobs.count || blobBytes !== manifest.blobs.bytes)
    throw new BackupError(
      `the backup holds ${blobs.size} blob(s) (${blobBytes} bytes) but its manifest lists ${manifest.blobs.count} (${manifest.blobs.bytes} bytes): it was cut short`,
    );
  return manifest;
}

function checkDatabase(dataDir: string): void {
  const db = new Database(join(dataDir, DATABASE), { readonly: true });
  try {
    const result = db.query<{ integrity_check: string }, []>('PRAGMA integrity_check').all();
    if (result.length !== 1 || result[0]!.integrity_check !== 'ok')
      throw new BackupError(`the restored database fails SQLite's integrity check: ${result.map((r) => r.integrity_check).join('; ')}`);
    const missing = referencedHashes(db).filter((hash) => !existsSync(blobPathUnder(join(dataDir, 'blobs'), hash)));
    if (missing.length > 0) throw new BackupError(`the backup lacks ${missing.length} blob(s) its database names (first: ${missing[0]})`);
  } finally {
    db.close();
  }
}

async function textOf(entry: TarEntry): Promise<string> {
  const parts: Uint8Array[] = [];
  for await (const chunk of entry.body()) parts.push(chunk);
  return Buffer.concat(parts).toString('utf8');
}

/** A backup folder as the same entries a tar holds: manifest, database, then every other file (anything unexpected is refused by the caller). */
async function* folderEntries(root: string): AsyncGenerator<TarEntry> {
  const fileEntry = (name: string): TarEntry => {
    const file = Bun.file(join(root, name));
    return { name, size: file.size, body: () => cappedChunks(file.stream(), file.size) };
  };
  if (!existsSync(join(root, MANIFEST)))
    throw new BackupError(`${root} is not an Easel backup folder (no ${MANIFEST}; an unfinished backup has none)`);
  yield fileEntry(MANIFEST);
  if (existsSync(join(root, DATABASE))) yield fileEntry(DATABASE);
  for (const path of walk(root)) {
    const name = relative(root, path).split(sep).join('/');
    if (name !== MANIFEST && name !== DATABASE) yield fileEntry(name);
  }
}

function* walk(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else yield path;
  }
}
