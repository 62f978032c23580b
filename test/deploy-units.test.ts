// passes: embedded, s3, cluster
// Pure pieces of the deploy path: coordination validation, entry names,
// mime types, warnings, and the blob writer's durability paths.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeployBlobWriter, WRITE_WINDOW } from '../src/blobs/writer.ts';
import { canSyncFilesystem, syncFilesystemOffLoop } from '../src/blobs/durable.ts';
import { isServedAsText, mimeFor } from '../src/deploy/mime.ts';
import { validateCoordination } from '../src/deploy/publish.ts';
import { deployWarnings } from '../src/deploy/warnings.ts';
import { deployTmpDir } from '../src/deploy/zip/deploy.ts';
import { entryName } from '../src/deploy/zip/paths.ts';
import type { ZipEntry } from '../src/deploy/zip/reader.ts';
import { AppError } from '../src/errors.ts';
import { startTestApp, type TestApp } from './harness.ts';

const codeOf = (fn: () => unknown): string | null => {
  try {
    fn();
    return null;
  } catch (err) {
    return err instanceof AppError ? err.errorCode : String(err);
  }
};

describe('validateCoordination', () => {
  test('absent fields are null (preview false); strings pass through verbatim', () => {
    expect(validateCoordination({})).toEqual({ releaseId: null, expectedPublicationToken: null, preview: false });
    expect(validateCoordination({ releaseId: null, expectedPublicationToken: null })).toEqual({
      releaseId: null,
      expectedPublicationToken: null,
      preview: false,
    });
    expect(validateCoordination({ releaseId: ' v1 ', expectedPublicationToken: 'tok', preview: true })).toEqual({
      releaseId: ' v1 ',
      expectedPublicationToken: 'tok',
      preview: true,
    });
  });
  test('a field that is not a string is INVALID_REQUEST', () => {
    for (const bad of [1, true, {}, ['a']]) {
      expect(codeOf(() => validateCoordination({ releaseId: bad }))).toBe('INVALID_REQUEST');
      expect(codeOf(() => validateCoordination({ expectedPublicationToken: bad }))).toBe('INVALID_REQUEST');
    }
  });
  test('releaseId: 1 to 200 characters, no control characters, no lone surrogate', () => {
    expect(codeOf(() => validateCoordination({ releaseId: '' }))).toBe('INVALID_RELEASE_ID');
    expect(codeOf(() => validateCoordination({ releaseId: 'a'.repeat(201) }))).toBe('INVALID_RELEASE_ID');
    expect(codeOf(() => validateCoordination({ releaseId: 'a\u007f' }))).toBe('INVALID_RELEASE_ID');
    expect(codeOf(() => validateCoordination({ releaseId: 'a\udc00' }))).toBe('INVALID_RELEASE_ID');
    expect(codeOf(() => validateCoordination({ releaseId: '\ud83d\ude80' }))).toBeNull();
    expect(codeOf(() => validateCoordination({ releaseId: 'a'.repeat(200) }))).toBeNull();
  });
});

