// Coordination (spec "Coordination decision order") and the one place a new
// version goes live. Every deploy path (PUT deploy, staged finalize) ends in
// publishSteps; the token check and the live switch share one write
// transaction under the canvas's lock, so two deploys holding the same token
// cannot both win (on either engine).
import type { ActorKind } from '../audit/store.ts';
import type { Canvas } from '../canvases/record.ts';
import { canvasUrl } from '../canvases/url.ts';
import type { AppContext } from '../context.ts';
import type { Core } from '../foundation.ts';
import { tx, type TxSteps } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import { newId, newToken } from '../ids.ts';
import { OWNER_STORAGE_BYTES, storageQuotaExceeded } from '../canvases/quotas.ts';
import { canvasRows } from '../canvases/store.ts';
import { reconcileDrafts } from '../drafts/reconcile.ts';
import { versionRows, type VersionRecord } from './version-store.ts';

export interface ManifestFile {
  path: string;
  hash: string;
  size: number;
  mime: string;
}

export interface DeployResult {
  outcome: 'published' | 'already_current' | 'preview';
  url: string;
  /** Only with outcome "preview": where the version is served (`{url}__easel/v/{version}/`). */
  previewUrl?: string;
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
  /** Issue 40: make a ready version without going live. */
  preview?: boolean;
}

/** Spec Limits: the 10 most recent ready versions are kept per canvas. */
export const KEPT_VERSIONS = 10;
const MAX_RELEASE_ID_CHARS = 200;
// C0, DEL and C1 controls.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Checks the shape of the coordination fields: not a string → INVALID_REQUEST; a bad releaseId → INVALID_RELEASE_ID. */
export function validateCoordination(input: { releaseId?: unknown; expectedPublicationToken?: unknown; preview?: unknown }): Coordination {
  const { releaseId = null, expectedPublicationToken = null, preview = false } = input;
  if (typeof preview !== 'boolean') throw new AppError('INVALID_REQUEST', 'preview must be true or false');
  if (releaseId !== null && typeof releaseId !== 'string') throw new AppError('INVALID_REQUEST', 'releaseId must be a string');
  if (expectedPublicationToken !== null && typeof expectedPublicationToken !== 'string') {
    throw new AppError('INVALID_REQUEST', 'expectedPublicationToken must be a string');
  }
  if (releaseId !== null) {
    const chars = [...releaseId].length;
    if (chars === 0 || chars > MAX_RELEASE_ID_CHARS) throw new AppError('INVALID_RELEASE_ID', 'releaseId must be 1 to 200 characters');
    if (CONTROL.test(releaseId)) throw new AppError('INVALID_RELEASE_ID', 'releaseId must not contain control characters');
    // Stored verbatim (spec): a lone surrogate has no UTF-8 form, so it would come back as U+FFFD and never match again.
    if (!releaseId.isWellFormed())
      throw new AppError('INVALID_RELEASE_ID', 'releaseId must be well-formed Unicode (a lone surrogate is not)');
  }
  return { releaseId, expectedPublicationToken, preview };
}

/**
 * Steps 1–3 of the decision order against the canvas as stored now: the
 * already_current answer when the release is live, a 409 when the release is
 * only in history or the token is stale, else null (the deploy may proceed).
 * A preview of a release kept but not live answers that version as the
 * preview; a given token is still checked (issue 40: "I expect the live state
 * to be X" holds for a preview too).
 */
export function checkCoordination(ctx: Pick<AppContext, 'sql' | 'config'>, canvas: Canvas, c: Coordination): Promise<DeployResult | null> {
  return ctx.sql.autocommit(() => coordinationSteps(ctx, canvas, c));
}

