// Authoring (spec "Authoring behavior"): a canvas's page publishes canvases
// for the person using it. Each one is an ordinary canvas owned by that
// person, made and deployed through the same services as the dashboard and
// the Deploy API; this module adds the share rules, the quota, the
// AuthoredCanvas view and revocation. Plain arguments in, plain data out.
import type { AuthoredCanvas } from '../../sdk/wire.ts';
import { managedCanvas, type Actor } from '../canvases/authority.ts';
import type { AccessMode, Canvas } from '../canvases/record.ts';
import type { CanvasPatch, CanvasService } from '../canvases/service.ts';
import { canvasUrl } from '../canvases/url.ts';
import type { Core } from '../foundation.ts';
import type { DeployFeature } from '../deploy/feature.ts';
import { validateCoordination } from '../deploy/publish.ts';
import { AppError, authoringQuotaSpent, disabledShare } from '../errors.ts';
import { checkExpiry, checkRung, normalizeAccess, type CreateMetadata, type UpdateMetadata } from './model.ts';
import type { AuthoredRecord, AuthoringAccess, AuthoringStore } from './store.ts';

export type AuthoredCanvasView = AuthoredCanvas;
export type PublicationStatus = AuthoredCanvas['publicationStatus'];
type ManagerRole = AuthoredCanvas['viewerRole'];

export interface AuthoredSummary {
  sourceCanvasId: string;
  sourceApp: string | null;
  sourceKind: string | null;
  createdBy: string;
  publicationStatus: PublicationStatus;
  revokedAt: number | null;
}

export interface AuthoringCaller {
  actor: Actor;
  /** The canvas whose page publishes. */
  sourceCanvasId: string;
}

export interface ListFilters {
  sourceApp?: string;
  sourceKind?: string;
  /** All must match. */
  tags?: string[];
}

const ACCESS_MODE: Record<AuthoringAccess, AccessMode> = {
  private: 'restricted',
  whole_org: 'whole_org',
  public_link: 'public_link',
  password: 'public_link',
};
const AUDIENCE_NAMES = 5;

export class AuthoringService {
  constructor(
    private readonly ctx: Pick<Core, 'audit' | 'blobs' | 'canvases' | 'config' | 'now'>,
    private readonly store: AuthoringStore,
    /** A page's bundle is published, and a revoked canvas unpublished, through the deploy feature. */
    private readonly deploy: Pick<DeployFeature, 'deployZip' | 'unpublish'>,
    /** Canvases are made and their shares changed through canvas management (its gates, quota and rate). */
    private readonly canvasService: Pick<CanvasService, 'create' | 'update' | 'checkAccessGates'>,
  ) {}

  /**
   * POST: checks everything it can before the canvas exists (the metadata,
   * the gates on the resulting share, the quota), then creates it (counted
   * at once), deploys `bundle` and applies the share. A step after creation
   * that fails answers 502 PUBLISH_FAILED with the canvas id.
   */
  async create(caller: AuthoringCaller, meta: CreateMetadata, bundle: AsyncIterable<Uint8Array>): Promise<AuthoredCanvasView> {
    const { actor } = caller;
    const now = this.ctx.now();
    const access = normalizeAccess(meta.access) ?? 'private';
    await this.checkShare(
      actor.user.id,
      'owner',
      access,
      { password: meta.password !== undefined, expiresAt: meta.expiresAt ?? null },
      meta.expiresAt,
      now,
    );
    const { authoringUserDailyMax, authoringUserTotalMax } = this.ctx.config;
    const claimed = await this.store.claimCreation(actor.user.id, now, { daily: authoringUserDailyMax, total: authoringUserTotalMax });
    if (claimed === 'user_daily') throw authoringQuotaSpent('user_daily', authoringUserDailyMax);
    if (claimed === 'user_total') throw authoringQuotaSpent('user_total', authoringUserTotalMax);
    let canvas: Canvas;
    try {
      // A nearly full disk refuses before the canvas exists (its claim is dropped: it counts for nothing).
      this.ctx.blobs.ensureRoom();
      ({ canvas } = await this.canvasService.create(actor, { title: meta.title, slug: meta.slug }));
    } catch (err) {
      await this.store.dropClaim(claimed.claim);
      throw err;
    }
    await this.store.settleClaim(claimed.claim, canvas.id);
    await this.store.insert({
      canvasId: canvas.id,
      sourceCanvasId: caller.sourceCanvasId,
      createdBy: actor.user.id,
      access,
      tags: meta.tags ?? [],
      metadata: meta.metadata ?? {},
      revokedAt: null,
    });
    try {
      await this.deploy.deployZip(canvas, bundle, validateCoordination({}));
      await this.applyShare(actor, canvas.id, { accessMode: ACCESS_MODE[access], password: meta.password, expiresAt: meta.expiresAt });
    } catch (err) {
      if (err instanceof AppError && err.status === 413)
        throw new AppError(err.errorCode, err.message, { ...err.extra, id: canvas.id }, { status: 413 });
      throw new AppError('PUBLISH_FAILED', `the canvas was created but could not be published: ${reasonOf(err)}`, { id: canvas.id });
    }
    return this.view(actor, (await this.ctx.canvases.byId(canvas.id))!);
  }

