// Browser drafts (issue 18 item 4; spec "Canvas publication state"): one per
// person and canvas, started from the live version (or empty before the first
// deploy), edited file by file, previewed on the canvas's own origin
// (src/serve/canvas-server.ts) and published as a new version through the same
// publishVersion as every deploy. A deploy by anyone else syncs an unedited
// draft and flags an edited one stale (reconcile.ts); a stale draft is never
// overwritten and cannot be published until its owner rebases or discards it.
import { BlobLimitError } from '../blobs/store.ts';
import { managedCanvas, type Actor, type Managed } from '../canvases/authority.ts';
import type { Canvas } from '../canvases/record.ts';
import type { Core } from '../foundation.ts';
import { tx, type TxSteps } from '../db/sql.ts';
import { canvasRows } from '../canvases/store.ts';
import { blobMentionsKey, KeyScanner } from '../deploy/key-scan.ts';
import { isTextType, mimeFor } from '../deploy/mime.ts';
import { publishVersion, type DeployResult } from '../deploy/publish.ts';
import { canvasPath, isHidden, UPLOAD_LIMITS } from '../deploy/upload/manifest.ts';
import { versionRows, type VersionRecord, type VersionStore } from '../deploy/version-store.ts';
import { deployWarnings, readRootPage } from '../deploy/warnings.ts';
import { AppError, overCap } from '../errors.ts';
import type { Manifest, ManifestFile } from '../serve/manifest.ts';
import { canvasUrl } from '../canvases/url.ts';
import { previewToken, previewTokenUser } from './preview-token.ts';
import { draftRows, DraftStore, isEdited, type DraftFileRecord, type DraftRecord } from './store.ts';

/** Where a file's bytes are read from: the draft, the version it started from, or the live version. */
export type DraftSide = 'draft' | 'base' | 'live';

export interface DraftFileView {
  path: string;
  size: number;
  mime: string;
  /** Null when the draft deletes the file. */
  hash: string | null;
  edited: boolean;
  /** Text the editor can open. */
  text: boolean;
}

/** What changed in the live version since the draft's base (for a stale draft). */
export interface DraftChange {
  path: string;
  change: 'added' | 'removed' | 'modified';
  /** The draft changed this path too: the person must look at both. */
  editedInDraft: boolean;
}

export interface DraftView {
  canvasId: string;
  baseVersion: number | null;
  liveVersion: number | null;
  /** Set when a deploy went live while the draft had unpublished edits. */
  stale: { version: number; changes: DraftChange[] } | null;
  editedCount: number;
  files: DraftFileView[];
  updatedAt: number;
  /** Where the draft is served on the canvas's own origin, for an hour (the token in it is the credential). */
  previewUrl: string;
}

export interface DraftFileBytes {
  hash: string;
  size: number;
  mime: string;
}

const STALE_MESSAGE =
  'the live version changed since this draft was started: review the changes, then keep your edits on the new version (rebase) or discard the draft';

/** What drafts use: storage and blobs, preview tokens, who may preview, publishing, and the deploy feature's versions. */
export interface DraftDeps {
  ctx: Pick<
    Core,
    | 'config'
    | 'sql'
    | 'blobs'
    | 'blobGc'
    | 'log'
    | 'now'
    | 'events'
    | 'audit'
    | 'settings'
    | 'instanceSecret'
    | 'users'
    | 'canvases'
    | 'auth'
  >;
  /** A draft starts from, and publishes over, the live version. */
  versions: VersionStore;
}

export class DraftService {
  private readonly ctx: DraftDeps['ctx'];
  private readonly versions: VersionStore;
  private readonly store: DraftStore;

  constructor({ ctx, versions }: DraftDeps) {
    this.ctx = ctx;
    this.versions = versions;
    this.store = new DraftStore(ctx.sql);
  }

  /** The caller's draft of the canvas, started from the live version when there is none. */
  async open(actor: Actor, canvasId: string): Promise<DraftView> {
    const { canvas } = await this.managed(actor, canvasId);
    return this.view(canvas, await this.ensure(canvas, actor.user.id));
  }

