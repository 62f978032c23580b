import type { AccessInput } from '../canvases/access.ts';
import type { Canvas } from '../canvases/record.ts';
import type { AppContext } from '../context.ts';

export type OwnerFacts = AccessInput['owner'];

/** The owner's switches decideAccess looks at (null: the owner row is gone). */
export function ownerFacts(ctx: AppContext, canvas: Canvas | null): OwnerFacts {
  const owner = canvas ? ctx.users.byId(canvas.ownerId) : null;
  return owner ? { active: owner.active, canPublishPublic: owner.canPublishPublic, orgId: owner.orgId } : null;
}

/** Instance switches: settings are already held in memory by SettingsService. */
export function instanceFacts(ctx: AppContext): AccessInput['instance'] {
  return { publicLinks: ctx.settings.get().publicLinks, tenancy: ctx.config.tenancy };
}

/** What decideAccess needs to know besides the viewer: the canvas, its owner, the instance switches. */
export function accessFacts(
  ctx: AppContext,
  canvas: Canvas | null,
  owner: OwnerFacts = ownerFacts(ctx, canvas),
): Pick<AccessInput, 'canvas' | 'owner' | 'instance'> {
  return { canvas, owner, instance: instanceFacts(ctx) };
}
