import type { ActorKind, AuditLog } from '../../audit/store.ts';
import { statSync } from 'node:fs';
import type { BlobCollector } from '../../blobs/gc.ts';
import { storageQuotaExceeded } from '../../canvases/quotas.ts';
import type { BlobStore } from '../../blobs/store.ts';
import type { FileRecord, UploadResult } from '../../../sdk/wire.ts';
import { AppError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { cappedChunks, readCapped } from '../../streams/capped.ts';
import type { InstanceSettings } from '../../settings/service.ts';
import type { RuntimeCaller } from '../pipeline.ts';
import type { UsageCounters } from '../usage.ts';
import { cleanMime, cleanUploadName } from './disposition.ts';
import type { Part } from './multipart.ts';
import type { FileScope, FileStore, StoredFile } from './store.ts';

export type { FileRecord, UploadResult } from '../../../sdk/wire.ts';

const FIELD_MAX_BYTES = 1024;
const SCOPE_FIELDS = ['scope', 'group', 'collection', 'recordId'] as const;
type ScopeFields = Partial<Record<(typeof SCOPE_FIELDS)[number], string>>;

const isManager = (c: RuntimeCaller) => c.role === 'owner' || c.role === 'editor';

/** The audit actor kind: 'guest' for a legacy guest (actorId `guest:<inviteId>`), else 'user'. */
const actorKindOf = (c: RuntimeCaller): ActorKind => (c.kind === 'guest' ? 'guest' : 'user');

/**
 * Runtime files. Shared files: everyone admitted reads, owners and editors
 * upload, rename and delete. Submission files: anyone admitted uploads; only
 * the author and owners/editors see, rename or delete them. A file the caller
 * may not see is NOT_FOUND, exactly like one that does not exist.
 */
export class FileService {
  constructor(
    private readonly store: FileStore,
    private readonly blobs: BlobStore,
    private readonly gc: BlobCollector,
    private readonly settings: () => InstanceSettings,
    private readonly usage: UsageCounters,
    private readonly audit: AuditLog,
    private readonly now: () => number,
  ) {}

  /**
   * Streams the `file` part into the blob store with both caps enforced as
   * the bytes arrive. The scope fields the SDK sends first are checked before
   * any byte is stored; when a client sends them after the file, a refusal
   * (or any other failure) removes the blob this request wrote at once, so
   * refused uploads cannot fill the disk.
   */
  async upload(caller: RuntimeCaller, parts: AsyncIterable<Part>): Promise<UploadResult> {
    const hold = this.gc.hold();
    let written: { hash: string; mtime: number } | null = null;
    try {
      const result = await this.receive(caller, parts, (hash) => {
        hold.add(hash);
        written = { hash, mtime: this.mtimeOf(hash) };
      });
      written = null;
      return result;
    } finally {
      hold.release();
      const failed = written as { hash: string; mtime: number } | null;
      // Spared when another request or a row uses the same bytes, or it was touched since (collect's rules).
      if (failed) this.gc.collect([failed.hash], new Map([[failed.hash, failed.mtime]]));
    }
  }

  private mtimeOf(hash: string): number {
    try {
      return statSync(this.blobs.pathOf(hash)).mtimeMs;
    } catch {
      return -1;
    }
  }

  private async receive(caller: RuntimeCaller, parts: AsyncIterable<Part>, onStored: (hash: string) => void): Promise<UploadResult> {
    const fields: ScopeFields = {};
    let stored: { hash: string; size: number; name: string; mime: string } | null = null;
    const { filesBytesFile, filesBytesCanvas, userStorageBytes } = this.settings();
    for await (const part of parts) {
      if (part.name === 'file') {
        if (stored) throw new AppError('INVALID_BODY', 'send one file per upload');
        // Fields sent before the file let a refusal come before any byte is stored.
        if (SCOPE_FIELDS.some((f) => fields[f] !== undefined)) this.authorize(caller, scopeOf(fields));
        const remaining = filesBytesCanvas - this.store.bytesUsed(caller.canvas.id);
        const ownerRemaining = userStorageBytes - this.store.ownerBytesUsed(caller.canvas.ownerId);
        const blob = await this.blobs.put(capped(part.body, filesBytesFile, remaining, filesBytesCanvas, ownerRemaining, userStorageBytes));
        onStored(blob.hash);
        stored = { ...blob, name: cleanUploadName(part.filename), mime: cleanMime(part.contentType) };
      } else if (part.name !== null && (SCOPE_FIELDS as readonly string[]).includes(part.name)) {
        fields[part.name as keyof ScopeFields] = await readField(part.body);
      }
    }
    if (!stored) throw new AppError('INVALID_BODY', 'the multipart body has no `file` part');
    const scope = scopeOf(fields);
    this.authorize(caller, scope);
    const file: StoredFile = {
      id: newId(),
      canvasId: caller.canvas.id,
      name: stored.name,
      size: stored.size,
      mime: stored.mime,
      hash: stored.hash,
      scope,
      uploadedBy: caller.actorId,
      createdAt: this.now(),
    };
    if (!this.store.insert(file, filesBytesCanvas)) throw quotaExceeded(filesBytesCanvas);
    this.usage.add(caller.canvas.id, 'fileBytesIn', file.size);
    this.audit.record({
      actorId: caller.actorId,
      actorKind: actorKindOf(caller),
      canvasId: caller.canvas.id,
      action: 'file.uploaded',
      detail: { fileId: file.id, size: file.size, scope },
    });
    return { id: file.id, name: file.name, size: file.size, url: `/v1/c/${caller.canvas.slug}/files/${file.id}/content` };
  }

  list(caller: RuntimeCaller): FileRecord[] {
    return this.store.list(caller.canvas.id, isManager(caller) ? null : caller.actorId).map(recordOf);
  }

  /** A file the caller may read, for its content; counts the bytes served. */
  open(caller: RuntimeCaller, id: string): StoredFile {
    const file = this.readable(caller, id);
    this.usage.add(caller.canvas.id, 'fileBytesOut', file.size);
    return file;
  }

  /** A file the caller may rename or delete: NOT_FOUND when they cannot see it, else PERMISSION_DENIED. */
  changeable(caller: RuntimeCaller, id: string): StoredFile {
    const file = this.readable(caller, id);
    this.assertMayChange(caller, file);
    return file;
  }

  rename(caller: RuntimeCaller, id: string, name: string): FileRecord {
    const file = this.changeable(caller, id);
    this.store.rename(caller.canvas.id, file.id, name);
    this.audit.record({
      actorId: caller.actorId,
      actorKind: actorKindOf(caller),
      canvasId: caller.canvas.id,
      action: 'file.renamed',
      detail: { fileId: file.id },
    });
    return recordOf({ ...file, name });
  }

  delete(caller: RuntimeCaller, id: string): void {
    const file = this.changeable(caller, id);
    this.store.delete(caller.canvas.id, file.id);
    this.audit.record({
      actorId: caller.actorId,
      actorKind: actorKindOf(caller),
      canvasId: caller.canvas.id,
      action: 'file.deleted',
      detail: { fileId: file.id, size: file.size },
    });
  }

  private readable(caller: RuntimeCaller, id: string): StoredFile {
    const file = this.store.byId(caller.canvas.id, id);
    if (!file || (file.scope === 'submission' && !isManager(caller) && file.uploadedBy !== caller.actorId)) {
      throw new AppError('NOT_FOUND', 'no such file');
    }
    return file;
  }

  private assertMayChange(caller: RuntimeCaller, file: StoredFile): void {
    if (isManager(caller)) return;
    if (file.scope === 'submission' && file.uploadedBy === caller.actorId) return;
    throw new AppError('PERMISSION_DENIED', 'only owners and editors may change shared files');
  }

  private authorize(caller: RuntimeCaller, scope: FileScope): void {
    if (scope === 'shared' && !isManager(caller)) {
      throw new AppError('PERMISSION_DENIED', 'only owners and editors may upload shared files; viewers upload with scope "submission"');
    }
  }
}

function recordOf(f: StoredFile): FileRecord {
  return { id: f.id, name: f.name, size: f.size, mime: f.mime, createdAt: f.createdAt, scope: f.scope, uploadedBy: f.uploadedBy };
}

/** `scope` (shared by default) or, later, a file group or record attachment: never both. */
function scopeOf(fields: ScopeFields): FileScope {
  const bound = fields.group !== undefined || fields.collection !== undefined || fields.recordId !== undefined;
  if (fields.scope !== undefined && bound) throw new AppError('INVALID_BODY', '`scope` cannot be combined with `group` or `collection`');
  if (bound) throw new AppError('INVALID_BODY', 'file groups and record attachments are not configured yet');
  if (fields.scope === undefined || fields.scope === 'shared') return 'shared';
  if (fields.scope === 'submission') return 'submission';
  throw new AppError('INVALID_BODY', '`scope` must be "shared" or "submission"');
}

const quotaExceeded = (cap: number) =>
  new AppError('QUOTA_EXCEEDED', `this canvas's files would exceed ${cap} bytes`, { quota: 'files.bytes.canvas' });

/** The three caps, enforced as the bytes arrive, reported in this order: the file's own, the canvas's, the owner's. */
function capped(
  chunks: AsyncIterable<Uint8Array>,
  fileCap: number,
  canvasRemaining: number,
  canvasCap: number,
  ownerRemaining: number,
  ownerCap: number,
): AsyncGenerator<Uint8Array> {
  return cappedChunks(chunks, Math.max(0, Math.min(fileCap, canvasRemaining, ownerRemaining)), {
    tooLarge: (size) =>
      size > fileCap
        ? new AppError('FILE_TOO_LARGE', `files are at most ${fileCap} bytes`, { quota: 'files.bytes.file' })
        : size > canvasRemaining
          ? quotaExceeded(canvasCap)
          : storageQuotaExceeded(ownerCap),
  });
}

async function readField(chunks: AsyncIterable<Uint8Array>): Promise<string> {
  const bytes = await readCapped(chunks, FIELD_MAX_BYTES, { tooLarge: () => new AppError('INVALID_BODY', 'a form field is too long') });
  return new TextDecoder().decode(bytes);
}