  /** Where a file of the draft, its base or the live version is stored (404 when that side has no such file). */
  async file(actor: Actor, canvasId: string, rawPath: string, asked: DraftSide): Promise<DraftFileBytes> {
    const { canvas } = await this.managed(actor, canvasId);
    const path = validPath(rawPath);
    // Without a draft yet, the draft and its base would be the live version.
    const side: DraftSide = (await this.store.get(canvas.id, actor.user.id)) ? asked : 'live';
    const missing = () =>
      new AppError(
        'NOT_FOUND',
        `no file ${path} in the ${side === 'draft' ? 'draft' : side === 'base' ? 'version the draft started from' : 'live version'}`,
        { path },
      );
    if (side === 'live') {
      const live = canvas.currentVersionId === null ? null : await this.versions.file(canvas.currentVersionId, path);
      if (!live) throw missing();
      return { hash: live.hash, size: live.size, mime: live.mime };
    }
    const row = await this.store.file(canvas.id, actor.user.id, path);
    const hash = side === 'draft' ? row?.hash : row?.baseHash;
    if (!row || !hash) throw missing();
    // The base's size is only known for unedited rows; the blob store knows it for the rest.
    const size = side === 'draft' || row.hash === row.baseHash ? row.size : ((await this.ctx.blobs.sizeOf(hash)) ?? 0);
    return { hash, size, mime: row.mime };
  }

  /**
   * Writes one file of the draft from a body stream, capped like a deploy's
   * file. The caller's rights are checked before a byte is read. Answers the
   * draft and whether the text looks like it holds a canvas key.
   */
  async write(
    actor: Actor,
    canvasId: string,
    rawPath: string,
    body: ReadableStream<Uint8Array> | null,
  ): Promise<{ draft: DraftView; warnings: string[] }> {
    const { canvas } = await this.managed(actor, canvasId);
    const path = validPath(rawPath);
    const userId = actor.user.id;
    const mime = mimeFor(path);
    const scanner = isTextType(mime) ? new KeyScanner() : null;
    const hold = this.ctx.blobGc.hold();
    try {
      let stored;
      try {
        stored = await this.ctx.blobs.put(scanned(body, scanner), { maxBytes: UPLOAD_LIMITS.fileBytes, hold });
      } catch (err) {
        if (err instanceof BlobLimitError)
          throw new AppError('FILE_TOO_LARGE', `${path} is larger than ${UPLOAD_LIMITS.fileBytes / 1024 / 1024} MB`, { path });
        throw err;
      }
      // The draft is made here, with the write: a refused write leaves no draft behind.
      const now = this.ctx.now();
      await this.ctx.sql.write(function* () {
        yield* ensureSteps(canvas, userId, now);
        const rows = yield* draftRows.files(canvas.id, userId);
        const existing = rows.find((r) => r.path === path) ?? null;
        const others = rows.filter((r) => r.path !== path && r.hash !== null);
        if (!existing?.hash && others.length + 1 > UPLOAD_LIMITS.files)
          throw overCap('TOO_MANY_FILES', `a canvas holds at most ${UPLOAD_LIMITS.files} files`);
        const total = others.reduce((sum, r) => sum + r.size, 0) + stored.size;
        if (total > UPLOAD_LIMITS.canvasBytes) throw overCap('CANVAS_TOO_LARGE', 'a canvas holds at most 100 MB in total');
        yield* draftRows.putFile(canvas.id, userId, {
          path,
          hash: stored.hash,
          baseHash: existing?.baseHash ?? null,
          size: stored.size,
          mime,
        });
        yield* draftRows.touch(canvas.id, userId, now);
      });
    } finally {
      await hold.release();
    }
    const warnings = scanner?.found ? [`${path} may contain a canvas API key`] : [];
    return { draft: await this.open(actor, canvasId), warnings };
  }