  /**
   * PUT: owner, editor or admin of `id` (404 otherwise). Settings first,
   * then the bundle (a new version at the same URL); a deploy that fails
   * after the settings were saved is 502 UPDATE_PARTIAL with `stage` and
   * `current`.
   */
  async update(
    caller: AuthoringCaller,
    id: string,
    meta: UpdateMetadata,
    bundle: AsyncIterable<Uint8Array> | null,
  ): Promise<AuthoredCanvasView> {
    const { actor } = caller;
    const { canvas, record, role } = await this.managed(actor, id);
    if (bundle === null && record.revokedAt !== null)
      throw new AppError('SHARE_REVOKED', 'this share was revoked: publish a bundle to share it again');
    if (meta.expectedUpdatedAt !== undefined && meta.expectedUpdatedAt !== canvas.updatedAt) {
      throw new AppError('SHARE_CONFLICT', 'the share changed since you read it', { current: await this.view(actor, canvas) });
    }
    const now = this.ctx.now();
    const access = normalizeAccess(meta.access) ?? record.access;
    // The gates apply to the state the share will be in: a password set now or kept, an expiry set now or kept.
    const resulting = {
      password: meta.password === undefined ? canvas.hasPassword : meta.password !== null,
      expiresAt: meta.expiresAt === undefined ? canvas.expiresAt : meta.expiresAt,
    };
    await this.checkShare(canvas.ownerId, role, access, resulting, meta.expiresAt, now);

    const patch: CanvasPatch = { title: meta.title, password: meta.password, expiresAt: meta.expiresAt };
    if (meta.access !== undefined) patch.accessMode = ACCESS_MODE[access];
    await this.applyShare(actor, canvas.id, patch, role);
    await this.store.update(canvas.id, {
      access: meta.access !== undefined ? access : undefined,
      tags: meta.tags,
      metadata: meta.metadata,
    });

    if (bundle !== null) {
      try {
        await this.deploy.deployZip((await this.ctx.canvases.byId(canvas.id))!, bundle, validateCoordination({}));
      } catch (err) {
        if (err instanceof AppError && err.status === 413) throw err;
        const current = await this.view(actor, (await this.ctx.canvases.byId(canvas.id))!);
        throw new AppError('UPDATE_PARTIAL', `the settings were saved but the bundle was not published: ${reasonOf(err)}`, {
          stage: 'deploy',
          current,
        });
      }
      if (record.revokedAt !== null) {
        // Published again: a publish after unpublish comes back Restricted, so the share's rung is applied again.
        await this.store.update(canvas.id, { revokedAt: null });
        await this.applyShare(actor, canvas.id, { accessMode: ACCESS_MODE[access] }, role);
      }
    }
    return this.view(actor, (await this.ctx.canvases.byId(canvas.id))!);
  }

