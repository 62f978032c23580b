// easel.canvases: authoring, a page publishing canvases for the person using
// it (the canvas must have authoring switched on). Bundles are ZIPs: a Blob
// or File, or `{path: content}` that the SDK zips in the browser.
import { Zip, ZipPassThrough } from 'fflate';
import { EaselError, errorFromResponse } from './errors.ts';
import type { Transport } from './request.ts';
import type { AuthoredCanvas } from './wire.ts';
export type { AuthoredCanvas } from './wire.ts';

/** `create`'s metadata: `title` is required; access defaults to `private`. */
export interface CreateCanvasMetadata {
  title: string;
  slug?: string;
  tags?: string[];
  access?: 'private' | 'whole_org' | 'public_link' | 'password';
  /** Required for `password` access. */
  password?: string;
  /** Epoch ms, in the future. */
  expiresAt?: number;
  /** Free-form, at most 16 KiB; `sourceApp` and `sourceKind` strings are listed and filterable. */
  metadata?: Record<string, unknown>;
}

/** `update`'s metadata: every field optional; null clears a password or an expiry. */
export interface UpdateCanvasMetadata {
  title?: string;
  tags?: string[];
  access?: 'private' | 'whole_org' | 'public_link' | 'password';
  password?: string | null;
  expiresAt?: number | null;
  metadata?: Record<string, unknown>;
  /** The `updatedAt` last read: a later change by someone else makes the update fail with SHARE_CONFLICT. */
  expectedUpdatedAt?: number;
}

/** Site files by path (`index.html` at the root), as text or bytes. */
export type BundleFiles = Record<string, string | Blob | Uint8Array>;

export interface CanvasesApi {
  /** Creates, publishes and shares a canvas owned by the person using this page. */
  create(metadata: CreateCanvasMetadata, bundle: Blob | BundleFiles): Promise<AuthoredCanvas>;
  /** New settings, and with a bundle a new version at the same URL. */
  update(id: string, metadata: UpdateCanvasMetadata, bundle?: Blob | BundleFiles): Promise<AuthoredCanvas>;
  /** What this person published through pages and still manages; `tags` must all match. */
  list(filters?: { sourceApp?: string; sourceKind?: string; tags?: string[] }): Promise<AuthoredCanvas[]>;
  /** Stops serving it; it stays listed as `unpublished` until a new bundle publishes it again. */
  revoke(id: string): Promise<void>;
  /** A ZIP of `files`, for when a page wants the bundle itself. */
  zip(files: BundleFiles): Promise<Blob>;
}

/**
 * Files by path, refused before anything is sent when they are not: a string
 * was zipped one character a file (`0`, `1`, …), and `{}` created a canvas
 * the server then could not publish.
 */
function checkedFiles(bundle: unknown): BundleFiles {
  if (typeof bundle !== 'object' || bundle === null || Array.isArray(bundle))
    throw new EaselError('INVALID_BODY', 400, 'a bundle is a ZIP (a Blob or File) or files by path: { "index.html": "<h1>Hi</h1>" }');
  const entries = Object.entries(bundle);
  if (entries.length === 0) throw new EaselError('EMPTY_DEPLOY', 400, 'the bundle holds no files: give at least index.html');
  for (const [path, content] of entries) {
    if (typeof content !== 'string' && !(content instanceof Blob) && !(content instanceof Uint8Array))
      throw new EaselError('INVALID_BODY', 400, `${path}: a file is text, a Blob or a Uint8Array`);
  }
  return bundle as BundleFiles;
}

export function createCanvases(t: Transport): CanvasesApi {
  const one = (id: string) => `/authoring/${encodeURIComponent(id)}`;
  const form = async (metadata: unknown, bundle: Blob | BundleFiles | undefined): Promise<FormData> => {
    const fd = new FormData();
    // The metadata first: the server checks it before it reads a byte of the bundle.
    fd.append('metadata', JSON.stringify(metadata));
    if (bundle !== undefined) fd.append('bundle', bundle instanceof Blob ? bundle : await zip(checkedFiles(bundle)), 'bundle.zip');
    return fd;
  };
  return Object.freeze({
    create: async (metadata: CreateCanvasMetadata, bundle: Blob | BundleFiles) =>
      t.request<AuthoredCanvas>('POST', '/authoring', { body: await form(metadata, bundle) }),
    update: async (id: string, metadata: UpdateCanvasMetadata, bundle?: Blob | BundleFiles) =>
      t.request<AuthoredCanvas>('PUT', one(id), { body: await form(metadata, bundle) }),
    list: async (filters: { sourceApp?: string; sourceKind?: string; tags?: string[] } = {}) =>
      (
        await t.request<{ canvases: AuthoredCanvas[] }>('GET', '/authoring', {
          query: { sourceApp: filters.sourceApp, sourceKind: filters.sourceKind, tags: filters.tags?.join(',') },
        })
      ).canvases,
    async revoke(id: string) {
      const res = await t.fetch('DELETE', one(id));
      if (!res.ok) throw await errorFromResponse(res);
    },
    zip: async (files: BundleFiles) => zip(checkedFiles(files)),
  });
}

/**
 * Entries are stored, not deflated (fflate's ZipPassThrough): a page's
 * generated files are small, and the SDK stays small without a compressor.
 */
async function zip(files: BundleFiles): Promise<Blob> {
  const chunks: Uint8Array[] = [];
  const archive = new Zip((err, chunk) => {
    if (err) throw err;
    chunks.push(chunk);
  });
  for (const [path, content] of Object.entries(files)) {
    const entry = new ZipPassThrough(path);
    archive.add(entry);
    const bytes =
      typeof content === 'string'
        ? new TextEncoder().encode(content)
        : content instanceof Blob
          ? new Uint8Array(await content.arrayBuffer())
          : content;
    entry.push(bytes, true);
  }
  archive.end();
  return new Blob(chunks as Uint8Array<ArrayBuffer>[], { type: 'application/zip' });
}