  /** Deletes a file from the draft (an added one disappears; one of the base is marked deleted). */
  remove(actor: Actor, canvasId: string, rawPath: string): Promise<DraftView> {
    return this.changeRow(actor, canvasId, rawPath, (row, path) => {
      if (!row || row.hash === null) throw new AppError('NOT_FOUND', `no file ${path} in the draft`, { path });
      return row.baseHash === null ? null : { ...row, hash: null };
    });
  }

  /** Puts one file back as it is in the base version (drops the draft's edit of it). */
  async revert(actor: Actor, canvasId: string, rawPath: string): Promise<DraftView> {
    // The base's size is a property of its bytes, asked of the blob store before the transaction (it may be remote).
    const { canvas } = await this.managed(actor, canvasId);
    const asked = (await this.store.file(canvas.id, actor.user.id, validPath(rawPath)))?.baseHash ?? null;
    const askedSize = asked === null ? null : await this.ctx.blobs.sizeOf(asked);
    return this.changeRow(actor, canvasId, rawPath, (row, path) => {
      if (!row || !isEdited(row)) throw new AppError('NOT_FOUND', `the draft has no edit of ${path}`, { path });
      if (row.baseHash === null) return null;
      const size = (row.baseHash === asked ? askedSize : this.ctx.blobs.size(row.baseHash)) ?? row.size;
      return { ...row, hash: row.baseHash, size };
    });
  }

  /** One row of an existing draft replaced by what `next` makes of it (null: the row goes), in one transaction. */
  private async changeRow(
    actor: Actor,
    canvasId: string,
    rawPath: string,
    next: (row: DraftFileRecord | null, path: string) => DraftFileRecord | null,
  ): Promise<DraftView> {
    const { canvas } = await this.managed(actor, canvasId);
    const path = validPath(rawPath);
    const userId = actor.user.id;
    await this.existing(canvas.id, userId);
    const now = this.ctx.now();
    await this.ctx.sql.write(function* () {
      yield* tx.lock('draft', canvas.id, userId);
      const row = next(yield* draftRows.file(canvas.id, userId, path), path);
      if (row === null) yield* draftRows.deleteFile(canvas.id, userId, path);
      else yield* draftRows.putFile(canvas.id, userId, row);
      yield* draftRows.touch(canvas.id, userId, now);
    });
    return this.open(actor, canvasId);
  }

  /**
   * A stale draft moves onto the live version: every path the draft did not
   * edit takes the live content, the draft's edits (and deletions) stay.
   */
  async rebase(actor: Actor, canvasId: string): Promise<DraftView> {
    const { canvas } = await this.managed(actor, canvasId);
    const userId = actor.user.id;
    await this.existing(canvas.id, userId);
    const now = this.ctx.now();
    await this.ctx.sql.write(function* () {
      // The canvas's lock first, as publishing takes it: the live version cannot move under the rebase.
      yield* tx.lock('canvas', canvas.id);
      yield* tx.lock('draft', canvas.id, userId);
      const live = yield* liveVersionOf(canvas);
      const draft = (yield* draftRows.get(canvas.id, userId))!;
      if (!live) throw new AppError('NOT_PUBLISHED', 'the canvas has no live version to rebase onto');
      const liveFiles = new Map((yield* versionRows.files(live.id)).map((f) => [f.path, f]));
      const mine = yield* draftRows.files(canvas.id, userId);
      const next = new Map<string, DraftFileRecord>();
      for (const f of liveFiles.values()) next.set(f.path, { path: f.path, hash: f.hash, baseHash: f.hash, size: f.size, mime: f.mime });
      for (const row of mine) {
        if (!isEdited(row)) continue;
        const base = liveFiles.get(row.path);
        if (row.hash === null && !base) next.delete(row.path);
        else next.set(row.path, { ...row, baseHash: base?.hash ?? null, size: row.hash === null ? (base?.size ?? 0) : row.size });
      }
      for (const row of mine) yield* draftRows.deleteFile(canvas.id, userId, row.path);
      for (const row of next.values()) yield* draftRows.putFile(canvas.id, userId, row);
      yield* draftRows.put({
        ...draft,
        baseVersionId: live.id,
        baseVersionNumber: live.number,
        staleVersionId: null,
        staleVersionNumber: null,
        updatedAt: now,
      });
    });
    return this.open(actor, canvasId);
  }

