// The canvas's people list: the owner plus editors and viewers. Owners,
// editors and admins manage it; adding an unknown email creates the user.
import type { Core } from '../foundation.ts';
import { AppError } from '../errors.ts';
import { EMAIL } from '../auth/users.ts';
import { actorKind, managedCanvas, type Actor } from './authority.ts';
import type { CanvasRole } from './record.ts';

export interface MemberEntry {
  userId: string;
  email: string;
  name: string;
  role: CanvasRole;
}

export type MemberRole = 'editor' | 'viewer';

/** What the people list uses. */
export type CanvasMembersDeps = Pick<Core, 'audit' | 'canvases' | 'events' | 'now' | 'users'>;

/** Built by CanvasService (its `members`). */
export class CanvasMembers {
  constructor(private readonly deps: CanvasMembersDeps) {}

  /** The owner first, then the members in the order they were added. */
  async list(actor: Actor, id: string): Promise<MemberEntry[]> {
    const ctx = this.deps;
    const { canvas } = await managedCanvas(ctx, actor, id, 'manage');
    const owner = await ctx.users.byId(canvas.ownerId);
    const head: MemberEntry[] = owner ? [{ userId: owner.id, email: owner.email, name: owner.name, role: 'owner' }] : [];
    return [...head, ...(await ctx.canvases.members(canvas.id))];
  }

  /** Adds a person by email or changes their role. */
  async put(actor: Actor, id: string, input: { email: string; role: MemberRole }): Promise<MemberEntry> {
    const ctx = this.deps;
    const m = await managedCanvas(ctx, actor, id, 'manage');
    const email = input.email.trim();
    if (!EMAIL.test(email)) throw new AppError('INVALID_BODY', 'email: not an email address');
    const existing = await ctx.users.byEmail(email);
    if (existing?.id === m.canvas.ownerId)
      throw new AppError('INVALID_BODY', 'email: the owner is always on the list and cannot be given another role');
    const user = existing ?? (await ctx.users.ensure(email));
    const before = existing ? await ctx.canvases.roleOf(m.canvas, user.id) : null;
    await ctx.canvases.setMember(m.canvas.id, user.id, input.role, ctx.now());
    ctx.events.emit('canvas.access-changed', { canvasId: m.canvas.id });
    // Awaited: the person's notification is recorded (one insert) before the answer, so a crash right after does not lose it.
    if (before === null)
      await ctx.events.emitAndRecord('canvas.member-added', {
        canvasId: m.canvas.id,
        userId: user.id,
        role: input.role,
        byUserId: actor.user.id,
      });
    await ctx.audit.record({
      actorId: actor.user.id,
      actorKind: actorKind(m),
      canvasId: m.canvas.id,
      action: 'canvas.member.put',
      detail: { userId: user.id, fields: ['role'] },
    });
    return { userId: user.id, email: user.email, name: user.name, role: input.role };
  }

  async remove(actor: Actor, id: string, userId: string): Promise<void> {
    const ctx = this.deps;
    const m = await managedCanvas(ctx, actor, id, 'manage');
    if (userId === m.canvas.ownerId) throw new AppError('INVALID_BODY', 'userId: the owner cannot be removed');
    if (!(await ctx.canvases.removeMember(m.canvas.id, userId))) throw new AppError('NOT_FOUND', 'not a member of this canvas');
    ctx.events.emit('canvas.access-changed', { canvasId: m.canvas.id });
    await ctx.audit.record({
      actorId: actor.user.id,
      actorKind: actorKind(m),
      canvasId: m.canvas.id,
      action: 'canvas.member.remove',
      detail: { userId },
    });
  }
}
