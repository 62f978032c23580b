// PUT deploy (spec "PUT deploy rules"): the body is read under the 110 MB cap
// (entries extracted as they arrive, the rest spooled to disk: zip/follow.ts),
// the archive's central directory is checked against every rule before an
// entry is kept, then each entry not yet extracted is inflated under the 25 MB cap
// (node:zlib with maxOutputLength, BUN-NOTES "ZIP"), verified (size, CRC) and
// written to the blob store; the manifest is published with source `api`.
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import type { Canvas } from '../../canvases/record.ts';
import type { ActorKind } from '../../audit/store.ts';
import type { AppContext } from '../../context.ts';
import type { Core } from '../../foundation.ts';
import { AppError, overCap } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { cappedChunks, type ByteSource } from '../../streams/capped.ts';
import { DeployBlobWriter } from '../../blobs/writer.ts';
import { textMentionsKey } from '../key-scan.ts';
import { mimeFor } from '../mime.ts';
import { checkCoordination, deployFinished, publishVersion, type Coordination, type DeployResult, type ManifestFile } from '../publish.ts';
import { deployWarnings, readRootPage } from '../warnings.ts';
import { canvasUrl } from '../../canvases/url.ts';
import { entryName } from './paths.ts';
import type { DeploySlots } from './slots.ts';
import { ZipFollower } from './follow.ts';
import { METHOD_DEFLATE, METHOD_STORED, ZipEntryLimitError, ZipFile, ZipFormatError, type ZipEntry } from './reader.ts';

const MiB = 1024 * 1024;
/** Deploy API limits (spec Limits; binary units per CONTRACT §9). */
/** What a deploy with no body at all is told (zip/request.ts adds how to send one). */
export const EMPTY_BODY = 'the request body is empty: send a ZIP archive';

export const ZIP_LIMITS = {
  bodyBytes: 110 * MiB,
  canvasBytes: 100 * MiB,
  fileBytes: 25 * MiB,
  files: 2000,
  /**
   * Central-directory records, directories and dotfiles (which are dropped)
   * included: an archive of millions of empty directory entries is refused
   * from its end record instead of being walked.
   */
  entries: 20_000,
} as const;
/** Deflate never grows data by more than a few bytes per 16 KB block; more stored bytes than this cannot be a 25 MB file. */
const MAX_COMPRESSED = ZIP_LIMITS.fileBytes + MiB;
/** Let other requests run between entries once this much was inflated. */
const YIELD_EVERY_BYTES = 8 * MiB;

export const tooLargeBody = () => overCap('CANVAS_TOO_LARGE', 'the request body is over 110 MB');

/** What a ZIP deploy uses: the spool directory, the blobs and their collector, the publishing transaction, the log. */
export type ZipDeployDeps = Pick<Core, 'config' | 'sql' | 'blobs' | 'blobGc' | 'log' | 'now' | 'events' | 'audit' | 'settings'>;

/** Where PUT deploy spools bodies and stages blobs; emptied at startup (a crash may leave partial files). */
export function deployTmpDir(ctx: Pick<AppContext, 'config'>): string {
  return join(ctx.config.dataDir, 'tmp', 'deploy');
}

export function resetDeployTmp(ctx: Pick<AppContext, 'config'>): void {
  const dir = deployTmpDir(ctx);
  mkdirSync(dir, { recursive: true });
  for (const name of readdirSync(dir)) rmSync(join(dir, name), { force: true, recursive: true });
}

interface PlannedFile {
  entry: ZipEntry;
  path: string;
  mime: string;
}

/** Deploys the ZIP in `body` (a request body, or authoring's bundle part) to the canvas (key and rate already checked). */
export async function deployZip(
  ctx: ZipDeployDeps,
  /** ZIP deploys reading their body at once: the deploy feature's. */
  slots: DeploySlots,
  canvas: Canvas,
  body: ByteSource | null,
  coordination: Coordination,
  /** Who the audit names (a person deploying with a session or token); the owner, for the canvas key. */
  actor?: { id: string; kind: ActorKind },
): Promise<DeployResult> {
  const started = performance.now();
  // Decision order first: a live release or a stale token needs no upload.
  const early = await checkCoordination(ctx, canvas, coordination);
  if (early) {
    if (body instanceof ReadableStream) await body.cancel().catch(() => {});
    deployFinished(ctx, 'api', early, started);
    return early;
  }
  // Memory stays bounded however many deploys arrive: past the limit, the body waits unread.
  const release = await slots.acquire();
  try {
    return await deployZipBody(ctx, canvas, body, coordination, actor, started);
  } finally {
    release();
  }
}

