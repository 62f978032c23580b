// Read-back shapes of the Deploy API (spec "Canvas (Deploy API read)",
// "Version (list entry)", "Read-back file listing entry"), over the deploy
// feature's one VersionStore.
import type { BlobStore } from '../blobs/store.ts';
import type { Canvas } from '../canvases/record.ts';
import { composedPath } from '../canvases/file-path.ts';
import { canvasUrl } from '../canvases/url.ts';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import { versionUrl } from './publish.ts';
import type { VersionFileRecord, VersionStore } from './version-store.ts';

/** What the read-back views read: the URLs' settings, the versions, and the files' bytes. */
export interface DeployViewsDeps {
  config: Pick<Config, 'urlMode' | 'baseUrl' | 'canvasHost'>;
  versions: VersionStore;
  blobs: BlobStore;
}

export class DeployViews {
  constructor(private readonly deps: DeployViewsDeps) {}

  async canvas(canvas: Canvas) {
    const live = canvas.currentVersionId === null ? null : await this.deps.versions.byId(canvas.currentVersionId);
    return {
      id: canvas.id,
      slug: canvas.slug,
      url: canvasUrl(this.deps.config, canvas.slug),
      title: canvas.title,
      // A key resolves only active canvases.
      status: 'active' as const,
      publicationState: live ? ('published' as const) : ('draft' as const),
      accessMode: canvas.accessMode,
      currentVersionId: live?.id ?? null,
      publicationToken: canvas.publicationToken,
      currentVersion: live ? { id: live.id, number: live.number, releaseId: live.releaseId, createdAt: live.createdAt } : null,
    };
  }

  async versionList(canvas: Canvas) {
    const url = canvasUrl(this.deps.config, canvas.slug);
    return {
      versions: (await this.deps.versions.list(canvas.id)).map((v) => ({
        id: v.id,
        number: v.number,
        source: v.source,
        status: v.status,
        createdBy: v.createdBy,
        createdAt: v.createdAt,
        fileCount: v.fileCount,
        totalBytes: v.totalBytes,
        releaseId: v.releaseId,
        current: v.id === canvas.currentVersionId,
        preview: v.preview,
        previewUrl: versionUrl(url, v.number),
        warnings: v.warnings,
      })),
    };
  }

  async fileListing(canvas: Canvas) {
    const live = await this.deps.versions.byId(liveVersionId(canvas));
    if (!live) throw new AppError('NOT_PUBLISHED', 'the canvas has no live version');
    const files = (await this.deps.versions.files(live.id)).map(({ path, size, mime, hash }) => ({ path, size, mime, hash }));
    return { version: live.number, fileCount: files.length, files };
  }

  /** One file of the live manifest; 404 NOT_FOUND when the path is not in it. */
  async liveFile(canvas: Canvas, path: string): Promise<VersionFileRecord> {
    const file = await this.deps.versions.file(liveVersionId(canvas), composedPath(path));
    if (!file) throw new AppError('NOT_FOUND', 'no file with this path in the live version', { path });
    return file;
  }

  /** GET …/files?path=: one live file's bytes (readBackResponse). */
  async liveFileResponse(canvas: Canvas, path: string): Promise<Response> {
    return readBackResponse(this.deps.blobs, await this.liveFile(canvas, path));
  }
}

function liveVersionId(canvas: Canvas): string {
  if (canvas.currentVersionId === null) throw new AppError('NOT_PUBLISHED', 'the canvas has no live version');
  return canvas.currentVersionId;
}

/**
 * A stored file's bytes as an API answer (the live files' read-back, the
 * editor's files): never runnable as a page on the API's or the dashboard's
 * origin, never sniffed, never kept.
 */
export async function readBackResponse(blobs: BlobStore, file: { hash: string; size: number; mime: string }): Promise<Response> {
  if (!(await blobs.local(file.hash))) throw new Error(`blob ${file.hash} is missing`);
  return new Response(blobs.file(file.hash), {
    headers: {
      'content-type': file.mime,
      'content-length': String(file.size),
      etag: `"${file.hash}"`,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "sandbox; default-src 'none'",
    },
  });
}
