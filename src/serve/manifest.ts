import { LruCache } from '../cache/lru.ts';
import type { Sql } from '../db/sql.ts';

export interface ManifestFile {
  hash: string;
  size: number;
  /** Computed at deploy time (src/deploy/mime.ts); served as stored. */
  mime: string;
}

/** One live version's files, as page serving needs them. */
export interface Manifest {
  canvasId: string;
  versionId: string;
  files: Map<string, ManifestFile>;
  /** The one HTML file when the version has exactly one (it then answers at the root). */
  singleHtml: string | null;
}

const HTML = /\.html?$/i;

/**
 * The live manifest per canvas, in memory: a page view costs one Map lookup
 * instead of a query. Entries are checked against the canvas row's
 * current_version_id on every use (a mismatch reloads) and dropped on the
 * canvas events, so a deploy or unpublish shows at once. Bounded: the least
 * recently loaded canvas goes first.
 */
export class ManifestCache {
  private readonly bySlug: LruCache<string, Manifest>;

  constructor(
    private readonly sql: Sql,
    maxCanvases = 256,
  ) {
    this.bySlug = new LruCache({ maxEntries: maxCanvases });
  }

  /** Most page views: the manifest is held, and answered without a wait. */
  get(slug: string, canvasId: string, versionId: string): Manifest | Promise<Manifest> {
    const hit = this.bySlug.peek(slug);
    if (hit && hit.canvasId === canvasId && hit.versionId === versionId) return hit;
    // Whatever another load stored meanwhile, every use checks the version id again.
    return this.load(canvasId, versionId).then((manifest) => {
      this.bySlug.set(slug, manifest);
      return manifest;
    });
  }

  /**
   * A kept version's files by its number (issue 40's version addresses), or
   * null when the canvas has no such ready version. Held under its own key
   * beside the live one; versions never change, and a pruned one is no longer found.
   */
  async version(slug: string, canvasId: string, number: number): Promise<Manifest | null> {
    const row = await this.sql.get<{ id: string }>(
      "SELECT id FROM versions WHERE canvas_id = ?1 AND number = ?2 AND status = 'ready'",
      canvasId,
      number,
    );
    return row ? this.get(`${slug}/v${number}`, canvasId, row.id) : null;
  }

  invalidate(canvasId: string): void {
    for (const [slug, m] of this.bySlug.entries()) if (m.canvasId === canvasId) this.bySlug.delete(slug);
  }

  get size(): number {
    return this.bySlug.size;
  }

  private async load(canvasId: string, versionId: string): Promise<Manifest> {
    const rows = await this.sql.all<{ path: string; hash: string; size: number; mime: string }>(
      'SELECT path, hash, size, mime FROM version_files WHERE version_id = ?1',
      versionId,
    );
    const files = new Map<string, ManifestFile>();
    const html: string[] = [];
    for (const r of rows) {
      files.set(r.path, { hash: r.hash, size: r.size, mime: r.mime });
      if (HTML.test(r.path)) html.push(r.path);
    }
    return { canvasId, versionId, files, singleHtml: html.length === 1 ? html[0]! : null };
  }
}