  /** Throws the draft away; the next open starts again from the live version. */
  async discard(actor: Actor, canvasId: string): Promise<void> {
    const { canvas } = await this.managed(actor, canvasId);
    await this.store.remove(canvas.id, actor.user.id);
  }

  /** Publishes the draft as a new live version (source `editor`), under the deploy's coordination rules. */
  async publish(actor: Actor, canvasId: string, expectedPublicationToken: string | null): Promise<DeployResult> {
    const m = await this.managed(actor, canvasId);
    const userId = actor.user.id;
    const draft = await this.existing(m.canvas.id, userId);
    if (draft.staleVersionId !== null) throw new AppError('DRAFT_STALE', STALE_MESSAGE, { liveVersion: draft.staleVersionNumber });
    const rows = await this.store.files(m.canvas.id, userId);
    const files = rows.flatMap((r) => (r.hash === null ? [] : [{ path: r.path, hash: r.hash, size: r.size, mime: r.mime }]));
    const keyLintPaths: string[] = [];
    for (const r of rows) {
      if (r.hash === null || !isEdited(r) || !isTextType(r.mime)) continue;
      if (await blobMentionsKey(this.ctx.blobs, r.hash)) keyLintPaths.push(r.path);
    }
    const warnings = deployWarnings(files, {
      keyLintPaths,
      rootPage: await readRootPage(files, this.ctx.blobs),
      canvasUrl: canvasUrl(this.ctx.config, m.canvas.slug),
    });
    return publishVersion(this.ctx, m.canvas.id, files, {
      source: 'editor',
      warnings,
      releaseId: null,
      expectedPublicationToken,
      actor: { id: userId, kind: m.asAdmin ? 'admin' : 'user' },
      publishedFromDraftOf: userId,
    });
  }

  /**
   * The draft's files as page serving needs them, for a preview token of this
   * canvas; null when the token is not good, its person may no longer manage
   * the canvas, or has no draft.
   */
  async previewManifest(canvas: Canvas, token: string): Promise<Manifest | null> {
    const userId = previewTokenUser(this.ctx.instanceSecret, canvas.id, token, this.ctx.now());
    const user = userId === null ? null : await this.ctx.users.byId(userId);
    if (!user || !user.active) return null;
    const role = await this.ctx.canvases.roleOf(canvas, user.id);
    if (role !== 'owner' && role !== 'editor' && !this.ctx.auth.isAdmin(user)) return null;
    const canvasId = canvas.id;
    if (!(await this.store.get(canvasId, userId!))) return null;
    const files = new Map<string, ManifestFile>();
    const html: string[] = [];
    for (const r of await this.store.files(canvasId, user.id)) {
      if (r.hash === null) continue;
      files.set(r.path, { hash: r.hash, size: r.size, mime: r.mime });
      if (/\.html?$/i.test(r.path)) html.push(r.path);
    }
    return { canvasId, versionId: `draft:${user.id}`, files, singleHtml: html.length === 1 ? html[0]! : null };
  }

  private async managed(actor: Actor, canvasId: string): Promise<Managed> {
    const m = await managedCanvas(this.ctx, actor, canvasId, 'manage');
    if (m.canvas.deletedAt !== null) throw new AppError('NOT_FOUND', 'canvas not found');
    return m;
  }

  /** Changing a draft needs one: a refused request must not have made it. */
  private async existing(canvasId: string, userId: string): Promise<DraftRecord> {
    const draft = await this.store.get(canvasId, userId);
    if (!draft) throw new AppError('NOT_FOUND', 'you have no draft of this canvas: open it first (GET …/draft)');
    return draft;
  }

