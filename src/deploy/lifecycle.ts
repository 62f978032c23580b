// Rollback and unpublish (spec "Canvas publication state"). Each is one
// BEGIN IMMEDIATE transaction that moves the live pointer and rotates the
// publication token; events go out after commit.
import type { ActorKind } from '../audit/store.ts';
import type { Canvas } from '../canvases/record.ts';
import { canvasUrl } from '../canvases/url.ts';
import type { AppContext } from '../context.ts';
import { immediate } from '../db/tx.ts';
import { AppError, noSuchVersion } from '../errors.ts';
import { newToken } from '../ids.ts';
import { afterCommit } from './after-commit.ts';
import { VersionStore, type VersionRecord } from './version-store.ts';

/** The ready version a rollback to `number` would activate; 404 INVALID_PATH when there is none. */
export function rollbackTarget(ctx: AppContext, canvas: Canvas, number: number): VersionRecord {
  const target = new VersionStore(ctx.db).readyByNumber(canvas.id, number);
  if (!target) throw noSuchVersion(`no ready version ${number}: list /versions for the kept ones`);
  return target;
}

/**
 * Makes `target` live. It is looked up again inside the transaction: a
 * version pruned since rollbackTarget answered is 409 VERSION_UNAVAILABLE.
 * From draft the canvas comes back Restricted; from published only the
 * pointer moves.
 */
/** Who the audit names: key-based calls act as the owner (the default); people and agents as themselves. */
export interface LifecycleActor {
  id: string;
  kind: ActorKind;
}

export function activateVersion(
  ctx: AppContext,
  canvas: Canvas,
  target: VersionRecord,
  actor?: LifecycleActor,
): { url: string; version: number } {
  const versions = new VersionStore(ctx.db);
  immediate(ctx.db, () => {
    const v = versions.byId(target.id);
    if (!v || v.canvasId !== canvas.id || v.status !== 'ready') {
      throw new AppError('VERSION_UNAVAILABLE', `version ${target.number} was pruned meanwhile: list /versions and retry`);
    }
    const fresh = ctx.canvases.byId(canvas.id);
    if (!fresh) throw new AppError('unauthorized');
    const fromDraft = fresh.currentVersionId === null;
    ctx.canvases.update(
      canvas.id,
      fromDraft
        ? { current_version_id: v.id, publication_token: newToken(), access_mode: 'restricted' }
        : { current_version_id: v.id, publication_token: newToken() },
      ctx.now(),
    );
    ctx.audit.recordWithin(ctx.db, {
      actorId: actor?.id ?? fresh.ownerId,
      actorKind: actor?.kind ?? 'key',
      canvasId: canvas.id,
      action: 'canvas.rollback',
      detail: { versionId: v.id, version: v.number, fromDraft },
    });
  });
  afterCommit(ctx, () => ctx.events.emit('canvas.published', { canvasId: canvas.id, versionId: target.id }));
  return { url: canvasUrl(ctx.config, canvas.slug), version: target.number };
}

export function rollback(ctx: AppContext, canvas: Canvas, number: number, actor?: LifecycleActor): { url: string; version: number } {
  return activateVersion(ctx, canvas, rollbackTarget(ctx, canvas, number), actor);
}

/**
 * Clears the live pointer and resets sharing (Restricted, no expiry, off the
 * access list and the gallery); history is kept. 409 CANNOT_UNPUBLISH from draft.
 */
export function unpublish(
  ctx: AppContext,
  canvas: Canvas,
  actor?: LifecycleActor,
): { url: string; publicationState: 'draft'; currentVersionId: null } {
  immediate(ctx.db, () => {
    const fresh = ctx.canvases.byId(canvas.id);
    if (!fresh) throw new AppError('unauthorized');
    if (fresh.currentVersionId === null) throw new AppError('CANNOT_UNPUBLISH', 'the canvas is not published');
    ctx.canvases.update(
      canvas.id,
      { current_version_id: null, publication_token: newToken(), access_mode: 'restricted', expires_at: null },
      ctx.now(),
    );
    // Listing flags are not part of the Canvas record the store types.
    ctx.db.query('UPDATE canvases SET listed_for_access = 0, gallery_listed = 0 WHERE id = ?').run(canvas.id);
    ctx.audit.recordWithin(ctx.db, {
      actorId: actor?.id ?? fresh.ownerId,
      actorKind: actor?.kind ?? 'key',
      canvasId: canvas.id,
      action: 'canvas.unpublish',
      detail: { versionId: fresh.currentVersionId },
    });
  });
  afterCommit(ctx, () => {
    ctx.events.emit('canvas.unpublished', { canvasId: canvas.id });
    ctx.events.emit('canvas.access-changed', { canvasId: canvas.id });
  });
  return { url: canvasUrl(ctx.config, canvas.slug), publicationState: 'draft', currentVersionId: null };
}
