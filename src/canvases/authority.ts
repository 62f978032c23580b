// Who may manage a canvas (CONTRACT §4, §9 "Management routes answer 404 to
// anyone who may not manage the canvas"). Plain data in and out.
import type { Actor } from '../auth/door-routes.ts';
import type { ActorKind } from '../audit/store.ts';
import type { Core } from '../foundation.ts';
import { AppError } from '../errors.ts';
import type { Canvas, CanvasRole } from './record.ts';
import type { ViewRole } from './view.ts';

export type { Actor };

/** `manage`: owner, editor or admin. `own`: owner or admin (an editor gets 403). */
export type Need = 'manage' | 'own';

export interface Managed {
  canvas: Canvas;
  /** The caller's own role on the canvas, if any. */
  role: CanvasRole | null;
  /** What the view shows: the caller's managing role, else `admin`. */
  viewRole: ViewRole;
  /** The caller acts through instance-admin power rather than a role of their own (audited as `admin`). */
  asAdmin: boolean;
}

export async function managedCanvas(ctx: Pick<Core, 'canvases'>, actor: Actor, id: string, need: Need): Promise<Managed> {
  const canvas = await ctx.canvases.byId(id);
  if (!canvas) throw new AppError('NOT_FOUND', 'canvas not found');
  const role = await ctx.canvases.roleOf(canvas, actor.user.id);
  const manager = role === 'owner' || role === 'editor';
  // Viewers and strangers learn nothing, not even that the canvas exists.
  if (!manager && !actor.isAdmin) throw new AppError('NOT_FOUND', 'canvas not found');
  if (need === 'own' && role !== 'owner' && !actor.isAdmin) throw new AppError('PERMISSION_DENIED', 'only the owner may do this');
  const asAdmin = need === 'own' ? role !== 'owner' : !manager;
  return { canvas, role, viewRole: manager ? role : 'admin', asAdmin };
}

export function actorKind(m: Pick<Managed, 'asAdmin'>): ActorKind {
  return m.asAdmin ? 'admin' : 'user';
}

/** The role a canvas view shows to this actor (null: the actor may not see it at all). */
export async function viewRoleFor(ctx: Pick<Core, 'canvases'>, actor: Actor, canvas: Canvas): Promise<ViewRole | null> {
  const role = await ctx.canvases.roleOf(canvas, actor.user.id);
  if (role === 'owner' || role === 'editor') return role;
  return actor.isAdmin ? 'admin' : role;
}
