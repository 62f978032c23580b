// `easel backup`: an online, consistent copy of a data directory while the
// server runs and takes writes. The database is snapshotted with VACUUM INTO
// (one read transaction: every table as of one instant); then exactly the
// blobs that snapshot names are copied, each checked against its hash, while
// the server's blob collector is paused so none of them can go away. The
// result only appears under its name once whole: a tar is written beside it
// and renamed, a folder gets its manifest last.
import { locateBlobUnder } from '../blobs/layout.ts';
import type { BlobRemote } from '../blobs/remote.ts';
import { remoteLocationOf } from '../blobs/store.ts';
import { Database } from 'bun:sqlite';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { holdBlobsForBackup } from '../blobs/backup-hold.ts';
import { VERSION } from '../context.ts';
import { SCHEMA_VERSION } from '../db/migrate.ts';
import { randomBase62 } from '../ids.ts';
import {
  BackupError,
  blobName,
  DATABASE,
  FORMAT,
  FORMAT_VERSION,
  MANIFEST,
  referencedHashes,
  schemaVersionOf,
  type Manifest,
} from './format.ts';
import { cappedChunks, writeCapped, type ByteSource } from '../streams/capped.ts';
import { TarWriter } from './tar.ts';

export interface BackupSummary {
  target: string;
  kind: 'tar' | 'folder';
  manifest: Manifest;
}

export interface BackupOptions {
  now?: () => number;
  /** The blob store's remote tier (EASEL_BLOB_URL): blobs the data directory holds no copy of are read from it. */
  remote?: BlobRemote | null;
  /** Told the blob count and bytes once known, then each blob copied (the CLI draws a bar). */
  progress?: (count: number, bytes: number) => { advance(bytes: number): void; finish(): void };
}

/** `target` ending in `.tar` makes one archive file; anything else a folder (new, or empty). */
export async function createBackup(dataDir: string, target: string, options: BackupOptions = {}): Promise<BackupSummary> {
  const dbPath = join(dataDir, DATABASE);
  if (!existsSync(dbPath)) throw new BackupError(`${dataDir} holds no Easel database (${DATABASE}): check EASEL_DATA_DIR or --data-dir`);
  const kind = target.toLowerCase().endsWith('.tar') ? 'tar' : 'folder';
  if (kind === 'tar' && existsSync(target))
    throw new BackupError(`${target} already exists: choose a new file name (backups never overwrite)`);
  if (kind === 'folder' && existsSync(target) && (!statSync(target).isDirectory() || readdirSync(target).length > 0))
    throw new BackupError(`${target} exists and is not an empty folder: choose a new one (backups never overwrite)`);

  const work = kind === 'tar' ? `${target}.partial-${randomBase62(8)}` : target;
  const createdFolder = kind === 'folder' && !existsSync(target);
  const snapshot = kind === 'tar' ? `${work}.db` : join(work, DATABASE);
  mkdirSync(kind === 'tar' ? dirname(target) : work, { recursive: true });
  const release = holdBlobsForBackup(dataDir);
  try {
    snapshotDatabase(dbPath, snapshot);
    const { hashes, schemaVersion } = readSnapshot(snapshot);
    if (schemaVersion > SCHEMA_VERSION)
      throw new BackupError(
        `the data directory was written by a newer Easel (schema ${schemaVersion}; this build knows ${SCHEMA_VERSION}): back it up with that release`,
      );
    const blobsRoot = join(dataDir, 'blobs');
    const sources = await blobSources(hashes, blobsRoot, options.remote ?? null);
    const missing = hashes.filter((hash) => !sources.has(hash));
    // A directory whose blobs live in a bucket keeps only a cache here: without the bucket's settings, say so, not "damaged".
    const inBucket = options.remote ? null : remoteLocationOf(dataDir);
    if (missing.length > 0 && inBucket !== null)
      throw new BackupError(
        `this data directory keeps its blobs in ${inBucket}, and ${missing.length} of them are not in its local cache: set EASEL_BLOB_URL (and the S3_* settings) as the server has them, and run the backup again`,
      );
    if (missing.length > 0)
      throw new BackupError(
        `${missing.length} blob(s) the database names are missing from ${options.remote?.location ?? blobsRoot} (first: ${missing[0]}): the data directory is damaged, so no backup was made`,
      );
    const blobBytes = hashes.reduce((sum, hash) => sum + sources.get(hash)!.size, 0);
    const dbFile = Bun.file(snapshot);
    const manifest: Manifest = {
      format: FORMAT,
      formatVersion: FORMAT_VERSION,
      easelVersion: VERSION,
      schemaVersion,
      createdAt: new Date((options.now ?? Date.now)()).toISOString(),
      database: { size: dbFile.size, sha256: await sha256Of(dbFile.stream()) },
      blobs: { count: hashes.length, bytes: blobBytes },
    };
    const progress = options.progress?.(hashes.length, blobBytes);
    const manifestBytes = new TextEncoder().encode(JSON.stringify(manifest, null, 2) + '\n');

    if (kind === 'tar') {
      const tar = new TarWriter(Bun.file(work).writer({ highWaterMark: 1 << 20 }));
      await tar.add(MANIFEST, manifestBytes.byteLength, manifestBytes);
      await tar.add(DATABASE, manifest.database.size, cappedChunks(dbFile.stream(), Infinity));
      for (const hash of hashes) {
        const source = sources.get(hash)!;
        await tar.add(blobName(hash), source.size, verified(await source.open(), hash));
        progress?.advance(source.size);
      }
      await tar.finish();
      fsyncFile(work);
      rmSync(snapshot, { force: true });
      renameSync(work, target);
    } else {
      for (const hash of hashes) {
        const out = join(work, blobName(hash));
        mkdirSync(dirname(out), { recursive: true });
        progress?.advance(await writeCapped(verified(await sources.get(hash)!.open(), hash), out, Infinity, { sync: true }));
      }
      fsyncFile(snapshot);
      // Last: a folder without its manifest is not a backup.
      await Bun.write(join(work, MANIFEST), manifestBytes);
      fsyncFile(join(work, MANIFEST));
    }
    progress?.finish();
    return { target, kind, manifest };
  } catch (err) {
    if (kind === 'tar') {
      rmSync(work, { force: true });
      rmSync(snapshot, { force: true });
    } else if (createdFolder) rmSync(work, { recursive: true, force: true });
    else for (const name of readdirSync(work)) rmSync(join(work, name), { recursive: true, force: true });
    throw err;
  } finally {
    release();
  }
}