  private async ensure(canvas: Canvas, userId: string): Promise<DraftRecord> {
    const existing = await this.store.get(canvas.id, userId);
    if (existing) return existing;
    const now = this.ctx.now();
    return this.ctx.sql.write(() => ensureSteps(canvas, userId, now));
  }

  private async view(canvas: Canvas, draft: DraftRecord): Promise<DraftView> {
    const rows = await this.store.files(canvas.id, draft.userId);
    const live = await this.ctx.sql.autocommit(() => liveVersionOf(canvas));
    return {
      canvasId: canvas.id,
      baseVersion: draft.baseVersionNumber,
      liveVersion: live?.number ?? null,
      stale:
        draft.staleVersionId === null || !live ? null : { version: draft.staleVersionNumber!, changes: await this.changes(rows, live.id) },
      editedCount: rows.filter(isEdited).length,
      files: rows.map((r) => ({
        path: r.path,
        size: r.size,
        mime: r.mime,
        hash: r.hash,
        edited: isEdited(r),
        text: isTextType(r.mime),
      })),
      updatedAt: draft.updatedAt,
      previewUrl: `${canvasUrl(this.ctx.config, canvas.slug)}__easel/draft/${previewToken(this.ctx.instanceSecret, canvas.id, draft.userId, this.ctx.now())}/`,
    };
  }

  /** The live version against the draft's base, path by path. */
  private async changes(rows: DraftFileRecord[], liveVersionId: string): Promise<DraftChange[]> {
    const live = new Map((await this.versions.files(liveVersionId)).map((f) => [f.path, f.hash]));
    const base = new Map(rows.filter((r) => r.baseHash !== null).map((r) => [r.path, r.baseHash!]));
    const edited = new Set(rows.filter(isEdited).map((r) => r.path));
    const out: DraftChange[] = [];
    for (const [path, hash] of live) {
      const before = base.get(path);
      if (before === undefined) out.push({ path, change: 'added', editedInDraft: edited.has(path) });
      else if (before !== hash) out.push({ path, change: 'modified', editedInDraft: edited.has(path) });
    }
    for (const path of base.keys()) if (!live.has(path)) out.push({ path, change: 'removed', editedInDraft: edited.has(path) });
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
}

/** The canvas's live version as stored now (the caller's copy of the canvas may be older). */
function* liveVersionOf(canvas: Canvas): TxSteps<VersionRecord | null> {
  const fresh = (yield* canvasRows.byId(canvas.id)) ?? canvas;
  return fresh.currentVersionId === null ? null : yield* versionRows.byId(fresh.currentVersionId);
}

/** The person's draft of the canvas, started from the live version when there is none (under the draft's lock). */
function* ensureSteps(canvas: Canvas, userId: string, now: number): TxSteps<DraftRecord> {
  yield* tx.lock('draft', canvas.id, userId);
  const existing = yield* draftRows.get(canvas.id, userId);
  if (existing) return existing;
  const live = yield* liveVersionOf(canvas);
  const draft: DraftRecord = {
    canvasId: canvas.id,
    userId,
    baseVersionId: live?.id ?? null,
    baseVersionNumber: live?.number ?? null,
    staleVersionId: null,
    staleVersionNumber: null,
    updatedAt: now,
  };
  yield* draftRows.put(draft);
  if (live) yield* draftRows.copyVersionFiles(canvas.id, userId, live.id);
  return draft;
}

/** A deployable canvas path (the staged upload's rules; dotfiles are never deployed, so never drafted). */
function validPath(raw: string): string {
  const path = canvasPath(raw);
  if (path === null || isHidden(path))
    throw new AppError('INVALID_PATH', `path ${JSON.stringify(raw)} is not a deployable file path`, { path: raw });
  return path;
}

async function* scanned(body: ReadableStream<Uint8Array> | null, scanner: KeyScanner | null): AsyncGenerator<Uint8Array> {
  if (!body) return;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    scanner?.push(chunk);
    yield chunk;
  }
}