async function deployZipBody(
  ctx: ZipDeployDeps,
  canvas: Canvas,
  body: ByteSource | null,
  coordination: Coordination,
  actor: { id: string; kind: ActorKind } | undefined,
  started: number,
): Promise<DeployResult> {
  // A nearly full disk refuses before the spool takes a byte.
  ctx.blobs.ensureRoom();
  const dir = deployTmpDir(ctx);
  mkdirSync(dir, { recursive: true });
  const spoolPath = join(dir, `body-${newId()}.zip`);
  const writer = new DeployBlobWriter(ctx, dir);
  // Entries are extracted while the rest of the body is still arriving; the checks below decide what is kept.
  const follower = new ZipFollower(
    spoolPath,
    writer,
    { fileBytes: ZIP_LIMITS.fileBytes, compressedBytes: MAX_COMPRESSED, canvasBytes: ZIP_LIMITS.canvasBytes, files: ZIP_LIMITS.files },
    inflateCapped,
  );
  let zip: ZipFile | null = null;
  try {
    let size = 0;
    for await (const chunk of cappedChunks(body, ZIP_LIMITS.bodyBytes, { tooLarge: tooLargeBody })) {
      size += chunk.byteLength;
      await follower.push(chunk);
    }
    const extractedUpTo = follower.finish();
    if (size === 0) throw new AppError('EMPTY_DEPLOY', EMPTY_BODY);
    zip = new ZipFile(spoolPath, extractedUpTo);
    const spooled = performance.now();
    const planned = plan(zip.entries(ZIP_LIMITS.entries));
    const { files, keyLintPaths, followed } = await extract(zip, planned, writer, follower);
    // The spool goes first: its dirty pages must not ride along in the flush.
    zip.close();
    zip = null;
    rmSync(spoolPath, { force: true });
    await writer.keepOnly(new Set(files.map((f) => f.hash)));
    const inflated = performance.now();
    await writer.commit();
    const extracted = performance.now();
    const rootPage = await readRootPage(files, ctx.blobs);
    const result = await publishVersion(ctx, canvas.id, files, {
      ...coordination,
      source: 'api',
      warnings: deployWarnings(files, { keyLintPaths, rootPage, canvasUrl: canvasUrl(ctx.config, canvas.slug) }),
      actor,
    });
    // A release that went live meanwhile makes this upload redundant: its new blobs go again.
    if (result.outcome !== 'already_current') await writer.release();
    else await writer.discard();
    ctx.log.info('zip deployed', {
      canvasId: canvas.id,
      outcome: result.outcome,
      bodyBytes: size,
      files: files.length,
      extractedWhileReceiving: followed,
      // Bytes written to the spool: what was not extracted while arriving (the central directory, at least).
      spooledBytes: size - extractedUpTo,
      receiveMs: Math.round(spooled - started),
      extractMs: Math.round(inflated - spooled),
      syncMs: Math.round(extracted - inflated),
      publishMs: Math.round(performance.now() - extracted),
    });
    if (keyLintPaths.length > 0)
      ctx.log.warn('deploy lint: files may contain a canvas API key', { canvasId: canvas.id, paths: keyLintPaths });
    deployFinished(ctx, 'api', result, started);
    return result;
  } catch (err) {
    await writer.discard();
    if (err instanceof ZipFormatError) throw new AppError('INVALID_ZIP', `unreadable ZIP archive: ${err.message}`);
    if (err instanceof ZipEntryLimitError) {
      throw new AppError('TOO_MANY_FILES', `the archive holds ${err.count} entries; at most ${err.max} are read (directories included)`);
    }
    throw err;
  } finally {
    follower.close();
    zip?.close();
    rmSync(spoolPath, { force: true });
  }
}

/** Every rule that the central directory alone can decide, before any inflating. */
function plan(entries: Iterable<ZipEntry>): PlannedFile[] {
  const files: PlannedFile[] = [];
  const seen = new Set<string>();
  let declaredTotal = 0;
  for (const entry of entries) {
    const name = entryName(entry);
    if (name.kind === 'skip') continue;
    const { path } = name;
    if ((entry.flags & 0x1) !== 0) throw new AppError('INVALID_ZIP', 'encrypted entries are not supported', { path });
    if (entry.method !== METHOD_STORED && entry.method !== METHOD_DEFLATE) {
      throw new AppError('INVALID_ZIP', `unsupported compression method ${entry.method} (use deflate or store)`, { path });
    }
    if (entry.uncompressedSize > ZIP_LIMITS.fileBytes || entry.compressedSize > MAX_COMPRESSED) throw bomb(path);
    if (seen.has(path)) throw new AppError('INVALID_ZIP', 'the archive holds two entries with this path', { path });
    seen.add(path);
    files.push({ entry, path, mime: mimeFor(path) });
    if (files.length > ZIP_LIMITS.files) throw new AppError('TOO_MANY_FILES', `a canvas holds at most ${ZIP_LIMITS.files} files`);
    declaredTotal += entry.uncompressedSize;
    if (declaredTotal > ZIP_LIMITS.canvasBytes) throw tooLargeTotal();
  }
  if (files.length === 0)
    throw new AppError('EMPTY_DEPLOY', 'the archive holds no deployable files (directories and dotfiles are dropped)');
  return files;
}

