// Instance administration: users, disabling canvases, instance settings, and
// the admin lists (every user, every canvas, the audit log). Callers are
// instance admins (checked by the routes). Audited as `admin`. Built once in
// createApp; the admin routes are handed it.
import type { AuditEntry } from '../audit/entry.ts';
import type { User } from '../auth/users.ts';
import type { Actor } from '../canvases/authority.ts';
import { viewRoleFor } from '../canvases/authority.ts';
import type { Canvas } from '../canvases/record.ts';
import type { CanvasWithRole } from '../canvases/service.ts';
import type { Core } from '../foundation.ts';
import { AppError } from '../errors.ts';
import type { SettingsUpdate } from '../settings/service.ts';

/** A user as admins see them: every stored field, and whether they are an instance admin. */
export type AdminUserView = User & { isAdmin: boolean };

export interface UserPatch {
  active?: boolean;
  canPublishPublic?: boolean;
  /** The user's home org (created when new), or null for none. */
  orgId?: string | null;
}

/** The audit log's filter (AuditLog.search). */
export type AuditFilter = Parameters<Core['audit']['search']>[0];

/** What administration uses: people and who is an admin, canvases, the audit log, settings, events and the clock. */
export type AdminServiceDeps = Pick<Core, 'audit' | 'auth' | 'canvases' | 'events' | 'now' | 'settings' | 'users'>;

const MODEL = /^[A-Za-z0-9._:-]{1,100}$/;

export class AdminService {
  constructor(private readonly deps: AdminServiceDeps) {}

  userView(u: User): AdminUserView {
    return { ...u, isAdmin: this.deps.auth.isAdmin(u) };
  }

  /** Every user, as admins see them. */
  async listUsers(): Promise<AdminUserView[]> {
    return (await this.deps.users.list()).map((u) => this.userView(u));
  }

  async getUser(id: string): Promise<User> {
    const user = await this.deps.users.byId(id);
    if (!user) throw new AppError('NOT_FOUND', 'user not found');
    return user;
  }

  /**
   * Deactivating ends the user's sessions at once (sessions resolve only active
   * users); taking canPublishPublic closes their Public link canvases to
   * anonymous visitors at once (listeners of `user.changed`).
   */
  async updateUser(actor: Actor, id: string, patch: UserPatch): Promise<User> {
    const ctx = this.deps;
    await this.getUser(id);
    if (patch.active === false && id === actor.user.id)
      throw new AppError('INVALID_BODY', 'active: an admin cannot deactivate their own account');
    const fields = Object.keys(patch).filter((k) => patch[k as keyof UserPatch] !== undefined);
    if (typeof patch.orgId === 'string') await ctx.users.ensureOrg(patch.orgId);
    const user = (await ctx.users.update(id, patch))!;
    if (fields.length > 0) {
      ctx.events.emit('user.changed', { userId: id });
      await ctx.audit.record({
        actorId: actor.user.id,
        actorKind: 'admin',
        canvasId: null,
        action: 'user.update',
        detail: { userId: id, fields },
      });
    }
    return user;
  }

  /** Every canvas, newest first, searched by title, slug or owner email, with its owner's email. */
  async searchCanvases(query: string, limit: number): Promise<Array<{ canvas: Canvas; ownerEmail: string | null }>> {
    const found = await this.deps.canvases.search(query, limit);
    const owners = await Promise.all(found.map((c) => this.deps.users.byId(c.ownerId)));
    return found.map((canvas, i) => ({ canvas, ownerEmail: owners[i]?.email ?? null }));
  }

  /** Disable (with an optional reason, kept for admins) or enable a canvas. Disabled wins over every other state. */
  async setCanvasDisabled(actor: Actor, id: string, disabled: boolean, reason?: string): Promise<CanvasWithRole> {
    const ctx = this.deps;
    const canvas = await ctx.canvases.byId(id);
    if (!canvas) throw new AppError('NOT_FOUND', 'canvas not found');
    const now = ctx.now();
    if (disabled) await ctx.canvases.update(id, { disabled_at: canvas.disabledAt ?? now, disabled_reason: reason?.trim() || null }, now);
    else if (canvas.disabledAt !== null) await ctx.canvases.update(id, { disabled_at: null, disabled_reason: null }, now);
    ctx.events.emit('canvas.access-changed', { canvasId: id });
    await ctx.audit.record({
      actorId: actor.user.id,
      actorKind: 'admin',
      canvasId: id,
      action: disabled ? 'canvas.disable' : 'canvas.enable',
      detail: reason ? { fields: ['reason'] } : undefined,
    });
    const updated = (await ctx.canvases.byId(id))!;
    return { canvas: updated, role: (await viewRoleFor(ctx, actor, updated)) ?? 'admin' };
  }

  /** The audit log, newest first. */
  searchAudit(filter: AuditFilter, limit: number): Promise<AuditEntry[]> {
    return this.deps.audit.search(filter, limit);
  }

  /** The instance settings as admins see them (the provider key only as set or not). */
  settings(): ReturnType<Core['settings']['publicView']> {
    return this.deps.settings.publicView();
  }

  /** Saves instance settings (null: back to the env default); they apply at once, without a restart. */
  async updateSettings(actor: Actor, patch: SettingsUpdate): Promise<ReturnType<Core['settings']['publicView']>> {
    const ctx = this.deps;
    for (const model of Object.keys(patch.aiPrices ?? {})) {
      if (!MODEL.test(model)) throw new AppError('INVALID_BODY', `aiPrices.${model.slice(0, 100)}: not a model name`);
    }
    const fields = Object.keys(patch).filter((k) => patch[k as keyof SettingsUpdate] !== undefined);
    if (fields.length > 0) {
      await ctx.settings.update(patch);
      ctx.events.emit('settings.changed', {});
      // Field names only: the provider key is a secret and the rest are values.
      await ctx.audit.record({ actorId: actor.user.id, actorKind: 'admin', canvasId: null, action: 'settings.update', detail: { fields } });
    }
    return ctx.settings.publicView();
  }
}
