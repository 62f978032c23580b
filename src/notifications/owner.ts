// Whom a canvas's owner-facing notice goes to: its owner, when the canvas
// still exists, the owner's account is active, and they want this notice.
import type { User } from '../auth/users.ts';
import type { Canvas } from '../canvases/record.ts';
import type { Core } from '../foundation.ts';

export async function ownerWhoWants(
  ctx: Pick<Core, 'canvases' | 'users'>,
  canvasOrId: Canvas | string,
  wants: (ownerId: string, canvasId: string) => Promise<boolean>,
): Promise<{ canvas: Canvas; owner: User } | null> {
  const canvas = typeof canvasOrId === 'string' ? await ctx.canvases.byId(canvasOrId) : canvasOrId;
  if (!canvas || !(await wants(canvas.ownerId, canvas.id))) return null;
  const owner = await ctx.users.byId(canvas.ownerId);
  return owner?.active ? { canvas, owner } : null;
}
