// Rollback and unpublish (spec "Canvas publication state"). Each is one
// write transaction, under the canvas's lock, that moves the live pointer and rotates the
// publication token; events go out after commit.
import type { ActorKind } from '../audit/store.ts';
import type { Canvas } from '../canvases/record.ts';
import { canvasUrl } from '../canvases/url.ts';
import type { Core } from '../foundation.ts';
import { canvasRows } from '../canvases/store.ts';
import { tx } from '../db/sql.ts';
import { AppError, noSuchVersion } from '../errors.ts';
import { newToken } from '../ids.ts';
import { versionRows, type VersionRecord } from './version-store.ts';

/** What rollback and unpublish use: the write, the clock, the audit, the events after commit, the canvas URL. */
export type LifecycleDeps = Pick<Core, 'sql' | 'now' | 'audit' | 'events' | 'config'>;

/** The ready version a rollback to `number` would activate; 404 INVALID_PATH when there is none. */
export async function rollbackTarget(ctx: LifecycleDeps, canvas: Canvas, number: number): Promise<VersionRecord> {
  const target = await ctx.sql.autocommit(() => versionRows.readyByNumber(canvas.id, number));
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

export async function activateVersion(
  ctx: LifecycleDeps,
  canvas: Canvas,
  target: VersionRecord,
  actor?: LifecycleActor,
): Promise<{ url: string; version: number }> {
  await ctx.sql.write(function* () {
    yield* tx.lock('canvas', canvas.id);
    const v = yield* versionRows.byId(target.id);
    if (!v || v.canvasId !== canvas.id || v.status !== 'ready') {
      throw new AppError('VERSION_UNAVAILABLE', `version ${target.number} was pruned meanwhile: list /versions and retry`);
    }
    const fresh = yield* canvasRows.byId(canvas.id);
    if (!fresh) throw new AppError('unauthorized');
    const fromDraft = fresh.currentVersionId === null;
    yield* canvasRows.update(
      canvas.id,
      fromDraft
        ? { current_version_id: v.id, publication_token: newToken(), access_mode: 'restricted' }
        : { current_version_id: v.id, publication_token: newToken() },
      ctx.now(),
    );
    yield* ctx.audit.steps({
      actorId: actor?.id ?? fresh.ownerId,
      actorKind: actor?.kind ?? 'key',
      canvasId: canvas.id,
      action: 'canvas.rollback',
      detail: { versionId: v.id, version: v.number, fromDraft },
    });
  });
  ctx.events.emit('canvas.published', { canvasId: canvas.id, versionId: target.id });
  return { url: canvasUrl(ctx.config, canvas.slug), version: target.number };
}

export async function rollback(
  ctx: LifecycleDeps,
  canvas: Canvas,
  number: number,
  actor?: LifecycleActor,
): Promise<{ url: string; version: number }> {
  return activateVersion(ctx, canvas, await rollbackTarget(ctx, canvas, number), actor);
}

/**
 * Clears the live pointer and resets sharing (Restricted, no expiry, off the
 * access list and the gallery); history is kept. 409 CANNOT_UNPUBLISH from draft.
 */
export async function unpublish(
  ctx: LifecycleDeps,
  canvas: Canvas,
  actor?: LifecycleActor,
): Promise<{ url: string; publicationState: 'draft'; currentVersionId: null }> {
  await ctx.sql.write(function* () {
    yield* tx.lock('canvas', canvas.id);
    const fresh = yield* canvasRows.byId(canvas.id);
    if (!fresh) throw new AppError('unauthorized');
    if (fresh.currentVersionId === null) throw new AppError('CANNOT_UNPUBLISH', 'the canvas is not published');
    yield* canvasRows.update(
      canvas.id,
      {
        current_version_id: null,
        publication_token: newToken(),
        access_mode: 'restricted',
        expires_at: null,
        // Off the access list and the gallery.
        listed_for_access: 0,
        gallery_listed: 0,
      },
      ctx.now(),
    );
    yield* ctx.audit.steps({
      actorId: actor?.id ?? fresh.ownerId,
      actorKind: actor?.kind ?? 'key',
      canvasId: canvas.id,
      action: 'canvas.unpublish',
      detail: { versionId: fresh.currentVersionId },
    });
  });
  ctx.events.emit('canvas.unpublished', { canvasId: canvas.id });
  ctx.events.emit('canvas.access-changed', { canvasId: canvas.id });
  return { url: canvasUrl(ctx.config, canvas.slug), publicationState: 'draft', currentVersionId: null };
}