  /** GET: what the caller authored and still manages as owner or editor, every state but deleted. */
  async list(actor: Actor, filters: ListFilters): Promise<AuthoredCanvasView[]> {
    const out: AuthoredCanvasView[] = [];
    for (const record of await this.store.managedBy(actor.user.id)) {
      const canvas = await this.ctx.canvases.byId(record.canvasId);
      if (!canvas) continue;
      const view = await this.viewOf(actor, canvas, record);
      if (filters.sourceApp !== undefined && view.sourceApp !== filters.sourceApp) continue;
      if (filters.sourceKind !== undefined && view.sourceKind !== filters.sourceKind) continue;
      if (filters.tags && !filters.tags.every((t) => view.tags.includes(t))) continue;
      out.push(view);
    }
    return out;
  }

  /** DELETE: the URL stops serving, revokedAt is set, the record stays listed (unpublished). */
  async revoke(actor: Actor, id: string): Promise<void> {
    const { canvas, record } = await this.managed(actor, id);
    if (canvas.archivedAt !== null) throw new AppError('NOT_FOUND', 'canvas not found');
    if (canvas.currentVersionId !== null) await this.deploy.unpublish(canvas, { id: actor.user.id, kind: 'user' });
    if (record.revokedAt === null) await this.store.update(canvas.id, { revokedAt: this.ctx.now() });
    await this.ctx.audit.record({ actorId: actor.user.id, actorKind: 'user', canvasId: canvas.id, action: 'authoring.revoke', detail: {} });
  }

  /** PUT's first check, before the body: 404 for a canvas the actor may not manage, 409 when disabled. */
  async reachable(actor: Actor, id: string): Promise<void> {
    await this.managed(actor, id);
  }

  /** A known authored canvas the actor manages (owner, editor, or admin); 404 otherwise, 409 DISABLED when an admin disabled it. */
  private async managed(actor: Actor, id: string): Promise<{ canvas: Canvas; record: AuthoredRecord; role: ManagerRole }> {
    const m = await managedCanvas(this.ctx, actor, id, 'manage');
    const record = await this.store.byCanvas(id);
    if (!record) throw new AppError('NOT_FOUND', 'canvas not found');
    if (m.canvas.disabledAt !== null) throw disabledShare();
    // managedCanvas answers managers and admins only: never `viewer`.
    return { canvas: m.canvas, record, role: m.viewRole as ManagerRole };
  }

  /**
   * The share rules on the state it will be in: the instance's rungs, a
   * password for `password` access, the expiry rules, and the owner's gates
   * (org, public links). An editor asking a Public link of an owner who may
   * not publish one is told so (PUBLIC_LINK_OWNER_GATED).
   */
  private async checkShare(
    ownerId: string,
    role: ManagerRole,
    access: AuthoringAccess,
    resulting: { password: boolean; expiresAt: number | null },
    givenExpiry: number | null | undefined,
    now: number,
  ): Promise<void> {
    checkRung(this.ctx.config, access);
    if (access === 'password' && !resulting.password) throw new AppError('INVALID_BODY', 'password: required when access is "password"');
    checkExpiry(this.ctx.config, givenExpiry, resulting.expiresAt, now);
    try {
      await this.canvasService.checkAccessGates(ownerId, ACCESS_MODE[access]);
    } catch (err) {
      throw ownerGated(err, role);
    }
  }

  /** The share settings through the management service (its gates: org, public links, the owner's right). */
  private async applyShare(actor: Actor, id: string, patch: CanvasPatch, role: ManagerRole = 'owner'): Promise<void> {
    try {
      await this.canvasService.update(actor, id, patch);
    } catch (err) {
      throw ownerGated(err, role);
    }
  }

  /** For the management views: where an authored canvas came from, and where it stands (null for other canvases). */
  async summaryOf(canvas: Canvas): Promise<AuthoredSummary | null> {
    const record = await this.store.byCanvas(canvas.id);
    return record ? this.summary(canvas, record) : null;
  }

