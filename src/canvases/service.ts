// Canvas management rules: create, list, get, update, archive/restore,
// delete, regenerate the key, and (in their own files) the people list,
// ownership transfer and capabilities. Plain arguments in, plain data out;
// throws AppError. Built once in createApp; the HTTP routes, the MCP tools,
// authoring and the gallery are handed it.
import type { Core } from '../foundation.ts';
import { enforceRate } from '../auth/guards.ts';
import { tx } from '../db/sql.ts';
import { isUniqueViolation } from '../db/unique-violation.ts';
import { AppError } from '../errors.ts';
import { newId, newToken } from '../ids.ts';
import { actorKind, managedCanvas, viewRoleFor, type Actor, type Managed, type Need } from './authority.ts';
import { CapabilitySettings } from './capabilities.ts';
import { homeFacts, type HomeFacts } from './home-facts.ts';
import { newCanvasKey } from './keys.ts';
import { CanvasMembers } from './members.ts';
import { PASSWORD_MAX, TITLE_MAX } from './model.ts';
import { OwnershipTransfer } from './ownership.ts';
import { canvasQuotaExceeded } from './quotas.ts';
import type { AccessMode, Canvas } from './record.ts';
import { reservedHostLabels } from '../http/host-labels.ts';
import { checkSlug, slugCandidates } from './slug.ts';
import { canvasRows } from './store.ts';
import type { ViewRole } from './view.ts';

export interface CanvasWithRole {
  canvas: Canvas;
  role: ViewRole;
}

function cleanTitle(title: string): string {
  const t = title.trim();
  if (t.length < 1 || t.length > TITLE_MAX) throw new AppError('INVALID_BODY', `title: 1-${TITLE_MAX} characters`);
  return t;
}

const slugTaken = () => new AppError('SLUG_TAKEN', 'slug is already in use');

/** A slug claimed by a writer outside the lock (the database's unique index has the last word) is SLUG_TAKEN too. */
async function withSlugConflicts<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (isUniqueViolation(err, 'canvases', 'slug')) throw slugTaken();
    throw err;
  }
}

export interface CanvasPatch {
  title?: string;
  slug?: string;
  accessMode?: AccessMode;
  /** A new password (1-200 characters), or null to remove it. */
  password?: string | null;
  /** Epoch ms (a past value expires the share at once), or null for no expiry. */
  expiresAt?: number | null;
  /** Whether the pages may register service workers: owner or admin only. */
  serviceWorkers?: boolean;
}

/** What canvas management uses: the kernel's storage, clock, limits and events, and the foundation's people, canvases, audit and settings. */
export type CanvasServiceDeps = Pick<Core, 'audit' | 'canvases' | 'config' | 'events' | 'limiter' | 'now' | 'settings' | 'sql' | 'users'>;

export class CanvasService {
  /** The people list: owner, editors and viewers (members.ts). */
  readonly members: CanvasMembers;
  /** Giving a canvas to another person (ownership.ts). */
  readonly ownership: OwnershipTransfer;
  /** Capability switches, audiences and the runtime policy (capabilities.ts). */
  readonly capabilities: CapabilitySettings;

  constructor(private readonly deps: CanvasServiceDeps) {
    this.members = new CanvasMembers(deps);
    this.ownership = new OwnershipTransfer(deps);
    this.capabilities = new CapabilitySettings(deps);
  }

  /** The canvas, if the actor may manage it (`need`); else NOT_FOUND or PERMISSION_DENIED (authority.ts). */
  managed(actor: Actor, id: string, need: Need): Promise<Managed> {
    return managedCanvas(this.deps, actor, id, need);
  }

  /** The role a canvas view shows to this actor (null: the actor may not see it at all). */
  viewRoleFor(actor: Actor, canvas: Canvas): Promise<ViewRole | null> {
    return viewRoleFor(this.deps, actor, canvas);
  }

  /** What the dashboard's home shows of each canvas in the actor's list besides its view (home-facts.ts). */
  homeFacts(actor: Actor): Promise<Map<string, HomeFacts>> {
    return homeFacts(this.deps.sql, actor.user.id);
  }

