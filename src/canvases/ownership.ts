// Giving a canvas to another person (issue 41; the spec has no transfer):
// the owner or an instance admin names an active user of the instance by
// email; that person becomes the owner and the previous owner stays on the
// people list as an editor. One transaction: the owner column, the new
// owner's list row (gone: the owner is never on the list), the previous
// owner's (editor). Access follows the new owner (their organization, their
// right to public links), so open sessions revalidate.
import type { Core } from '../foundation.ts';
import { tx } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import { EMAIL } from '../auth/users.ts';
import { actorKind, managedCanvas, type Actor } from './authority.ts';
import { canvasQuotaExceeded } from './quotas.ts';
import type { Canvas } from './record.ts';
import { canvasRows } from './store.ts';

export interface Transfer {
  canvas: Canvas;
  /** false: the named person owned it already (nothing changed). */
  changed: boolean;
}

/** What a transfer uses. */
export type OwnershipTransferDeps = Pick<Core, 'audit' | 'canvases' | 'events' | 'now' | 'settings' | 'sql' | 'users'>;

/** Built by CanvasService (its `ownership`). */
export class OwnershipTransfer {
  constructor(private readonly deps: OwnershipTransferDeps) {}

  /** Owner or admin (an editor gets 403, anyone else 404); the named person must exist and be active (else 404). */
  async transfer(actor: Actor, id: string, input: { email: string }): Promise<Transfer> {
    const ctx = this.deps;
    const m = await managedCanvas(ctx, actor, id, 'own');
    const email = input.email.trim();
    if (!EMAIL.test(email)) throw new AppError('INVALID_BODY', 'email: not an email address');
    const next = await ctx.users.byEmail(email);
    // Nobody is created here (unlike the people list): a canvas goes only to someone who has an account and may use it.
    if (!next || !next.active) throw new AppError('NOT_FOUND', 'no active user of this instance has that email');
    const previousId = m.canvas.ownerId;
    if (next.id === previousId) return { canvas: m.canvas, changed: false };
    const { userCanvases } = ctx.settings.get();
    const now = ctx.now();
    const canvas = await ctx.sql.write(function* () {
      // The lock canvas creation counts owned canvases under: nobody passes the quota by creating meanwhile.
      yield* tx.lock('canvas-slugs');
      const current = yield* canvasRows.byId(m.canvas.id);
      // Given away or deleted by someone else meanwhile: what the caller saw is gone.
      if (!current || current.ownerId !== previousId) throw new AppError('NOT_FOUND', 'canvas not found');
      if ((yield* canvasRows.ownedCount(next.id)) >= userCanvases) throw canvasQuotaExceeded(userCanvases);
      yield* canvasRows.update(current.id, { owner_id: next.id }, now);
      yield* canvasRows.removeMember(current.id, next.id);
      yield* canvasRows.setMember(current.id, previousId, 'editor', now);
      yield* ctx.audit.steps({
        actorId: actor.user.id,
        actorKind: actorKind(m),
        canvasId: current.id,
        action: 'canvas.owner.transfer',
        detail: { fromUserId: previousId, toUserId: next.id },
      });
      return (yield* canvasRows.byId(current.id))!;
    });
    ctx.events.emit('canvas.access-changed', { canvasId: canvas.id });
    // Awaited: both people's messages are in the outbox before the answer (a crash right after loses neither).
    await ctx.events.emitAndRecord('canvas.owner-changed', {
      canvasId: canvas.id,
      fromUserId: previousId,
      toUserId: next.id,
      byUserId: actor.user.id,
    });
    return { canvas, changed: true };
  }
}
