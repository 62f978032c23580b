// The gallery (spec "galleryListed, galleryTemplatable"): canvases their
// owners and editors list for everyone who may open them, searchable; a
// templatable one can be copied, live version and all, into a new canvas of
// the person using it. Listing needs a published canvas; unpublishing unlists.
import { containsPattern } from '../db/like.ts';
import { findsNothing } from '../db/unstorable-text.ts';
import type { Principal } from '../auth/principal.ts';
import type { AccessResolver } from '../canvases/access-resolver.ts';
import { managedCanvas, type Actor } from '../canvases/authority.ts';
import { statusOf, type Canvas } from '../canvases/record.ts';
import type { CanvasService } from '../canvases/service.ts';
import { canvasUrl } from '../canvases/url.ts';
import type { Core } from '../foundation.ts';
import { publishVersion } from '../deploy/publish.ts';
import type { VersionStore } from '../deploy/version-store.ts';
import { tx, type TxSteps } from '../db/sql.ts';
import { AppError } from '../errors.ts';

export interface GallerySettings {
  listed: boolean;
  templatable: boolean;
}

export interface GalleryEntry {
  id: string;
  slug: string;
  title: string;
  url: string;
  ownerName: string;
  templatable: boolean;
  hasPassword: boolean;
}

const notInGallery = () => new AppError('NOT_FOUND', 'no such canvas in the gallery');

/** What the gallery uses: storage, who may open a canvas, canvas creation and publishing, and the deploy feature's versions. */
export interface GalleryDeps {
  ctx: Pick<Core, 'config' | 'sql' | 'now' | 'audit' | 'canvases' | 'users' | 'settings' | 'events' | 'blobGc' | 'log'>;
  access: AccessResolver;
  /** A copy starts from the source's live files. */
  versions: VersionStore;
  /** A copy is a new canvas, made as canvas management makes one (quota, rate, audit). */
  canvasService: Pick<CanvasService, 'create'>;
}

export class Gallery {
  private readonly ctx: GalleryDeps['ctx'];
  private readonly access: AccessResolver;
  private readonly versions: VersionStore;
  private readonly canvasService: GalleryDeps['canvasService'];

  constructor({ ctx, access, versions, canvasService }: GalleryDeps) {
    this.ctx = ctx;
    this.access = access;
    this.versions = versions;
    this.canvasService = canvasService;
  }

  async settings(actor: Actor, id: string): Promise<GallerySettings> {
    const { canvas } = await managedCanvas(this.ctx, actor, id, 'manage');
    return this.ctx.sql.autocommit(() => settingsOf(canvas.id));
  }

  /** Owners, editors and admins; listing needs a live version (there is nothing to show otherwise). */
  async set(actor: Actor, id: string, patch: Partial<GallerySettings>): Promise<GallerySettings> {
    const m = await managedCanvas(this.ctx, actor, id, 'manage');
    if (patch.listed === true && m.canvas.currentVersionId === null)
      throw new AppError('NOT_PUBLISHED', 'only a published canvas can be listed in the gallery: deploy it first');
    const next = await this.ctx.sql.write(function* () {
      // Two changes at once each keep the other's half.
      yield* tx.lock('canvas', m.canvas.id);
      const merged = { ...(yield* settingsOf(m.canvas.id)), ...patch };
      yield* tx.run(
        'UPDATE canvases SET gallery_listed = ?1, gallery_templatable = ?2 WHERE id = ?3',
        merged.listed ? 1 : 0,
        merged.templatable ? 1 : 0,
        m.canvas.id,
      );
      return merged;
    });
    await this.ctx.audit.record({
      actorId: actor.user.id,
      actorKind: m.asAdmin ? 'admin' : 'user',
      canvasId: m.canvas.id,
      action: 'canvas.gallery',
      detail: { listed: next.listed, templatable: next.templatable },
    });
    return next;
  }