  /** Creates a restricted canvas owned by the actor; the key is returned here and never again. */
  async create(actor: Actor, input: { title: string; slug?: string }): Promise<{ canvas: Canvas; role: ViewRole; apiKey: string }> {
    const ctx = this.deps;
    const title = cleanTitle(input.title);
    const hostLabels = reservedHostLabels(ctx.config);
    const given = input.slug === undefined ? null : checkSlug(input.slug, hostLabels);
    const { userCanvases, userCanvasCreatesPerHour } = ctx.settings.get();
    await enforceRate(ctx, `create:${actor.user.id}`, userCanvasCreatesPerHour, 'error', 3600_000);
    const key = newCanvasKey();
    const id = newId();
    const canvas = await withSlugConflicts(
      ctx.sql.write(function* () {
        // Slugs are claimed one at a time, and a person's count is checked with nobody else adding.
        yield* tx.lock('canvas-slugs');
        if ((yield* canvasRows.ownedCount(actor.user.id)) >= userCanvases) throw canvasQuotaExceeded(userCanvases);
        let slug: string;
        if (given !== null) {
          if (yield* canvasRows.slugTaken(given)) throw slugTaken();
          slug = given;
        } else {
          slug = '';
          for (const candidate of slugCandidates(title, () => newId().slice(0, 6), hostLabels)) {
            if (!(yield* canvasRows.slugTaken(candidate))) {
              slug = candidate;
              break;
            }
          }
        }
        return yield* canvasRows.insert({
          id,
          slug,
          title,
          ownerId: actor.user.id,
          keyHash: key.hash,
          publicationToken: newToken(),
          now: ctx.now(),
        });
      }),
    );
    await ctx.audit.record({
      actorId: actor.user.id,
      actorKind: 'user',
      canvasId: canvas.id,
      action: 'canvas.create',
      detail: { fields: input.slug === undefined ? ['title'] : ['title', 'slug'] },
    });
    return { canvas, role: 'owner', apiKey: key.key };
  }

  /** Canvases the actor owns or is on the list of (any role), newest first. */
  async list(actor: Actor): Promise<CanvasWithRole[]> {
    const canvases = await this.deps.canvases.listFor(actor.user.id);
    return Promise.all(canvases.map(async (canvas) => ({ canvas, role: (await viewRoleFor(this.deps, actor, canvas)) ?? 'viewer' })));
  }

  async get(actor: Actor, id: string): Promise<CanvasWithRole> {
    const m = await managedCanvas(this.deps, actor, id, 'manage');
    return { canvas: m.canvas, role: m.viewRole };
  }

  /** Changes the canvas's settings; owners, editors and admins (service workers: owners and admins). */
  async update(actor: Actor, id: string, patch: CanvasPatch): Promise<CanvasWithRole> {
    const ctx = this.deps;
    const m = await managedCanvas(ctx, actor, id, patch.serviceWorkers !== undefined ? 'own' : 'manage');
    const fields = (Object.keys(patch) as Array<keyof CanvasPatch>).filter((k) => patch[k] !== undefined);
    if (fields.length === 0) return { canvas: m.canvas, role: m.viewRole };

    const title = patch.title === undefined ? undefined : cleanTitle(patch.title);
    const slug = patch.slug === undefined ? undefined : checkSlug(patch.slug, reservedHostLabels(ctx.config));
    if (patch.accessMode !== undefined && patch.accessMode !== m.canvas.accessMode)
      await this.checkAccessGates(m.canvas.ownerId, patch.accessMode);
    if (typeof patch.password === 'string' && (patch.password.length < 1 || patch.password.length > PASSWORD_MAX)) {
      throw new AppError('INVALID_BODY', `password: 1-${PASSWORD_MAX} characters`);
    }
    // Hashing is slow on purpose: do it before the write transaction, never inside.
    const passwordHash =
      typeof patch.password === 'string' ? await Bun.password.hash(patch.password, { algorithm: 'argon2id' }) : patch.password;

    const canvas = await withSlugConflicts(
      ctx.sql.write(function* () {
        if (slug !== undefined) yield* tx.lock('canvas-slugs');
        yield* tx.lock('canvas', id);
        const current = yield* canvasRows.byId(id);
        if (!current) throw new AppError('NOT_FOUND', 'canvas not found');
        if (slug !== undefined && slug !== current.slug && (yield* canvasRows.slugTaken(slug))) throw slugTaken();
        yield* canvasRows.update(
          id,
          {
            title,
            slug,
            access_mode: patch.accessMode,
            password_hash: passwordHash,
            // The gate cookie binds to this: any set or clear invalidates passes given before.
            password_version: passwordHash === undefined ? undefined : current.passwordVersion + 1,
            expires_at: patch.expiresAt,
            service_workers: patch.serviceWorkers === undefined ? undefined : patch.serviceWorkers ? 1 : 0,
          },
          ctx.now(),
        );
        return (yield* canvasRows.byId(id))!;
      }),
    );
    if (fields.some((f) => f !== 'title')) ctx.events.emit('canvas.access-changed', { canvasId: id });
    await ctx.audit.record({ actorId: actor.user.id, actorKind: actorKind(m), canvasId: id, action: 'canvas.update', detail: { fields } });
    return { canvas, role: m.viewRole };
  }

