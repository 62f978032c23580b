// Coordination (spec "Coordination decision order") and the one place a new
// version goes live. Every deploy path (PUT deploy, staged finalize) ends in
// publishVersion; the token check and the live switch share one BEGIN
// IMMEDIATE transaction, so two deploys holding the same token cannot both win.
import type { ActorKind } from '../audit/store.ts';
import type { Canvas } from '../canvases/record.ts';
import { canvasUrl } from '../canvases/url.ts';
import type { AppContext } from '../context.ts';
import { immediate } from '../db/tx.ts';
import { AppError } from '../errors.ts';
import { newId, newToken } from '../ids.ts';
import { OWNER_STORAGE_BYTES, storageQuotaExceeded } from '../canvases/quotas.ts';
import { reconcileDrafts } from '../drafts/reconcile.ts';
import { afterCommit } from './after-commit.ts';
import { VersionStore, type VersionRecord } from './version-store.ts';

export interface ManifestFile {
  path: string;
  hash: string;
  size: number;
  mime: string;
}

export interface DeployResult {
  outcome: 'published' | 'already_current';
  url: string;
  version: number;
  versionId: string;
  releaseId: string | null;
  publicationToken: string;
  fileCount: number;
  totalBytes: number;
  warnings: string[];
}

export interface Coordination {
  releaseId: string | null;
  expectedPublicationToken: string | null;
}

/** Spec Limits: the 10 most recent ready versions are kept per canvas. */
export const KEPT_VERSIONS = 10;
const MAX_RELEASE_ID_CHARS = 200;
// C0, DEL and C1 controls.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Checks the shape of the coordination fields: not a string → INVALID_REQUEST; a bad releaseId → INVALID_RELEASE_ID. */
export function validateCoordination(input: { releaseId?: unknown; expectedPublicationToken?: unknown }): Coordination {
  const { releaseId = null, expectedPublicationToken = null } = input;
  if (releaseId !== null && typeof releaseId !== 'string') throw new AppError('INVALID_REQUEST', 'releaseId must be a string');
  if (expectedPublicationToken !== null && typeof expectedPublicationToken !== 'string') {
    throw new AppError('INVALID_REQUEST', 'expectedPublicationToken must be a string');
  }
  if (releaseId !== null) {
    const chars = [...releaseId].length;
    if (chars === 0 || chars > MAX_RELEASE_ID_CHARS) throw new AppError('INVALID_RELEASE_ID', 'releaseId must be 1 to 200 characters');
    if (CONTROL.test(releaseId)) throw new AppError('INVALID_RELEASE_ID', 'releaseId must not contain control characters');
  }
  return { releaseId, expectedPublicationToken };
}

/**
 * Steps 1–3 of the decision order against the canvas as stored now: the
 * already_current answer when the release is live, a 409 when the release is
 * only in history or the token is stale, else null (the deploy may proceed).
 */
export function checkCoordination(ctx: AppContext, canvas: Canvas, c: Coordination): DeployResult | null {
  const fresh = ctx.canvases.byId(canvas.id) ?? canvas;
  const versions = new VersionStore(ctx.db);
  const live = fresh.currentVersionId === null ? null : versions.byId(fresh.currentVersionId);
  if (c.releaseId !== null) {
    if (live && live.releaseId === c.releaseId) return resultOf(ctx, fresh, live, 'already_current', []);
    const kept = versions.readyByRelease(fresh.id, c.releaseId);
    if (kept) {
      throw new AppError(
        'RELEASE_NOT_CURRENT',
        `release is version ${kept.number}, which is not live: roll back to it or deploy under a new releaseId`,
        {
          release: { versionId: kept.id, version: kept.number },
          current: currentOf(fresh, live),
        },
      );
    }
  }
  if (c.expectedPublicationToken !== null && c.expectedPublicationToken !== fresh.publicationToken) {
    throw new AppError('PUBLICATION_CHANGED', 'the canvas was published or unpublished since expectedPublicationToken was read', {
      current: currentOf(fresh, live),
    });
  }
  return null;
}

export interface PublishOptions extends Coordination {
  source: 'api' | 'upload' | 'editor';
  warnings: string[];
  /** The person whose browser draft this is (it is synced, not flagged stale). */
  publishedFromDraftOf?: string;
  /** Who the audit names; key-based writes act as the owner (the default). */
  actor?: { id: string; kind: ActorKind };
}

/**
 * Publishes `files` (their blobs already stored) as a new ready version and
 * makes it live: decision order again, insert, pointer flip, token rotation
 * and pruning in one transaction; events and blob collection after commit.
 */
