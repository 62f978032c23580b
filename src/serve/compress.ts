import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { BlobStore } from '../blobs/store.ts';
import { LruCache } from '../cache/lru.ts';
import { newId } from '../ids.ts';

export type Encoding = 'br' | 'gzip';

/** A compressed copy on disk. */
export interface Variant {
  path: string;
  size: number;
}

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

/** Below this, compression saves less than the header and CPU it costs. */
export const MIN_COMPRESS_BYTES = 1024;
/** Up to this size the first request waits for compression; bigger blobs compress in the background. */
const INLINE_MAX_BYTES = 1024 * 1024;
/** Background compressions running at once (the machine serves pages meanwhile). */
const MAX_BACKGROUND = 2;

const COMPRESSIBLE =
  /^(?:text\/|application\/(?:javascript|ecmascript|json|ld\+json|manifest\+json|xml|xhtml\+xml|rss\+xml|atom\+xml|wasm|x-javascript|x-ndjson|geo\+json|graphql-response\+json|vnd\.ms-fontobject|x-font-ttf|x-web-app-manifest\+json)|image\/(?:svg\+xml|x-icon|vnd\.microsoft\.icon|bmp)|font\/(?:ttf|otf|collection)|[a-z]+\/[a-z0-9.+-]+\+(?:json|xml))/i;

/** Types worth compressing: text, scripts, data, SVG, WASM, uncompressed fonts. Images, video and archives already are. */
export function isCompressible(mime: string): boolean {
  return COMPRESSIBLE.test(mime);
}

/** Answers by header value: browsers send one of a handful, and parsing it was a tenth of a page view. */
const parsedAccepts = new LruCache<string, readonly Encoding[]>({ maxEntries: 256 });
const NONE: readonly Encoding[] = [];

/** The best encoding the client accepts (brotli first), honouring `q=0`. */
export function preferredEncodings(acceptEncoding: string | null): readonly Encoding[] {
  if (!acceptEncoding) return NONE;
  let parsed = parsedAccepts.peek(acceptEncoding);
  if (!parsed) {
    parsed = parseAcceptEncoding(acceptEncoding);
    parsedAccepts.set(acceptEncoding, parsed);
  }
  return parsed;
}

function parseAcceptEncoding(acceptEncoding: string): readonly Encoding[] {
  const q = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qp = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qp ? Number(qp.slice(2)) : 1;
    q.set(name, Number.isFinite(value) ? value : 0);
  }
  const accepts = (name: string) => (q.get(name) ?? q.get('*') ?? 0) > 0;
  const out: Encoding[] = [];
  if (accepts('br')) out.push('br');
  if (accepts('gzip') || (!q.has('gzip') && accepts('x-gzip'))) out.push('gzip');
  return out;
}

/**
 * Compressed copies of blobs under `<dataDir>/blobs-compressed/ab/<hash>.br|.gz`,
 * made once per blob (never per request), written to a temp file and renamed
 * into place. What is known (a path, or null when compression would not make
 * the blob smaller) is remembered in memory, so a request costs no syscall.
 */
export class CompressedStore {
  readonly root: string;
  private readonly tmp: string;
  /** Bounded: a forgotten copy is found on disk again by the next request that asks. */
  private readonly knownVariants = new LruCache<string, Variant | null>({ maxEntries: 100_000 });
  private readonly pending = new Map<string, Promise<Variant | null>>();
  private readonly queue: Array<() => void> = [];
  private running = 0;

  constructor(
    private readonly blobs: BlobStore,
    private readonly onError: (err: unknown) => void = () => {},
  ) {
    // The blob store owns the folder: a collected blob takes its copies along, and this store forgets them.
    this.root = blobs.compressedRoot;
    blobs.onDelete((hash) => {
      this.knownVariants.delete(`${hash}.br`);
      this.knownVariants.delete(`${hash}.gzip`);
    });
    this.tmp = join(this.root, 'tmp');
    mkdirSync(this.tmp, { recursive: true });
    for (const name of readdirSync(this.tmp)) rmSync(join(this.tmp, name), { force: true });
  }

  pathOf(hash: string, encoding: Encoding): string {
    return join(this.root, hash.slice(0, 2), `${hash}.${encoding === 'br' ? 'br' : 'gz'}`);
  }

  /** What is already known without a look at the disk: the copy, null (not worth it), or undefined (ask variant()). */
  known(hash: string, encoding: Encoding): Variant | null | undefined {
    return this.knownVariants.peek(`${hash}.${encoding}`);
  }

  /**
   * The compressed copy's path when it exists or can be made now; null when
   * it is not worth it or still being made in the background (serve identity).
   */
  async variant(hash: string, size: number, encoding: Encoding): Promise<Variant | null> {
    const key = `${hash}.${encoding}`;
    const known = this.knownVariants.peek(key);
    if (known !== undefined) return known;
    const path = this.pathOf(hash, encoding);
    const onDisk = statSync(path, { throwIfNoEntry: false });
    if (onDisk) {
      const found = { path, size: onDisk.size };
      this.knownVariants.set(key, found);
      return found;
    }
    let job = this.pending.get(key);
    if (!job) {
      job = this.make(hash, size, encoding, size > INLINE_MAX_BYTES).finally(() => this.pending.delete(key));
      this.pending.set(key, job);
    }
    return size > INLINE_MAX_BYTES ? null : job;
  }

  /** The copy being made (in the background for big blobs), or null when none is under way: tests await it. */
  inProgress(hash: string, encoding: Encoding): Promise<Variant | null> | null {
    return this.pending.get(`${hash}.${encoding}`) ?? null;
  }

  /** Forgets what it knows (tests; after a sweep removed files). */
  reset(): void {
    this.knownVariants.clear();
  }

  private async make(hash: string, size: number, encoding: Encoding, background: boolean): Promise<Variant | null> {
    const key = `${hash}.${encoding}`;
    if (background) await this.slot();
    try {
      if (!(await this.blobs.local(hash))) return null;
      const input = await Bun.file(this.blobs.pathOf(hash)).bytes();
      const output =
        encoding === 'br'
          ? await brotli(input, {
              params: {
                [constants.BROTLI_PARAM_QUALITY]: size <= 256 * 1024 ? 11 : size <= 4 * 1024 * 1024 ? 9 : 5,
                [constants.BROTLI_PARAM_SIZE_HINT]: input.byteLength,
              },
            })
          : await gz(input, { level: 9 });
      // Not worth a header when it saves under 5%.
      if (output.byteLength >= input.byteLength * 0.95) {
        this.knownVariants.set(key, null);
        return null;
      }
      const path = this.pathOf(hash, encoding);
      const tmpPath = join(this.tmp, newId());
      mkdirSync(join(this.root, hash.slice(0, 2)), { recursive: true });
      writeFileSync(tmpPath, output);
      renameSync(tmpPath, path);
      const made = { path, size: output.byteLength };
      this.knownVariants.set(key, made);
      return made;
    } catch (err) {
      // A missing or unreadable blob: serve identity and let the next request try again.
      this.onError(err);
      return null;
    } finally {
      if (background) this.release();
    }
  }

  private slot(): Promise<void> {
    if (this.running < MAX_BACKGROUND) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) =>
      this.queue.push(() => {
        this.running++;
        resolve();
      }),
    );
  }

  private release(): void {
    this.running--;
    this.queue.shift()?.();
  }
}
