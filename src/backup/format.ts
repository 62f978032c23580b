// What a backup holds, whether a tar file or a folder (same names in both):
//   manifest.json          first in a tar: what follows, so a cut archive is noticed
//   easel.db               a consistent snapshot of the database (VACUUM INTO)
//   blobs/ab/cd/<sha256>   exactly the blobs the snapshot names
import { Database } from 'bun:sqlite';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const MANIFEST = 'manifest.json';
export const DATABASE = 'easel.db';
export const FORMAT = 'easel-backup';
export const FORMAT_VERSION = 1;

export interface Manifest {
  format: typeof FORMAT;
  formatVersion: number;
  easelVersion: string;
  schemaVersion: number;
  createdAt: string;
  database: { size: number; sha256: string };
  blobs: { count: number; bytes: number };
}

const BLOB_NAME = /^blobs\/([0-9a-f]{2})\/([0-9a-f]{2})\/([0-9a-f]{64})$/;

export const blobName = (hash: string) => `blobs/${hash.slice(0, 2)}/${hash.slice(2, 4)}/${hash}`;

/** The hash a `blobs/…` name stands for, or null when the name is not a well-formed blob path. */
export function hashOfBlobName(name: string): string | null {
  const m = BLOB_NAME.exec(name);
  return m && m[3]!.startsWith(m[1]! + m[2]!) ? m[3]! : null;
}

export class BackupError extends Error {}

/** Parses and checks a manifest; refuses anything that is not one of ours. */
export function parseManifest(text: string): Manifest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new BackupError('the backup manifest is not JSON: this is not an Easel backup, or it is damaged');
  }
  const m = raw as Partial<Manifest> | null;
  if (m === null || typeof m !== 'object' || m.format !== FORMAT)
    throw new BackupError('this is not an Easel backup (no easel-backup manifest)');
  if (m.formatVersion !== FORMAT_VERSION)
    throw new BackupError(
      `backup format ${String(m.formatVersion)} is not one this Easel reads (it reads ${FORMAT_VERSION}): use a newer release`,
    );
  const count = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
  if (
    !count(m.schemaVersion) ||
    !m.database ||
    !count(m.database.size) ||
    typeof m.database.sha256 !== 'string' ||
    !/^[0-9a-f]{64}$/.test(m.database.sha256) ||
    !m.blobs ||
    !count(m.blobs.count) ||
    !count(m.blobs.bytes)
  )
    throw new BackupError('the backup manifest is damaged (missing or malformed fields)');
  return m as Manifest;
}

/**
 * Every hash the database names, from the tables that keep blob hashes:
 * version files, runtime files, drafts and the blobs a staged upload has received
 * (a declared blob not yet sent is not in the store, and is not needed).
 */
export function referencedHashes(db: Database): string[] {
  const tables = new Set(
    db
      .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .all()
      .map((r) => r.name),
  );
  const parts: string[] = [];
  if (tables.has('version_files')) parts.push('SELECT hash FROM version_files');
  if (tables.has('files')) parts.push('SELECT hash FROM files');
  if (tables.has('upload_blobs')) parts.push('SELECT hash FROM upload_blobs WHERE staged = 1');
  if (tables.has('draft_files'))
    parts.push('SELECT hash FROM draft_files WHERE hash IS NOT NULL', 'SELECT base_hash FROM draft_files WHERE base_hash IS NOT NULL');
  if (parts.length === 0) return [];
  return db
    .query<{ hash: string }, []>(parts.join(' UNION ') + ' ORDER BY hash')
    .all()
    .map((r) => r.hash);
}

/** The schema of the database in a data directory, opened read-only (0 when there is none yet). */
export function schemaVersionAt(dataDir: string): number {
  const file = join(dataDir, DATABASE);
  if (!existsSync(file)) return 0;
  const db = new Database(file, { readonly: true });
  try {
    return schemaVersionOf(db);
  } finally {
    db.close();
  }
}

/** The newest migration recorded in a database (0 for an empty one). */
export function schemaVersionOf(db: Database): number {
  const row = db
    .query<{ n: number }, []>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
    .get();
  if (!row || row.n === 0) return 0;
  return db.query<{ v: number | null }, []>('SELECT max(version) AS v FROM schema_migrations').get()?.v ?? 0;
}