export function publishVersion(ctx: AppContext, canvasId: string, files: ManifestFile[], opts: PublishOptions): DeployResult {
  if (files.length === 0) throw new AppError('EMPTY_DEPLOY', 'nothing to deploy');
  const versions = new VersionStore(ctx.db);
  let pruned: string[] = [];
  const result = immediate(ctx.db, () => {
    const canvas = ctx.canvases.byId(canvasId);
    // Archived, disabled or deleted while the upload ran: the key no longer counts.
    if (!canvas || canvas.deletedAt !== null || canvas.archivedAt !== null || canvas.disabledAt !== null)
      throw new AppError('unauthorized');
    const current = checkCoordination(ctx, canvas, opts);
    if (current) return current;
    const now = ctx.now();
    // Spec: "Publish after unpublish returns the canvas Restricted", even when
    // sharing was changed while in draft. A first publish keeps what the owner set.
    const republish = canvas.currentVersionId === null && versions.hasReady(canvasId);
    const version: VersionRecord = {
      id: newId(),
      canvasId,
      number: versions.nextNumber(canvasId),
      source: opts.source,
      status: 'ready',
      // Spec: the owner for every key-based write; a person deploying is named as themselves.
      createdBy: opts.actor && opts.actor.kind !== 'key' ? opts.actor.id : canvas.ownerId,
      createdAt: now,
      fileCount: files.length,
      totalBytes: files.reduce((sum, f) => sum + f.size, 0),
      releaseId: opts.releaseId,
    };
    versions.insert(version, files);
    const token = newToken();
    ctx.canvases.update(
      canvasId,
      republish
        ? { current_version_id: version.id, publication_token: token, access_mode: 'restricted' }
        : { current_version_id: version.id, publication_token: token },
      now,
    );
    reconcileDrafts(ctx.db, canvasId, version, opts.publishedFromDraftOf ?? null, now);
    pruned = versions.prune(canvasId, KEPT_VERSIONS, version.id);
    // Checked with the new version in and the pruned ones out; a refusal rolls all of it back.
    const { userStorageBytes } = ctx.settings.get();
    if (ctx.db.query<{ n: number }, [string]>(OWNER_STORAGE_BYTES).get(canvas.ownerId)!.n > userStorageBytes)
      throw storageQuotaExceeded(userStorageBytes);
    const actor = opts.actor ?? { id: canvas.ownerId, kind: 'key' };
    ctx.audit.recordWithin(ctx.db, {
      actorId: actor.id,
      actorKind: actor.kind,
      canvasId,
      action: 'canvas.deploy',
      detail: {
        versionId: version.id,
        version: version.number,
        source: opts.source,
        fileCount: version.fileCount,
        totalBytes: version.totalBytes,
        releaseId: version.releaseId,
        pruned: pruned.length > 0,
      },
    });
    return resultOf(ctx, { ...canvas, publicationToken: token }, version, 'published', opts.warnings);
  });
  if (result.outcome === 'published') {
    afterCommit(ctx, () => {
      ctx.events.emit('canvas.published', { canvasId, versionId: result.versionId });
      if (pruned.length > 0) collectPruned(ctx, pruned);
    });
  }
  return result;
}

/** The signal metrics count deploys by: `started` is performance.now() when the deploy began. */
export function deployFinished(ctx: AppContext, source: 'api' | 'upload', result: DeployResult, started: number): void {
  if (!ctx.events.has('deploy.finished')) return;
  ctx.events.emit('deploy.finished', {
    source,
    outcome: result.outcome,
    bytes: result.outcome === 'published' ? result.totalBytes : 0,
    durationMs: performance.now() - started,
  });
}

function collectPruned(ctx: AppContext, hashes: string[]): void {
  try {
    ctx.blobGc.collect(hashes);
  } catch (err) {
    // The database may have closed meanwhile (shutdown); the periodic sweep catches up.
    ctx.log.warn('collecting pruned blobs failed', { error: String(err) });
  }
}

export function resultOf(
  ctx: AppContext,
  canvas: Canvas,
  v: VersionRecord,
  outcome: DeployResult['outcome'],
  warnings: string[],
): DeployResult {
  return {
    outcome,
    url: canvasUrl(ctx.config, canvas.slug),
    version: v.number,
    versionId: v.id,
    releaseId: v.releaseId,
    publicationToken: canvas.publicationToken,
    fileCount: v.fileCount,
    totalBytes: v.totalBytes,
    warnings,
  };
}

/** A conflict's `current` (CONTRACT §9: nulls when nothing is live). */
function currentOf(canvas: Canvas, live: VersionRecord | null) {
  return {
    publicationToken: canvas.publicationToken,
    versionId: live?.id ?? null,
    version: live?.number ?? null,
    releaseId: live?.releaseId ?? null,
  };
}
