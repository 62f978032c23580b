// The staged upload (spec "Staged upload session"): begin records a manifest
// and answers the hashes the canvas still lacks, stage streams one blob in,
// finalize publishes the manifest as a version (source `upload`). Plain
// arguments in, plain data out; callers authenticate and rate-limit.
import type { ActorKind } from '../../audit/store.ts';
import { BlobHashMismatchError, BlobLimitError } from '../../blobs/store.ts';
import type { Canvas } from '../../canvases/record.ts';
import type { Core } from '../../foundation.ts';
import { tx } from '../../db/sql.ts';
import { NODE_TTL_MS } from '../../cluster/node-registry.ts';
import { AppError, overCap } from '../../errors.ts';
import { newToken } from '../../ids.ts';
import { blobMentionsKey, KeyScanner } from '../key-scan.ts';
import { isTextType } from '../mime.ts';
import {
  afterPublish,
  checkCoordination,
  coordinationSteps,
  deployFinished,
  publishSteps,
  validateCoordination,
  type Coordination,
  type DeployResult,
} from '../publish.ts';
import { normalizeManifest, UPLOAD_LIMITS } from './manifest.ts';
import { uploadRows, UploadStore, type UploadSession } from './store.ts';
import { deployWarnings, readRootPage } from '../warnings.ts';
import { canvasUrl } from '../../canvases/url.ts';

/** Spec Limits: a handle lives 15 minutes from begin; a finalize holds its lease 60 seconds. */
export const UPLOAD_TTL_MS = 15 * 60 * 1000;
export const FINALIZE_LEASE_MS = 60 * 1000;
/** Consumed or expired sessions are kept this long (so a late retry still hears the precise code), then deleted. */
export const UPLOAD_RETENTION_MS = 60 * 60 * 1000;
const SWEEP_EVERY_MS = 60 * 1000;
const HASH = /^[0-9a-f]{64}$/;
/** Blobs finalize checks on disk before letting other requests run. */
const BLOB_CHECKS_PER_TURN = 500;

export interface BeginInput {
  manifest?: unknown;
  releaseId?: unknown;
  expectedPublicationToken?: unknown;
  /** Only shapes begin's early answer (a kept release is its preview); finalize decides. */
  preview?: unknown;
}

export type BeginResult =
  { kind: 'session'; uploadId: string; missingHashes: string[] } | { kind: 'already_current'; result: DeployResult };

export interface FinalizeInput {
  releaseId?: unknown;
  expectedPublicationToken?: unknown;
  preview?: unknown;
}

/** How the publish is audited: key-based writes (the default) act as the owner with kind `key`. */
export interface FinalizeOptions {
  auditKind?: ActorKind;
}

/** Thrown from inside the blob stream when the byte count misses the declared size. */
class SizeMismatch extends Error {}

/** What the staged upload uses: storage, blobs, the publishing transaction's readers, and who may still finalize. */
export type UploadDeps = Pick<
  Core,
  'config' | 'sql' | 'blobs' | 'blobGc' | 'log' | 'now' | 'nodeId' | 'events' | 'audit' | 'settings' | 'users' | 'canvases'
>;

export class UploadService {
  private readonly store: UploadStore;
  private lastSweep = 0;

  constructor(private readonly deps: UploadDeps) {
    this.store = new UploadStore(deps.sql);
  }