/**
 * Stores each planned file, in archive order: taken from the follower when it
 * extracted exactly this entry already, else inflated and verified here
 * (sequential reads of the spool). Answers how many came from the follower.
 */
async function extract(
  zip: ZipFile,
  planned: PlannedFile[],
  writer: DeployBlobWriter,
  follower: ZipFollower,
): Promise<{ files: ManifestFile[]; keyLintPaths: string[]; followed: number }> {
  const ordered = [...planned].sort((a, b) => a.entry.localOffset - b.entry.localOffset);
  const files: ManifestFile[] = [];
  const keyLintPaths: string[] = [];
  let previousEnd = 0;
  let sinceYield = 0;
  let total = 0;
  let followed = 0;
  for (const { entry, path, mime } of ordered) {
    const ahead = follower.take(entry, path);
    // Bytes extracted while arriving are not kept: a record there that is not exactly what was extracted cannot be read.
    if (!ahead && zip.extractedEarly(entry))
      throw new AppError('INVALID_ZIP', "the table of contents disagrees with the entry's local header (name, method, CRC or sizes)", {
        path,
      });
    const range = ahead ? zip.followedRange(entry, ahead.dataStart) : zip.localRange(entry);
    // Entries sharing bytes are how the worst bombs multiply; no real archive does it.
    if (range.start < previousEnd) throw new AppError('INVALID_ZIP', 'entries overlap', { path });
    previousEnd = range.end;
    let hash: string;
    let size: number;
    if (ahead) {
      followed++;
      hash = ahead.hash;
      size = ahead.uncompressedSize;
      if (ahead.keyLint) keyLintPaths.push(path);
    } else {
      const raw = zip.rawData(entry);
      const bytes = inflate(entry, raw.data, path);
      if (bytes.byteLength !== entry.uncompressedSize)
        throw new AppError('INVALID_ZIP', 'entry size differs from its header (corrupt or truncated archive)', { path });
      if (Bun.hash.crc32(bytes) !== entry.crc32) throw new AppError('INVALID_ZIP', 'entry CRC mismatch (corrupt archive)', { path });
      // Stored bytes are the reader's scratch buffer, which the next entry reuses.
      hash = await writer.write(bytes, { lent: bytes === raw.data });
      size = bytes.byteLength;
      if (textMentionsKey(bytes, mime)) keyLintPaths.push(path);
      sinceYield += bytes.byteLength + raw.data.byteLength;
    }
    total += size;
    if (total > ZIP_LIMITS.canvasBytes) throw tooLargeTotal();
    files.push({ path, hash, size, mime });
    if (sinceYield >= YIELD_EVERY_BYTES) {
      sinceYield = 0;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  return { files, keyLintPaths, followed };
}

function inflate(entry: ZipEntry, data: Buffer, path: string): Uint8Array {
  if (entry.method === METHOD_STORED) {
    if (data.byteLength > ZIP_LIMITS.fileBytes) throw bomb(path);
    return data;
  }
  try {
    return inflateCapped(data, ZIP_LIMITS.fileBytes, entry.uncompressedSize);
  } catch (err) {
    if (err instanceof RangeError || (err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw bomb(path);
    throw new AppError('INVALID_ZIP', 'entry data is not valid deflate (corrupt archive)', { path });
  }
}

/**
 * Raw inflate that stops past `maxBytes` (maxOutputLength doubles as the bomb
 * cap: a RangeError). Its output buffer is the size the entry declares, plus
 * one byte (so a true entry fills it without a second, empty pass): one
 * allocation and no copy, where zlib's 16 KB default made four chunks and a
 * concat per 50 KB entry, ~3× the CPU of a deploy's inflating. An entry that
 * lies about its size still inflates (in more chunks), up to the cap, and is
 * then refused for the size it does not have.
 */
function inflateCapped(data: Uint8Array, maxBytes: number, declaredBytes: number): Uint8Array {
  const chunkSize = Math.min(Math.max(declaredBytes + 1, MIN_INFLATE_CHUNK), maxBytes + 1);
  return inflateRawSync(data, { maxOutputLength: maxBytes, chunkSize });
}

/** zlib's smallest output chunk. */
const MIN_INFLATE_CHUNK = 64;

const bomb = (path: string) => new AppError('ZIP_BOMB_REJECTED', 'an entry declares or inflates to more than 25 MB', { path });
const tooLargeTotal = () => new AppError('CANVAS_TOO_LARGE', 'the files inflate to more than 100 MB in total');