describe('entry names', () => {
  const entry = (name: string, extra: Partial<ZipEntry> = {}): ZipEntry => ({
    nameBytes: new TextEncoder().encode(name),
    utf8: true,
    flags: 0x800,
    method: 8,
    crc32: 0,
    compressedSize: 1,
    uncompressedSize: 1,
    localOffset: 0,
    madeByHost: 3,
    externalAttrs: (0o100644 << 16) >>> 0,
    ...extra,
  });
  test('normal paths, "./" and empty segments', () => {
    expect(entryName(entry('index.html'))).toEqual({ kind: 'file', path: 'index.html' });
    expect(entryName(entry('./a/./b//c.js'))).toEqual({ kind: 'file', path: 'a/b/c.js' });
  });
  test('dropped: directories, dotfiles, dot-directories, symlinks', () => {
    expect(entryName(entry('a/'))).toMatchObject({ kind: 'skip', why: 'directory' });
    expect(entryName(entry('a', { externalAttrs: (0o040755 << 16) >>> 0 }))).toMatchObject({ kind: 'skip', why: 'directory' });
    expect(entryName(entry('D', { madeByHost: 0, externalAttrs: 0x10, uncompressedSize: 0 }))).toMatchObject({
      kind: 'skip',
      why: 'directory',
    });
    expect(entryName(entry('.htaccess'))).toMatchObject({ kind: 'skip', why: 'dotfile' });
    expect(entryName(entry('.well-known/x'))).toMatchObject({ kind: 'skip', why: 'dotfile' });
    expect(entryName(entry('l', { externalAttrs: (0o120777 << 16) >>> 0 }))).toMatchObject({ kind: 'skip', why: 'symlink' });
  });
  test('refused names', () => {
    expect(codeOf(() => entryName(entry('a\\b')))).toBe('INVALID_ZIP');
    expect(codeOf(() => entryName(entry('..')))).toBe('ZIP_SLIP_REJECTED');
    expect(codeOf(() => entryName(entry('/a')))).toBe('ZIP_SLIP_REJECTED');
    expect(codeOf(() => entryName(entry('c:/a')))).toBe('ZIP_SLIP_REJECTED');
    expect(codeOf(() => entryName(entry('a'.repeat(1025))))).toBe('INVALID_ZIP');
    expect(codeOf(() => entryName({ ...entry(''), nameBytes: new Uint8Array([0xff, 0xfe]) }))).toBe('INVALID_ZIP');
  });
  test('legacy (unflagged, not UTF-8) names are read as code page 437, as APPNOTE, Windows, 7-Zip and Python read them', () => {
    const legacy = (...bytes: number[]) => entryName({ ...entry(''), utf8: false, flags: 0, nameBytes: new Uint8Array(bytes) });
    // "café.js" as Windows' zipped folders write it (é is 0x82 there; 0x82 is a C1 control in Latin-1).
    expect(legacy(0x63, 0x61, 0x66, 0x82, 0x2e, 0x6a, 0x73)).toEqual({ kind: 'file', path: 'café.js' });
    expect(legacy(0x80, 0x81, 0x84, 0x8e, 0x94, 0x99, 0x9a, 0xa4, 0xe1, 0x2e, 0x74)).toEqual({ kind: 'file', path: 'ÇüäÄöÖÜñß.t' });
    // 0xE9 is Θ in code page 437 (Python's zipfile reads it so), not Latin-1's é.
    expect(legacy(0x63, 0x61, 0x66, 0xe9)).toEqual({ kind: 'file', path: 'cafΘ' });
    // A Unicode Path field's name wins over the legacy bytes; an undecodable one is refused.
    expect(entryName({ ...entry('resume.txt'), flags: 0, utf8: false, unicodePath: new TextEncoder().encode('résumé.txt') })).toEqual({
      kind: 'file',
      path: 'résumé.txt',
    });
    expect(codeOf(() => entryName({ ...entry('x'), unicodePath: new Uint8Array([0xff]) }))).toBe('INVALID_ZIP');
  });
});

describe('mime table', () => {
  test('common types, case-insensitive extensions, charset on text', () => {
    expect(mimeFor('index.html')).toBe('text/html; charset=utf-8');
    expect(mimeFor('A/B.HTM')).toBe('text/html; charset=utf-8');
    expect(mimeFor('x.webmanifest')).toBe('application/manifest+json; charset=utf-8');
    expect(mimeFor('x.yml')).toBe('application/yaml; charset=utf-8');
    expect(mimeFor('x.glb')).toBe('model/gltf-binary');
    expect(mimeFor('x.mp4')).toBe('video/mp4');
    expect(mimeFor('x.avif')).toBe('image/avif');
    expect(mimeFor('x.zip')).toBe('application/zip');
  });
  test('unknown, missing and server-side script extensions are text/plain', () => {
    for (const p of ['LICENSE', 'a.qqq', 'a.php', 'a.PHP', 'cgi/a.cgi', 'a.rb', 'a.constructor', 'a.toString', 'dir.v2/README']) {
      expect(mimeFor(p)).toBe('text/plain; charset=utf-8');
      expect(isServedAsText(p)).toBe(true);
    }
    expect(isServedAsText('a.txt')).toBe(false);
    expect(isServedAsText('a.css')).toBe(false);
  });

  test("mime-db through mime-types, with Easel's overrides and a UTF-8 charset on every text type", () => {
    expect(mimeFor('app.js')).toBe('text/javascript; charset=utf-8');
    expect(mimeFor('lib/x.cjs')).toBe('text/javascript; charset=utf-8'); // mime-db: application/node
    expect(mimeFor('conf.yaml')).toBe('application/yaml; charset=utf-8');
    expect(mimeFor('favicon.ico')).toBe('image/x-icon');
    expect(mimeFor('logo.svg')).toBe('image/svg+xml; charset=utf-8');
    expect(mimeFor('site.webmanifest')).toBe('application/manifest+json; charset=utf-8');
    expect(mimeFor('report.docx')).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect(mimeFor('photo.JPG')).toBe('image/jpeg');
    // Known to mime-db though not to the old table: served under their type, no warning.
    expect(mimeFor('doc.rtf')).toBe('application/rtf');
    expect(mimeFor('map.kml')).toBe('application/vnd.google-earth.kml+xml; charset=utf-8');
    expect(isServedAsText('song.mp3')).toBe(false);
  });
});

