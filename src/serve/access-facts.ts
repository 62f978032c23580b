import type { AccessInput } from '../canvases/access.ts';
import type { Canvas } from '../canvases/record.ts';
import type { AppContext } from '../context.ts';

/** What decideAccess needs to know besides the viewer: the canvas, its owner, the instance switches. */
export function accessFacts(ctx: AppContext, canvas: Canvas | null): Pick<AccessInput, 'canvas' | 'owner' | 'instance'> {
  const owner = canvas ? ctx.users.byId(canvas.ownerId) : null;
  return {
    canvas,
    owner: owner ? { active: owner.active, canPublishPublic: owner.canPublishPublic, orgId: owner.orgId } : null,
    instance: { publicLinks: ctx.settings.get().publicLinks, tenancy: ctx.config.tenancy },
  };
}