  /** Listed, live canvases this person may open, matching `query` in the title (newest first, at most `limit`). */
  async list(user: Principal & { kind: 'user' }, query: string, limit = 100): Promise<GalleryEntry[]> {
    if (findsNothing(query)) return [];
    const like = containsPattern(query);
    const ids = await this.ctx.sql.all<{ id: string; gallery_templatable: number }>(
      `SELECT id, gallery_templatable FROM canvases
       WHERE gallery_listed = 1 AND current_version_id IS NOT NULL AND deleted_at IS NULL AND easel_fold(title) LIKE ?1 ESCAPE '\\'
       ORDER BY updated_at DESC, id LIMIT 1000`,
      like,
    );
    const out: GalleryEntry[] = [];
    for (const row of ids) {
      const canvas = await this.ctx.canvases.byId(row.id);
      if (!canvas || statusOf(canvas) !== 'active' || !(await this.access.mayOpen(canvas, user))) continue;
      out.push(await this.entry(canvas, row.gallery_templatable === 1));
      if (out.length >= limit) break;
    }
    return out;
  }

  /**
   * The live canvas `actor` may make a copy of: listed, open to them (else 404,
   * as if it were not in the gallery) and offered as a template (else 403).
   * The route asks this before it reads the body, and useTemplate again.
   */
  async template(actor: Actor, id: string): Promise<Canvas & { currentVersionId: string }> {
    const source = await this.ctx.canvases.byId(id);
    if (!source || source.deletedAt !== null || statusOf(source) !== 'active' || source.currentVersionId === null) throw notInGallery();
    const settings = await this.ctx.sql.autocommit(() => settingsOf(source.id));
    if (!settings.listed || !(await this.access.mayOpen(source, { kind: 'user', user: actor.user, via: 'session' }))) throw notInGallery();
    if (!settings.templatable)
      throw new AppError('PERMISSION_DENIED', 'this canvas is in the gallery but its owner has not offered it as a template');
    return { ...source, currentVersionId: source.currentVersionId };
  }

  /**
   * A new canvas of `actor` holding the template's live files (the blobs are
   * shared, nothing is copied), under the usual creation quota and rate.
   * Answers the new canvas and its deploy key (shown once).
   */
  async useTemplate(actor: Actor, id: string, title: string | undefined): Promise<{ canvas: Canvas; apiKey: string }> {
    const source = await this.template(actor, id);
    const files = (await this.versions.files(source.currentVersionId)).map(({ path, hash, size, mime }) => ({
      path,
      hash,
      size,
      mime,
    }));
    const made = await this.canvasService.create(actor, { title: title?.trim() || `${source.title} (copy)` });
    await publishVersion(this.ctx, made.canvas.id, files, {
      source: 'api',
      warnings: [],
      releaseId: null,
      expectedPublicationToken: null,
      actor: { id: actor.user.id, kind: 'user' },
    });
    await this.ctx.audit.record({
      actorId: actor.user.id,
      actorKind: 'user',
      canvasId: made.canvas.id,
      action: 'canvas.from-template',
      detail: { template: source.id },
    });
    return { canvas: (await this.ctx.canvases.byId(made.canvas.id))!, apiKey: made.apiKey };
  }

  private async entry(canvas: Canvas, templatable: boolean): Promise<GalleryEntry> {
    const owner = await this.ctx.users.byId(canvas.ownerId);
    return {
      id: canvas.id,
      slug: canvas.slug,
      title: canvas.title,
      url: canvasUrl(this.ctx.config, canvas.slug),
      ownerName: owner?.name || owner?.email || '',
      templatable,
      hasPassword: canvas.hasPassword,
    };
  }
}

function* settingsOf(canvasId: string): TxSteps<GallerySettings> {
  const row = yield* tx.get<{ gallery_listed: number; gallery_templatable: number }>(
    'SELECT gallery_listed, gallery_templatable FROM canvases WHERE id = ?1',
    canvasId,
  );
  return { listed: row?.gallery_listed === 1, templatable: row?.gallery_templatable === 1 };
}