/** checkCoordination inside a transaction (the publishing one holds the canvas's lock). */
export function* coordinationSteps(ctx: Pick<AppContext, 'config'>, canvas: Canvas, c: Coordination): TxSteps<DeployResult | null> {
  const fresh = (yield* canvasRows.byId(canvas.id)) ?? canvas;
  const live = fresh.currentVersionId === null ? null : yield* versionRows.byId(fresh.currentVersionId);
  if (c.releaseId !== null) {
    if (live && live.releaseId === c.releaseId) return resultOf(ctx, fresh, live, 'already_current', []);
    const kept = yield* versionRows.readyByRelease(fresh.id, c.releaseId);
    if (kept && c.preview) {
      tokenCheck(fresh, live, c);
      return resultOf(ctx, fresh, kept, 'preview', []);
    }
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
  tokenCheck(fresh, live, c);
  return null;
}

function tokenCheck(canvas: Canvas, live: VersionRecord | null, c: Coordination): void {
  if (c.expectedPublicationToken !== null && c.expectedPublicationToken !== canvas.publicationToken) {
    throw new AppError('PUBLICATION_CHANGED', 'the canvas was published or unpublished since expectedPublicationToken was read', {
      current: currentOf(canvas, live),
    });
  }
}

export interface PublishOptions extends Coordination {
  source: 'api' | 'upload' | 'editor';
  warnings: string[];
  /** The person whose browser draft this is (it is synced, not flagged stale). */
  publishedFromDraftOf?: string;
  /** Who the audit names; key-based writes act as the owner (the default). */
  actor?: { id: string; kind: ActorKind };
}

/** What a publishing transaction reads besides the database. */
export type PublishDeps = Pick<Core, 'audit' | 'config' | 'now' | 'settings'>;

/** What a publishing transaction did: the answer, and the blobs its pruning let go (collected after commit). */
export interface Published {
  result: DeployResult;
  pruned: string[];
}

/**
 * Publishes `files` (their blobs already stored) as a new ready version and
 * makes it live: decision order again, insert, pointer flip, token rotation
 * and pruning in one transaction; events and blob collection after commit.
 * A preview stops short of the live switch: the pointer, the token and the
 * drafts stay as they are.
 */
export async function publishVersion(
  ctx: PublishDeps & AfterPublishDeps & Pick<AppContext, 'sql'>,
  canvasId: string,
  files: ManifestFile[],
  opts: PublishOptions,
): Promise<DeployResult> {
  const published = await ctx.sql.write(() => publishSteps(ctx, canvasId, files, opts));
  await afterPublish(ctx, canvasId, published);
  return published.result;
}

/** publishVersion's transaction body, for callers that write more in the same transaction (staged finalize). */
export function* publishSteps(ctx: PublishDeps, canvasId: string, files: ManifestFile[], opts: PublishOptions): TxSteps<Published> {
  if (files.length === 0) throw new AppError('EMPTY_DEPLOY', 'nothing to deploy');
  yield* tx.lock('canvas', canvasId);
  const canvas = yield* canvasRows.byId(canvasId);
  // Archived, disabled or deleted while the upload ran: the key no longer counts.
  if (!canvas || canvas.deletedAt !== null || canvas.archivedAt !== null || canvas.disabledAt !== null) throw new AppError('unauthorized');
  const current = yield* coordinationSteps(ctx, canvas, opts);
  if (current) return { result: current, pruned: [] };
  // The owner's storage quota spans their canvases: deploys to two of them at once are checked one after the other.
  yield* tx.lock('owner-storage', canvas.ownerId);
  const now = ctx.now();
  // Spec: "Publish after unpublish returns the canvas Restricted", even when
  // sharing was changed while in draft. A first publish keeps what the owner set.
  const preview = opts.preview === true;
  const republish = !preview && canvas.currentVersionId === null && (yield* versionRows.hasReady(canvasId));
  const version: VersionRecord = {
    id: newId(),
    canvasId,
    number: yield* versionRows.nextNumber(canvasId),
    source: opts.source,
    status: 'ready',
    // Spec: the owner for every key-based write; a person deploying is named as themselves.
    createdBy: opts.actor && opts.actor.kind !== 'key' ? opts.actor.id : canvas.ownerId,
    createdAt: now,
    fileCount: files.length,
    totalBytes: files.reduce((sum, f) => sum + f.size, 0),
    releaseId: opts.releaseId,
    preview,
    warnings: opts.warnings,
  };
  yield* versionRows.insert(version, files);
  const pruned = preview
    ? yield* versionRows.prune(canvasId, KEPT_VERSIONS, [version.id, canvas.currentVersionId])
    : yield* goLive(canvas, version, republish, opts, now);
  // Checked with the new version in and the pruned ones out; a refusal rolls all of it back.
  const { userStorageBytes } = ctx.settings.get();
  if ((yield* tx.get<{ n: number }>(OWNER_STORAGE_BYTES, canvas.ownerId))!.n > userStorageBytes)
    throw storageQuotaExceeded(userStorageBytes);
  const actor = opts.actor ?? { id: canvas.ownerId, kind: 'key' };
  yield* ctx.audit.steps({
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
      preview,
      pruned: pruned.length > 0,
    },
  });
  const after = (yield* canvasRows.byId(canvasId)) ?? canvas;
  return { result: resultOf(ctx, after, version, preview ? 'preview' : 'published', opts.warnings), pruned };
}