  /** The instance and owner rules for a rung, for a canvas owned by `ownerId`. */
  async checkAccessGates(ownerId: string, mode: AccessMode): Promise<void> {
    const owner = await this.deps.users.byId(ownerId);
    if (mode === 'whole_org' && this.deps.config.tenancy && !owner?.orgId) {
      throw new AppError('ORG_REQUIRED', "whole_org needs the owner's home organization; an admin sets it");
    }
    if (mode === 'public_link') {
      if (!this.deps.settings.get().publicLinks)
        throw new AppError('PUBLIC_LINKS_DISABLED', 'public links are switched off on this instance');
      if (!owner?.canPublishPublic) throw new AppError('PUBLIC_NOT_ALLOWED', "the owner's account may not publish public links");
    }
  }

  /** Issues a new deploy key; the old one stops working at once. Owner or admin. */
  async regenerateKey(actor: Actor, id: string): Promise<{ apiKey: string }> {
    const ctx = this.deps;
    const m = await managedCanvas(ctx, actor, id, 'own');
    const key = newCanvasKey();
    await ctx.canvases.update(id, { key_hash: key.hash }, ctx.now());
    await ctx.audit.record({ actorId: actor.user.id, actorKind: actorKind(m), canvasId: id, action: 'canvas.key.regenerate' });
    return { apiKey: key.key };
  }

  /** Archive (true) or restore (false). Owner or admin. Repeating it changes nothing. */
  async setArchived(actor: Actor, id: string, archived: boolean): Promise<CanvasWithRole> {
    const ctx = this.deps;
    const m = await managedCanvas(ctx, actor, id, 'own');
    const changed = archived !== (m.canvas.archivedAt !== null);
    if (changed) {
      await ctx.canvases.update(id, { archived_at: archived ? ctx.now() : null }, ctx.now());
      ctx.events.emit('canvas.access-changed', { canvasId: id });
    }
    await ctx.audit.record({
      actorId: actor.user.id,
      actorKind: actorKind(m),
      canvasId: id,
      action: archived ? 'canvas.archive' : 'canvas.restore',
    });
    return { canvas: (await ctx.canvases.byId(id))!, role: m.viewRole };
  }

  /** Soft delete: the canvas vanishes everywhere (its slug is free again). Owner or admin. */
  async delete(actor: Actor, id: string): Promise<void> {
    const ctx = this.deps;
    const m = await managedCanvas(ctx, actor, id, 'own');
    await ctx.canvases.update(id, { deleted_at: ctx.now() }, ctx.now());
    ctx.events.emit('canvas.access-changed', { canvasId: id });
    ctx.events.emit('canvas.deleted', { canvasId: id });
    await ctx.audit.record({ actorId: actor.user.id, actorKind: actorKind(m), canvasId: id, action: 'canvas.delete' });
  }
}
