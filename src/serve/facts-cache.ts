import type { Canvas, CanvasRole } from '../canvases/record.ts';
import type { AppContext } from '../context.ts';
import { ownerFacts, type OwnerFacts } from './access-facts.ts';
import { DataVersion } from '../db/data-version.ts';
import { VersionedCache } from '../db/versioned-cache.ts';

export interface CanvasFacts {
  canvas: Canvas;
  owner: OwnerFacts;
}

/**
 * The database facts of a page view, from memory: the canvas by slug with its
 * owner's switches, and a user's role on it. A publication, a settings or
 * member change, a deactivated owner are all writes to the tables DataVersion
 * watches, so they show on the very next request. Unknown slugs are not
 * remembered (a canvas created later must be found). Cached canvases are
 * shared between requests: read them, never change them.
 */
export class AccessFactsCache {
  private readonly canvases: VersionedCache<CanvasFacts | null>;
  private readonly roles: VersionedCache<CanvasRole | null>;

  constructor(private readonly ctx: AppContext) {
    const version = DataVersion.of(ctx.db);
    this.canvases = new VersionedCache(version, ctx.now, 1024);
    this.roles = new VersionedCache(version, ctx.now, 10_000);
  }

  bySlug(slug: string): CanvasFacts | null {
    return this.canvases.get(
      slug,
      () => {
        const canvas = this.ctx.canvases.bySlug(slug);
        return canvas ? { canvas, owner: ownerFacts(this.ctx, canvas) } : null;
      },
      (facts) => facts !== null,
    );
  }

  roleOf(canvas: Canvas, userId: string): CanvasRole | null {
    if (canvas.ownerId === userId) return 'owner';
    return this.roles.get(`${canvas.id} ${userId}`, () => this.ctx.canvases.roleOf(canvas, userId));
  }
}