interface BlobSource {
  size: number;
  open(): Promise<ReadableStream<Uint8Array>>;
}

/** Where each blob is read from: the data directory's copy, else the remote tier's; a hash stored nowhere has no entry. */
async function blobSources(hashes: string[], root: string, remote: BlobRemote | null): Promise<Map<string, BlobSource>> {
  const sources = new Map<string, BlobSource>();
  for (const hash of hashes) {
    // Either layout: the data directory may not have been opened by this release yet (src/blobs/layout.ts).
    const path = locateBlobUnder(root, hash);
    if (path !== null) {
      sources.set(hash, { size: statSync(path).size, open: async () => Bun.file(path).stream() });
      continue;
    }
    const stat = remote ? await remote.stat(hash) : null;
    if (!stat || !remote) continue;
    sources.set(hash, {
      size: stat.size,
      open: async () => {
        const body = await remote.open(hash);
        if (!body) throw new BackupError(`blob ${hash} went missing from ${remote.location} while the backup ran`);
        return body;
      },
    });
  }
  return sources;
}

function snapshotDatabase(live: string, out: string): void {
  const db = new Database(live, { readwrite: true, create: false });
  try {
    db.exec('PRAGMA busy_timeout = 10000');
    db.query('VACUUM INTO ?').run(out);
  } finally {
    db.close();
  }
}

function readSnapshot(path: string): { hashes: string[]; schemaVersion: number } {
  const db = new Database(path, { readonly: true });
  try {
    return { hashes: referencedHashes(db), schemaVersion: schemaVersionOf(db) };
  } finally {
    db.close();
  }
}

export async function sha256Of(stream: ReadableStream<Uint8Array>): Promise<string> {
  const hasher = new Bun.CryptoHasher('sha256');
  for await (const chunk of cappedChunks(stream, Infinity)) hasher.update(chunk);
  return hasher.digest('hex');
}

/** Passes bytes through and fails at the end when they do not hash to `hash` (a blob rotted on disk). */
export async function* verified(source: ByteSource, hash: string): AsyncGenerator<Uint8Array> {
  const hasher = new Bun.CryptoHasher('sha256');
  for await (const chunk of cappedChunks(source, Infinity)) {
    hasher.update(chunk);
    yield chunk;
  }
  const actual = hasher.digest('hex');
  if (actual !== hash) throw new BackupError(`blob ${hash} does not match its hash (the file holds ${actual}): the copy is damaged`);
}

/** A backup is trusted after a power cut too: its bytes are on disk before it is reported done. */
export function fsyncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