  /**
   * Validates the manifest and runs the coordination checks; answers
   * already_current without a session when the release is live.
   */
  async begin(canvas: Canvas, actorId: string, input: BeginInput): Promise<BeginResult> {
    const coordination = validateCoordination(input);
    const manifest = normalizeManifest(input.manifest);
    const current = await checkCoordination(this.deps, canvas, coordination);
    if (current) return { kind: 'already_current', result: current };
    this.deps.blobs.ensureRoom(manifest.totalBytes);
    await this.sweepNow();
    const now = this.deps.now();
    const held = await this.store.heldByCanvas(canvas.id, [...manifest.blobs.keys()]);
    const blobs = [...manifest.blobs].map(([hash, size]) => ({
      hash,
      size,
      // A hash declared with another size than the canvas holds it with is asked for again; staging then reports the mismatch.
      staged: held.get(hash) === size,
    }));
    const uploadId = newToken();
    await this.store.insert({
      id: uploadId,
      canvasId: canvas.id,
      actorId,
      files: manifest.files,
      totalBytes: manifest.totalBytes,
      releaseId: coordination.releaseId,
      expectedToken: coordination.expectedPublicationToken,
      createdAt: now,
      expiresAt: now + UPLOAD_TTL_MS,
      blobs,
    });
    const missingHashes = blobs.filter((b) => !b.staged).map((b) => b.hash);
    this.deps.log.info('upload begun', { canvasId: canvas.id, files: manifest.files.length, missing: missingHashes.length });
    return { kind: 'session', uploadId, missingHashes };
  }

  /**
   * Streams one blob into the store. The 25 MB cap is checked first (from
   * the declared length, then while streaming); any other byte count than
   * the manifest's, or other bytes than the hash, is BLOB_HASH_MISMATCH.
   */
  async stage(
    canvasId: string,
    actorId: string,
    uploadId: string,
    hash: string,
    body: ReadableStream<Uint8Array> | null,
    contentLength: number | null,
  ): Promise<void> {
    const session = this.usable(await this.sessionFor(canvasId, actorId, uploadId));
    const size = HASH.test(hash) ? await this.store.declaredSize(uploadId, hash) : null;
    if (size === null) throw new AppError('UPLOAD_UNEXPECTED_BLOB', 'this hash is not in the upload manifest');
    if (contentLength !== null && contentLength > UPLOAD_LIMITS.fileBytes) throw fileTooLarge();
    if (contentLength !== null && contentLength !== size) throw sizeMismatch(size);
    const paths = session.files.filter((f) => f.hash === hash);
    const scanner = paths.some((f) => isTextType(f.mime)) ? new KeyScanner() : null;
    // The manifest names the hash already; the hold covers the bucket check (another node may be collecting an old copy).
    const hold = this.deps.blobGc.hold();
    try {
      await this.deps.blobs.put(counted(body, size, scanner), { maxBytes: UPLOAD_LIMITS.fileBytes, expectedHash: hash, hold });
      await this.store.markStaged(uploadId, hash);
    } catch (err) {
      if (err instanceof BlobLimitError) throw fileTooLarge();
      if (err instanceof SizeMismatch) throw sizeMismatch(size);
      if (err instanceof BlobHashMismatchError) throw new AppError('BLOB_HASH_MISMATCH', 'the bytes do not hash to the given sha256');
      throw err;
    } finally {
      await hold.release();
    }
    if (scanner?.found) {
      // Server-side only (Stage rules): the paths, never the matching text.
      this.deps.log.warn('deploy lint: staged file may contain a canvas API key', { canvasId, paths: paths.map((f) => f.path) });
    }
  }

