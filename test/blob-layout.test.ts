// passes: embedded — the local blob folder's layout and its migration, on SQLite data directories of the test's own
// The blob store keeps `blobs/ab/<sha256>` (at most 256 folders, each made
// by its first blob), marked by `blobs/LAYOUT` (src/blobs/layout.ts). A data directory an
// older release wrote (`blobs/ab/cd/<sha256>`, no marker) is migrated when
// it opens, and finishes migrating after a crash half way; backups keep the
// two-level names either release restores, and readers of a data directory
// (backup, copy-data) find blobs in either layout.
import { afterAll, describe, expect, test } from 'bun:test';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBackup } from '../src/backup/create.ts';
import { restoreBackup } from '../src/backup/restore.ts';
import { readTar } from '../src/backup/tar.ts';
import { LAYOUT_MARKER } from '../src/blobs/layout.ts';
import type { BlobRemote } from '../src/blobs/remote.ts';
import { BlobStore } from '../src/blobs/store.ts';
import { copyBlobs, localBlobHashes } from '../src/copy/copy-blobs.ts';
import { createDeployCanvas, deploy, zipOf, type DeployCanvas } from './deploy-fixtures.ts';
import { startTestApp, type TestApp } from './harness.ts';

const work = mkdtempSync(join(tmpdir(), 'easel-blob-layout-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const sha256 = (bytes: Uint8Array | string) => new Bun.CryptoHasher('sha256').update(bytes).digest('hex');
const FOLDER = /^[0-9a-f]{2}$/;

/** Every folder under `root`, as paths relative to it. */
function foldersUnder(root: string): string[] {
  return (readdirSync(root, { recursive: true }) as string[]).filter((name) => statSync(join(root, name)).isDirectory()).sort();
}

/** A site of `n` files of distinct bytes (binary ones too), keyed by path. */
function siteOf(tag: string, n: number): Record<string, Uint8Array> {
  const files: Record<string, Uint8Array> = { 'index.html': new TextEncoder().encode(`<h1>${tag}</h1>`) };
  for (let i = 0; i < n; i++) {
    const bytes = new Uint8Array(500 + i * 37);
    for (let j = 0; j < bytes.length; j++) bytes[j] = (j * 7 + i * 31 + tag.length) & 0xff;
    files[`assets/${tag}-${i}.bin`] = bytes;
  }
  return files;
}

let sessions = 0;
/** A data directory with one canvas deployed by the real app: its folder, the canvas and the files served. */
async function deployedDataDir(tag: string, n = 40): Promise<{ dataDir: string; canvas: DeployCanvas; files: Record<string, Uint8Array> }> {
  const dataDir = join(work, tag);
  const app = await startTestApp({ dataDir });
  try {
    const canvas = await createDeployCanvas(app, `layout-${++sessions}@example.test`);
    const files = siteOf(tag, n);
    expect((await deploy(app, canvas, zipOf(files))).status).toBe(200);
    return { dataDir, canvas, files };
  } finally {
    await app.close();
  }
}

/** Moves a one-level store back to the layout older releases wrote: `ab/cd/<sha256>`, no marker, no empty `ab/` folders. */
function toLegacyLayout(root: string): string[] {
  const hashes: string[] = [];
  for (const a of readdirSync(root).filter((n) => FOLDER.test(n))) {
    for (const hash of readdirSync(join(root, a))) {
      mkdirSync(join(root, a, hash.slice(2, 4)), { recursive: true });
      renameSync(join(root, a, hash), join(root, a, hash.slice(2, 4), hash));
      hashes.push(hash);
    }
    if (readdirSync(join(root, a)).length === 0) rmdirSync(join(root, a));
  }
  rmSync(join(root, LAYOUT_MARKER));
  return hashes.sort();
}

/** Every folder two levels down (`ab/cd`): what the migration removes. */
function legacyFolders(root: string): string[] {
  return foldersUnder(root).filter((name) => /^[0-9a-f]{2}\/[0-9a-f]{2}$/.test(name));
}

async function expectServes(app: TestApp, canvas: DeployCanvas, files: Record<string, Uint8Array>): Promise<void> {
  for (const [path, bytes] of Object.entries(files)) {
    const page = await app.request(`/c/${canvas.slug}/${path}`, { cookie: canvas.ownerCookie });
    expect({ path, status: page.status }).toEqual({ path, status: 200 });
    expect(sha256(new Uint8Array(await page.arrayBuffer()))).toBe(sha256(bytes));
  }
}

describe('a fresh store', () => {
  test('has the marker and no folder yet; a deploy makes one folder per first two characters, none below, and writes ab/<sha256>', async () => {
    const app = await startTestApp();
    try {
      const root = join(app.dataDir, 'blobs');
      expect(readFileSync(join(root, LAYOUT_MARKER), 'utf8')).toBe('1\n');
      // Made, not moved: no migration line.
      expect(app.logs.some((l) => l.msg === 'blob store moved to the one-level layout')).toBe(false);
      expect(readdirSync(root).filter((n) => FOLDER.test(n))).toEqual([]);

      const canvas = await createDeployCanvas(app);
      const files = siteOf('fresh', 60);
      expect((await deploy(app, canvas, zipOf(files))).status).toBe(200);
      const prefixes = [...new Set(Object.values(files).map((bytes) => sha256(bytes).slice(0, 2)))].sort();
      expect(foldersUnder(root).filter((name) => name !== 'tmp')).toEqual(prefixes);
      for (const bytes of Object.values(files)) {
        const hash = sha256(bytes);
        expect(existsSync(join(root, hash.slice(0, 2), hash))).toBe(true);
      }
      await expectServes(app, canvas, files);
    } finally {
      await app.close();
    }
  });

  test('the first blob under its two characters makes their folder', async () => {
    const app = await startTestApp();
    try {
      const content = '<h1>its folder was removed</h1>';
      const hash = sha256(content);
      expect(existsSync(join(app.dataDir, 'blobs', hash.slice(0, 2)))).toBe(false);
      const canvas = await createDeployCanvas(app);
      expect((await deploy(app, canvas, zipOf({ 'index.html': content }))).status).toBe(200);
      expect(existsSync(join(app.dataDir, 'blobs', hash.slice(0, 2), hash))).toBe(true);
      const page = await app.request(`/c/${canvas.slug}/`, { cookie: canvas.ownerCookie });
      expect(await page.text()).toBe(content);
    } finally {
      await app.close();
    }
  });

  test('a store with the marker is not walked when it opens: a two-level blob left in it stays where it is', () => {
    const dataDir = join(work, 'marked');
    new BlobStore(dataDir);
    const hash = sha256('left behind');
    const stray = join(dataDir, 'blobs', hash.slice(0, 2), hash.slice(2, 4), hash);
    mkdirSync(join(stray, '..'), { recursive: true });
    writeFileSync(stray, 'left behind');
    const store = new BlobStore(dataDir);
    expect(store.layoutMigration).toBeNull();
    expect(existsSync(stray)).toBe(true);
    expect(store.has(hash)).toBe(false);
  });
});

describe('a data directory in the two-level layout', () => {
  test('is migrated when it opens: every file served byte for byte, the legacy folders gone, one log line', async () => {
    const { dataDir, canvas, files } = await deployedDataDir('legacy');
    const root = join(dataDir, 'blobs');
    const hashes = toLegacyLayout(root);
    expect(hashes.length).toBe(Object.keys(files).length);
    const folderCount = legacyFolders(root).length;
    expect(folderCount).toBeGreaterThan(0);

    const app = await startTestApp({ dataDir });
    try {
      const line = await app.nextLog((l) => l.msg === 'blob store moved to the one-level layout');
      expect(line).toMatchObject({ level: 'info', moved: hashes.length, legacyFolders: folderCount });
      expect(typeof line.ms).toBe('number');
      expect(legacyFolders(root)).toEqual([]);
      expect(readFileSync(join(root, LAYOUT_MARKER), 'utf8')).toBe('1\n');
      expect(foldersUnder(root).filter((name) => name !== 'tmp')).toEqual([...new Set(hashes.map((hash) => hash.slice(0, 2)))].sort());
      for (const hash of hashes) expect(existsSync(join(root, hash.slice(0, 2), hash))).toBe(true);
      await expectServes(app, canvas, files);
    } finally {
      await app.close();
    }
  });

  test('a migration cut short (some blobs moved, one in both places, no marker) finishes at the next open and loses nothing', async () => {
    const { dataDir, canvas, files } = await deployedDataDir('halfway');
    const root = join(dataDir, 'blobs');
    const hashes = toLegacyLayout(root);
    const legacyPath = (h: string) => join(root, h.slice(0, 2), h.slice(2, 4), h);
    const newPath = (h: string) => join(root, h.slice(0, 2), h);
    // The first third already moved (their legacy folders may remain, emptied), one blob renamed and then copied back (a copy in both places).
    const moved = hashes.slice(0, Math.floor(hashes.length / 3));
    for (const h of moved) renameSync(legacyPath(h), newPath(h));
    const both = hashes[hashes.length - 1]!;
    cpSync(legacyPath(both), newPath(both));

    const store = new BlobStore(dataDir);
    expect(store.layoutMigration).toMatchObject({ moved: hashes.length - moved.length - 1 });
    for (const h of hashes) {
      expect(existsSync(newPath(h))).toBe(true);
      expect(existsSync(legacyPath(h))).toBe(false);
    }
    expect([...store.hashes()].sort()).toEqual(hashes);
    expect(legacyFolders(root)).toEqual([]);

    const app = await startTestApp({ dataDir });
    try {
      await expectServes(app, canvas, files);
    } finally {
      await app.close();
    }
  });

  test('backs up whole before it is ever opened by this release, and copy-data reads it, half-migrated too, each blob once', async () => {
    const { dataDir, files } = await deployedDataDir('unopened', 10);
    const root = join(dataDir, 'blobs');
    const hashes = toLegacyLayout(root);
    // Half-migrated, with one blob in both places.
    const half = hashes.slice(0, 4);
    for (const h of half) renameSync(join(root, h.slice(0, 2), h.slice(2, 4), h), join(root, h.slice(0, 2), h));
    cpSync(join(root, half[0]!.slice(0, 2), half[0]!), join(root, half[0]!.slice(0, 2), half[0]!.slice(2, 4), half[0]!));

    const summary = await createBackup(dataDir, join(work, 'unopened.tar'));
    expect(summary.manifest.blobs.count).toBe(new Set(Object.values(files).map(sha256)).size);

    expect([...localBlobHashes(dataDir)].sort()).toEqual(hashes);
    const uploaded = new Map<string, string>();
    const remote = {
      location: 'memory',
      stat: async () => null,
      upload: async (hash: string, path: string) => void uploaded.set(hash, sha256(await Bun.file(path).bytes())),
    } as unknown as BlobRemote;
    expect(await copyBlobs(dataDir, remote)).toEqual({ uploaded: hashes.length, alreadyThere: 0 });
    expect([...uploaded.keys()].sort()).toEqual(hashes);
    for (const [hash, got] of uploaded) expect(got).toBe(hash);
  });
});

describe('backups keep the two-level names', () => {
  test('an archive names blobs/ab/cd/<sha256>; restored, it is a one-level store that serves', async () => {
    const { dataDir, canvas, files } = await deployedDataDir('archived', 12);
    const tar = join(work, 'archived.tar');
    await createBackup(dataDir, tar);
    const names: string[] = [];
    for await (const entry of readTar(Bun.file(tar).stream())) {
      names.push(entry.name);
      for await (const _ of entry.body()) void _;
    }
    const blobNames = names.filter((n) => n.startsWith('blobs/'));
    expect(blobNames.length).toBe(new Set(Object.values(files).map(sha256)).size);
    for (const name of blobNames) expect(name).toMatch(/^blobs\/([0-9a-f]{2})\/([0-9a-f]{2})\/\1\2[0-9a-f]{60}$/);

    const restored = join(work, 'archived-restored');
    await restoreBackup(tar, restored);
    const root = join(restored, 'blobs');
    expect(readFileSync(join(root, LAYOUT_MARKER), 'utf8')).toBe('1\n');
    expect(legacyFolders(root)).toEqual([]);
    for (const name of blobNames) {
      const hash = name.split('/')[3]!;
      expect(existsSync(join(root, hash.slice(0, 2), hash))).toBe(true);
    }
    const app = await startTestApp({ dataDir: restored });
    try {
      expect(app.logs.some((l) => l.msg === 'blob store moved to the one-level layout')).toBe(false);
      await expectServes(app, canvas, files);
    } finally {
      await app.close();
    }
  });
});