/** The live switch: pointer, a new publication token, the drafts brought up to date; then pruning. */
function* goLive(canvas: Canvas, version: VersionRecord, republish: boolean, opts: PublishOptions, now: number): TxSteps<string[]> {
  const token = newToken();
  yield* canvasRows.update(
    canvas.id,
    republish
      ? { current_version_id: version.id, publication_token: token, access_mode: 'restricted' }
      : { current_version_id: version.id, publication_token: token },
    now,
  );
  yield* reconcileDrafts(canvas.id, version, opts.publishedFromDraftOf ?? null, now);
  return yield* versionRows.prune(canvas.id, KEPT_VERSIONS, [version.id]);
}

/** What runs after a publishing transaction commits. */
export type AfterPublishDeps = Pick<AppContext, 'events' | 'blobGc' | 'log'>;

/** After the publishing transaction committed: the event, and the pruned versions' blobs. */
export async function afterPublish(ctx: AfterPublishDeps, canvasId: string, { result, pruned }: Published): Promise<void> {
  if (result.outcome === 'already_current') return;
  if (result.outcome === 'published') ctx.events.emit('canvas.published', { canvasId, versionId: result.versionId });
  if (pruned.length > 0) await collectPruned(ctx, pruned);
}

/** The signal metrics count deploys by: `started` is performance.now() when the deploy began. */
export function deployFinished(ctx: Pick<AppContext, 'events'>, source: 'api' | 'upload', result: DeployResult, started: number): void {
  if (!ctx.events.has('deploy.finished')) return;
  ctx.events.emit('deploy.finished', {
    source,
    outcome: result.outcome,
    bytes: result.outcome === 'already_current' ? 0 : result.totalBytes,
    durationMs: performance.now() - started,
  });
}

async function collectPruned(ctx: AfterPublishDeps, hashes: string[]): Promise<void> {
  try {
    await ctx.blobGc.collect(hashes);
  } catch (err) {
    // The database may have closed meanwhile (shutdown); the periodic sweep catches up.
    ctx.log.warn('collecting pruned blobs failed', { error: String(err) });
  }
}

export function resultOf(
  ctx: Pick<AppContext, 'config'>,
  canvas: Canvas,
  v: VersionRecord,
  outcome: DeployResult['outcome'],
  warnings: string[],
): DeployResult {
  const url = canvasUrl(ctx.config, canvas.slug);
  return {
    outcome,
    url,
    ...(outcome === 'preview' ? { previewUrl: versionUrl(url, v.number) } : {}),
    version: v.number,
    versionId: v.id,
    releaseId: v.releaseId,
    publicationToken: canvas.publicationToken,
    fileCount: v.fileCount,
    totalBytes: v.totalBytes,
    warnings,
  };
}

/** Where a kept version is served: `{canvas URL}__easel/v/{number}/` (issue 40). */
export function versionUrl(canvasUrl: string, number: number): string {
  return `${canvasUrl}__easel/v/${number}/`;
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