  /**
   * Publishes the session's manifest. The finalize lease is taken before the
   * staged blobs are checked on disk (off the event loop), so a second
   * finalize of the same handle meanwhile answers UPLOAD_IN_PROGRESS; a
   * refused finalize (missing blob, stale token) leaves the session open for
   * another try. The decision order and the live switch then run in one
   * write transaction, under the canvas's lock.
   */
  async finalize(
    canvas: Canvas,
    actorId: string,
    uploadId: string,
    input: FinalizeInput,
    options: FinalizeOptions = {},
  ): Promise<DeployResult> {
    const started = performance.now();
    const asked = validateCoordination(input);
    const session = await this.sessionFor(canvas.id, actorId, uploadId);
    await this.requireActor(canvas, session.actorId);
    if (asked.releaseId !== null && asked.releaseId !== session.releaseId) {
      throw new AppError(
        'RELEASE_ID_MISMATCH',
        session.releaseId === null ? 'begin had no releaseId' : 'releaseId differs from the one given at begin',
      );
    }
    if (session.state === 'consumed') {
      const replay = session.releaseId === null ? null : await this.liveRelease(canvas, session.releaseId);
      if (replay) return replay;
    }
    this.usable(session);
    const now = this.deps.now();
    if (!(await this.store.takeLease(uploadId, now, now + FINALIZE_LEASE_MS, this.deps.nodeId))) {
      throw new AppError('UPLOAD_IN_PROGRESS', 'another finalize of this upload is running');
    }
    let consumed = false;
    try {
      if (asked.expectedPublicationToken !== null) await this.store.setExpectedToken(uploadId, asked.expectedPublicationToken);
      const coordination: Coordination = {
        releaseId: session.releaseId,
        expectedPublicationToken: asked.expectedPublicationToken ?? session.expectedToken,
        preview: asked.preview,
      };
      const missing = await this.missingBlobs(session);
      const keyLintPaths = missing.length > 0 ? [] : await this.keyLintPaths(session);
      const rootPage = missing.length > 0 ? null : await readRootPage(session.files, this.deps.blobs);
      const deps = this.deps;
      const published = await deps.sql.write(function* () {
        yield* tx.lock('canvas', canvas.id);
        const current = yield* coordinationSteps(deps, canvas, coordination);
        if (current) {
          yield* uploadRows.consume(uploadId, current.versionId, now);
          return { result: current, pruned: [] };
        }
        if (missing.length > 0) {
          throw new AppError('UPLOAD_MISSING_BLOB', `${missing.length} blob(s) not staged yet`, { missingHashes: missing });
        }
        const total = session.files.reduce((sum, f) => sum + f.size, 0);
        if (total > UPLOAD_LIMITS.canvasBytes) throw overCap('CANVAS_TOO_LARGE', 'more than 100 MB in total');
        const done = yield* publishSteps(deps, canvas.id, session.files, {
          ...coordination,
          source: 'upload',
          warnings: deployWarnings(session.files, { keyLintPaths, rootPage, canvasUrl: canvasUrl(deps.config, canvas.slug) }),
          actor: { id: session.actorId, kind: options.auditKind ?? 'key' },
        });
        yield* uploadRows.consume(uploadId, done.result.versionId, now);
        return done;
      });
      consumed = true;
      await afterPublish(deps, canvas.id, published);
      const { result } = published;
      if (keyLintPaths.length > 0 && result.outcome !== 'already_current') {
        this.deps.log.warn('deploy lint: files may contain a canvas API key', { canvasId: canvas.id, paths: keyLintPaths });
      }
      deployFinished(this.deps, 'upload', result, started);
      return result;
    } finally {
      if (!consumed) await this.store.releaseLease(uploadId);
    }
  }

  /**
   * The text files whose bytes hold the canvas-key shape, for the answer's
   * warnings (issue 23: the staged path warns like the ZIP path, not only in
   * the log). Read from the store, so blobs the canvas already held at begin
   * are checked too; one blob at a time, yielding between them.
   */
  private async keyLintPaths(session: UploadSession): Promise<string[]> {
    // Over the canvas cap the finalize is refused anyway: nothing to read.
    if (session.files.reduce((sum, f) => sum + f.size, 0) > UPLOAD_LIMITS.canvasBytes) return [];
    const pathsByHash = new Map<string, string[]>();
    for (const f of session.files) {
      if (!isTextType(f.mime)) continue;
      const paths = pathsByHash.get(f.hash);
      if (paths) paths.push(f.path);
      else pathsByHash.set(f.hash, [f.path]);
    }
    const found: string[] = [];
    for (const [hash, paths] of pathsByHash) {
      try {
        if (await blobMentionsKey(this.deps.blobs, hash)) found.push(...paths);
      } catch {
        // Gone since missingBlobs looked: the publish below does not need the lint to say so.
      }
    }
    return found;
  }

  /** Deletes sessions consumed or expired more than an hour ago. */
  sweep(): Promise<number> {
    this.lastSweep = this.deps.now();
    return this.store.deleteFinished(this.lastSweep - UPLOAD_RETENTION_MS);
  }