describe('deployWarnings', () => {
  test('sorted downgrades, then key lint, then the missing index', () => {
    expect(deployWarnings([{ path: 'z' }, { path: 'b.php' }, { path: 'a.js' }], { keyLintPaths: ['a.js', 'a.js'] })).toEqual([
      'b.php will be served as text/plain',
      'z will be served as text/plain',
      'a.js may contain a canvas API key',
      'no index.html: the canvas root will answer 404',
    ]);
    expect(deployWarnings([{ path: 'index.html' }], { keyLintPaths: [] })).toEqual([]);
    expect(deployWarnings([{ path: 'only.htm' }], { keyLintPaths: [] })).toEqual([]);
  });
});

describe('blob writer', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  for (const perFile of [false, true]) {
    test(`${perFile ? 'file-by-file fdatasync' : 'syncfs'}: blobs land only at commit, a discard removes what it created`, async () => {
      const dir = deployTmpDir(app.ctx);
      const existing = await app.ctx.blobs.putBytes(new TextEncoder().encode(`existing ${perFile}`));
      const writer = new DeployBlobWriter(app.ctx, dir, { perFile });
      const a = await writer.write(new TextEncoder().encode(`a ${perFile}`));
      const again = await writer.write(new TextEncoder().encode(`a ${perFile}`));
      const b = await writer.write(new TextEncoder().encode(`existing ${perFile}`));
      expect(again).toBe(a);
      expect(b).toBe(existing.hash);
      expect(app.ctx.blobs.has(a)).toBe(false);
      await writer.commit();
      expect(readFileSync(app.ctx.blobs.pathOf(a), 'utf8')).toBe(`a ${perFile}`);
      expect(readdirSync(dir).filter((n) => n.startsWith('blob-'))).toEqual([]);
      await writer.discard();
      expect(app.ctx.blobs.has(a)).toBe(false);
      expect(app.ctx.blobs.has(existing.hash)).toBe(true);
    });
  }

  test('writes run off the event loop a window at a time; commit waits for every one before it syncs and renames', async () => {
    const writer = new DeployBlobWriter(app.ctx, deployTmpDir(app.ctx));
    const blobs = Array.from({ length: 3 * WRITE_WINDOW.files }, (_, i) => new Uint8Array(64 * 1024).fill(i + 1));
    const hashes: string[] = [];
    let most = 0;
    // Awaiting only microtasks: no write can finish unless write() itself waits for one (the window is full).
    for (const bytes of blobs) {
      hashes.push(await writer.write(bytes));
      most = Math.max(most, writer.inFlight.files);
    }
    expect(most).toBe(WRITE_WINDOW.files);
    // Bytes bound the window too: two files over half the window never run together.
    const half = WRITE_WINDOW.bytes / 2 + 1;
    await writer.settled();
    for (let i = 0; i < 3; i++) {
      hashes.push(await writer.write(new Uint8Array(half).fill(100 + i)));
      expect(writer.inFlight).toEqual({ files: 1, bytes: half });
    }
    await writer.commit();
    expect(writer.inFlight.files).toBe(0);
    for (const [i, bytes] of blobs.entries()) expect(readFileSync(app.ctx.blobs.pathOf(hashes[i]!)).equals(bytes)).toBe(true);
    expect(readFileSync(app.ctx.blobs.pathOf(hashes.at(-1)!)).byteLength).toBe(half);
    await writer.discard();
  });

  test('lent bytes (a scratch buffer the caller reuses): a small one is copied, a large one is on disk before write returns', async () => {
    const writer = new DeployBlobWriter(app.ctx, deployTmpDir(app.ctx));
    const small = Buffer.alloc(1000, 'a');
    const smallHash = await writer.write(small, { lent: true });
    small.fill('b');
    const large = Buffer.alloc(2 * 1024 * 1024, 'c');
    const largeHash = await writer.write(large, { lent: true });
    expect(writer.inFlight.bytes).toBeLessThanOrEqual(small.byteLength);
    large.fill('d');
    await writer.commit();
    expect(readFileSync(app.ctx.blobs.pathOf(smallHash), 'utf8')).toBe('a'.repeat(1000));
    expect(readFileSync(app.ctx.blobs.pathOf(largeHash)).every((b) => b === 'c'.charCodeAt(0))).toBe(true);
    await writer.discard();
  });

  test('a write that fails on the thread pool fails the next write and the commit; nothing reaches the store', async () => {
    // A staging folder that does not exist: the write fails after write() has answered.
    const writer = new DeployBlobWriter(app.ctx, join(deployTmpDir(app.ctx), 'missing'));
    const lost = await writer.write(new TextEncoder().encode('never written'));
    await expect(writer.settled()).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(writer.write(new TextEncoder().encode('after the failure'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(writer.commit()).rejects.toMatchObject({ code: 'ENOENT' });
    await writer.discard();
    expect(app.ctx.blobs.has(lost)).toBe(false);
    expect(existsSync(join(deployTmpDir(app.ctx), 'missing'))).toBe(false);
  });

  test('a blob another deploy holds is not removed by a discard', async () => {
    const writer = new DeployBlobWriter(app.ctx, deployTmpDir(app.ctx));
    const hash = await writer.write(new TextEncoder().encode('contested'));
    await writer.commit();
    const other = app.ctx.blobGc.hold();
    other.add(hash);
    await writer.discard();
    expect(app.ctx.blobs.has(hash)).toBe(true);
    other.release();
  });

  test('keepOnly drops staged blobs a later check did not use; they never reach the store', async () => {
    const writer = new DeployBlobWriter(app.ctx, deployTmpDir(app.ctx));
    const kept = await writer.write(new TextEncoder().encode('kept by the plan'));
    const dropped = await writer.write(new TextEncoder().encode('extracted ahead, then not used'));
    await writer.keepOnly(new Set([kept]));
    await writer.commit();
    writer.release();
    expect(app.ctx.blobs.has(kept)).toBe(true);
    expect(app.ctx.blobs.has(dropped)).toBe(false);
    expect(readdirSync(deployTmpDir(app.ctx)).filter((n) => n.startsWith('blob-'))).toEqual([]);
  });

  test('a whole-store sweep past the grace period never takes a blob an unfinished deploy holds', async () => {
    let clock = Date.now();
    const timed = await startTestApp({ now: () => clock });
    try {
      const bytes = new TextEncoder().encode('held through a sweep');
      const stored = await timed.ctx.blobs.putBytes(bytes);
      const old = new Date(Date.now() - 24 * 3600 * 1000);
      utimesSync(timed.ctx.blobs.pathOf(stored.hash), old, old);
      const writer = new DeployBlobWriter(timed.ctx, deployTmpDir(timed.ctx));
      expect(await writer.write(bytes)).toBe(stored.hash);
      // Re-use refreshed its age, but the hold alone must be enough: sweep as if hours had passed.
      clock += 3 * 3600 * 1000;
      await timed.ctx.blobGc.sweep();
      expect(timed.ctx.blobs.has(stored.hash)).toBe(true);
      writer.release();
      await timed.ctx.blobGc.sweep();
      expect(timed.ctx.blobs.has(stored.hash)).toBe(false);
    } finally {
      await timed.close();
    }
  });

  test('syncfs is available on this Linux host', () => {
    if (process.platform === 'linux') expect(canSyncFilesystem()).toBe(true);
  });

  test("a deploy's flush leaves the event loop free: a tick queued after it starts runs before it answers", async () => {
    if (process.platform !== 'linux') return;
    const dir = mkdtempSync(join(tmpdir(), 'easel-syncfs-'));
    try {
      // Something to flush: a syncfs on the loop (the old way) would answer before the loop turns.
      writeFileSync(join(dir, 'dirty'), new Uint8Array(4 * 1024 * 1024).fill(7));
      const order: string[] = [];
      const flushed = syncFilesystemOffLoop(dir).then((ok) => order.push(`flushed ${ok}`));
      setImmediate(() => order.push('tick'));
      await flushed;
      expect(order).toEqual(['tick', 'flushed true']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