  /** summaryOf for every canvas in `userId`'s list, read at once (the home list). */
  async summariesListedFor(userId: string): Promise<(canvas: Canvas) => AuthoredSummary | null> {
    const records = await this.store.listedFor(userId);
    return (canvas) => {
      const record = records.get(canvas.id);
      return record ? this.summary(canvas, record) : null;
    };
  }

  private summary(canvas: Canvas, record: AuthoredRecord): AuthoredSummary {
    return {
      sourceCanvasId: record.sourceCanvasId,
      ...sourceOf(record),
      createdBy: record.createdBy,
      publicationStatus: publicationStatus(canvas, record, this.ctx.now()),
      revokedAt: record.revokedAt,
    };
  }

  async view(actor: Actor, canvas: Canvas): Promise<AuthoredCanvasView> {
    const record = await this.store.byCanvas(canvas.id);
    if (!record) throw new AppError('NOT_FOUND', 'canvas not found');
    return this.viewOf(actor, canvas, record);
  }

  private async viewOf(actor: Actor, canvas: Canvas, record: AuthoredRecord): Promise<AuthoredCanvasView> {
    const now = this.ctx.now();
    const expired = canvas.expiresAt !== null && canvas.expiresAt <= now;
    const [role, members] = await Promise.all([this.ctx.canvases.roleOf(canvas, actor.user.id), this.ctx.canvases.members(canvas.id)]);
    return {
      id: canvas.id,
      url: canvasUrl(this.ctx.config, canvas.slug),
      title: canvas.title,
      tags: record.tags,
      access: record.access,
      accessMode: canvas.accessMode,
      publicationStatus: publicationStatus(canvas, record, now),
      hasPassword: canvas.hasPassword,
      status: record.revokedAt !== null ? 'revoked' : expired ? 'expired' : record.access === 'private' ? 'private' : 'live',
      createdAt: canvas.createdAt,
      updatedAt: canvas.updatedAt,
      expiresAt: canvas.expiresAt,
      revokedAt: record.revokedAt,
      galleryListed: false,
      galleryTemplatable: false,
      discoverability: 'none',
      createdBy: record.createdBy,
      viewerRole: role === 'owner' || role === 'editor' ? role : 'admin',
      audienceSummary: { count: members.length, names: members.slice(0, AUDIENCE_NAMES).map((m) => m.name || m.email) },
      version: canvas.currentVersionId,
      bundleUpdatedAt: canvas.updatedAt,
      ...sourceOf(record),
      metadata: record.metadata,
    };
  }
}

/** Spec "Authored canvas publicationStatus": first match wins. */
export function publicationStatus(canvas: Canvas, record: Pick<AuthoredRecord, 'revokedAt'>, now: number): PublicationStatus {
  if (canvas.disabledAt !== null) return 'disabled';
  if (canvas.archivedAt !== null) return 'archived';
  if (record.revokedAt !== null) return 'unpublished';
  if (canvas.currentVersionId === null) return 'draft';
  if (canvas.expiresAt !== null && canvas.expiresAt <= now) return 'expired';
  return 'published';
}

/** PUBLIC_NOT_ALLOWED speaks of the caller's own account: to an editor or admin it is the owner's gate. */
function ownerGated(err: unknown, role: ManagerRole): unknown {
  if (err instanceof AppError && err.errorCode === 'PUBLIC_NOT_ALLOWED' && role !== 'owner') {
    return new AppError('PUBLIC_LINK_OWNER_GATED', "this canvas's owner may not publish public links");
  }
  return err;
}

/** `metadata.sourceApp` and `metadata.sourceKind` when they are strings (listed and filterable). */
function sourceOf(record: Pick<AuthoredRecord, 'metadata'>): { sourceApp: string | null; sourceKind: string | null } {
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  return { sourceApp: text(record.metadata.sourceApp), sourceKind: text(record.metadata.sourceKind) };
}

function reasonOf(err: unknown): string {
  if (err instanceof AppError) return `${err.errorCode}: ${err.message}`;
  return 'an internal error (see the server log)';
}