  /**
   * At start: finalizes a killed process left mid-way give their handles
   * back at once (not after the 60-second lease). On a shared database other
   * nodes' finalizes hold leases too: only those of nodes that are gone
   * (an earlier run of this node among them) are freed.
   */
  recover(): Promise<number> {
    if (this.deps.sql.engine === 'sqlite') return this.store.releaseAllLeases();
    return this.store.releaseDeadNodesLeases(this.deps.nodeId, this.deps.now() - NODE_TTL_MS);
  }

  private async sweepNow(): Promise<void> {
    if (this.deps.now() - this.lastSweep >= SWEEP_EVERY_MS) await this.sweep();
  }

  /** The session, if it exists for this canvas and actor; anything else is the same 404. */
  private async sessionFor(canvasId: string, actorId: string, uploadId: string): Promise<UploadSession> {
    const s = await this.store.byId(uploadId);
    if (!s || s.canvasId !== canvasId || s.actorId !== actorId) throw new AppError('UPLOAD_HANDLE_INVALID', 'unknown upload handle');
    return s;
  }

  /** Open and within its lifetime (a consumed handle says so even once its time is up). */
  private usable(s: UploadSession): UploadSession {
    if (s.state === 'consumed') throw new AppError('UPLOAD_ALREADY_FINALIZED', 'this upload was already finalized');
    if (this.deps.now() > s.expiresAt)
      throw new AppError('UPLOAD_EXPIRED', 'the upload handle expired (15 minutes from begin); begin again');
    return s;
  }

  /** Finalize rule 2: the beginning actor must still be active and still an owner or editor. */
  private async requireActor(canvas: Canvas, actorId: string): Promise<void> {
    const user = await this.deps.users.byId(actorId);
    const role = user?.active ? await this.deps.canvases.roleOf(canvas, actorId) : null;
    if (role !== 'owner' && role !== 'editor') throw new AppError('UPLOAD_HANDLE_INVALID', 'unknown upload handle');
  }

  /** The already_current answer when `releaseId` is the live release, else null. */
  private async liveRelease(canvas: Canvas, releaseId: string): Promise<DeployResult | null> {
    try {
      return await checkCoordination(this.deps, canvas, { releaseId, expectedPublicationToken: null });
    } catch (err) {
      if (err instanceof AppError) return null;
      throw err;
    }
  }

  /**
   * The hashes not staged yet, or no longer on disk with their declared size
   * (the disk is the truth: a blob the canvas held at begin may have gone
   * since; stage it again). Checked in batches, yielding between them.
   */
  private async missingBlobs(session: UploadSession): Promise<string[]> {
    const missing: string[] = [];
    const blobs = await this.store.blobs(session.id);
    for (let i = 0; i < blobs.length; i += BLOB_CHECKS_PER_TURN) {
      // Other requests run between batches; the lease keeps other finalizes of this handle out meanwhile.
      await new Promise<void>((resolve) => setImmediate(resolve));
      const batch = blobs.slice(i, i + BLOB_CHECKS_PER_TURN);
      // Sizes are local stats, or lookups on a remote tier: asked together.
      const sizes = await Promise.all(batch.map((b) => (b.staged ? this.deps.blobs.sizeOf(b.hash) : null)));
      batch.forEach((b, j) => {
        if (!b.staged || sizes[j] !== b.size) missing.push(b.hash);
      });
    }
    return missing;
  }
}

const fileTooLarge = () => new AppError('FILE_TOO_LARGE', 'a staged blob is at most 25 MB');
const sizeMismatch = (declared: number) =>
  new AppError('BLOB_HASH_MISMATCH', `the byte count differs from the declared size (${declared})`);

/** Passes the body through, feeding the key scanner and checking the final count against the declared size. */
async function* counted(body: ReadableStream<Uint8Array> | null, declared: number, scanner: KeyScanner | null): AsyncGenerator<Uint8Array> {
  let seen = 0;
  if (body) {
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      seen += chunk.byteLength;
      scanner?.push(chunk);
      yield chunk;
    }
  }
  // The store's own cap (25 MB) fires first for oversized bodies, as CONTRACT §9 orders.
  if (seen !== declared) throw new SizeMismatch();
}
