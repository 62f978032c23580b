import type { ActorKind, AuditLog } from '../../audit/store.ts';
import type { BlobCollector } from '../../blobs/gc.ts';
import type { BlobHold } from '../../blobs/hold.ts';
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
import type { Part } from '../../http/multipart.ts';
import type { EventBus } from '../../events.ts';
import { notePolicyMiss } from '../policy-misses.ts';
import type { CollectionService, RecordsRemoved } from '../collections/service.ts';
import { fileGroupPolicy } from '../../policy/entries.ts';
import { allows, hasAny, recordRights } from '../../policy/rights.ts';
import type { FileBinding, FilePosition, FileScope, FileStore, StoredFile } from './store.ts';

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
 * the author and owners/editors see, rename or delete them. A file group's
 * files follow the group's policy entry (read; create to upload, update to
 * rename, delete to delete); a record's attachments follow the record
 * (read to see, read and update to upload, rename or delete). A file the
 * caller may not see is NOT_FOUND, exactly like one that does not exist.
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
    private readonly collections: CollectionService,
    /** Told when a page asks for a file group the policy does not configure (the canvas page names it). */
    private readonly events: EventBus,
  ) {}

  /** The bytes a canvas's runtime files take (its page of the management API shows them against the quota). */
  bytesUsed(canvasId: string): Promise<number> {
    return this.store.bytesUsed(canvasId);
  }

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
      const result = await this.receive(caller, parts, hold, (hash) => {
        written = { hash, mtime: this.blobs.mtimeOf(hash) ?? -1 };
      });
      written = null;
      return result;
    } finally {
      await hold.release();
      const failed = written as { hash: string; mtime: number } | null;
      // Spared when another request or a row uses the same bytes, or it was touched since (collect's rules).
      if (failed) await this.gc.collect([failed.hash], new Map([[failed.hash, failed.mtime]]));
    }
  }

  private async receive(
    caller: RuntimeCaller,
    parts: AsyncIterable<Part>,
    hold: BlobHold,
    onStored: (hash: string) => void,
  ): Promise<UploadResult> {
    const fields: ScopeFields = {};
    let stored: { hash: string; size: number; name: string; mime: string } | null = null;
    const { filesBytesFile, filesBytesCanvas, userStorageBytes } = this.settings();
    for await (const part of parts) {
      if (part.name === 'file') {
        if (stored) throw new AppError('INVALID_BODY', 'send one file per upload');
        // Fields sent before the file let a refusal come before any byte is stored.
        if (SCOPE_FIELDS.some((f) => fields[f] !== undefined)) await this.authorize(caller, placementOf(fields));
        const remaining = filesBytesCanvas - (await this.store.bytesUsed(caller.canvas.id));
        const ownerRemaining = userStorageBytes - (await this.store.ownerBytesUsed(caller.canvas.ownerId));
        const body = capped(part.body, filesBytesFile, remaining, filesBytesCanvas, ownerRemaining, userStorageBytes);
        const blob = await this.blobs.put(body, { hold });
        onStored(blob.hash);
        stored = { ...blob, name: cleanUploadName(part.filename), mime: cleanMime(part.contentType) };
      } else if (part.name !== null && (SCOPE_FIELDS as readonly string[]).includes(part.name)) {
        fields[part.name as keyof ScopeFields] = await readField(part.body);
      }
    }
    if (!stored) throw new AppError('INVALID_BODY', 'the multipart body has no `file` part');
    const { scope, binding } = placementOf(fields);
    await this.authorize(caller, { scope, binding });
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
      binding,
    };
    if (!(await this.store.insert(file, filesBytesCanvas))) throw quotaExceeded(filesBytesCanvas);
    this.usage.add(caller.canvas.id, 'fileBytesIn', file.size);
    await this.audit.record({
      actorId: caller.actorId,
      actorKind: actorKindOf(caller),
      canvasId: caller.canvas.id,
      action: 'file.uploaded',
      detail: { fileId: file.id, size: file.size, scope },
    });
    return { id: file.id, name: file.name, size: file.size, url: `/v1/c/${caller.canvas.slug}/files/${file.id}/content` };
  }

  async list(caller: RuntimeCaller): Promise<FileRecord[]> {
    const files = await this.store.list(caller.canvas.id, null);
    const readable = await Promise.all(files.map((f) => this.mayRead(caller, f)));
    return files.filter((_, i) => readable[i]).map(recordOf);
  }

  /**
   * Up to `limit` files the caller may read after `after`, in (createdAt, id)
   * order, by the same rule as list; `contains` keeps those whose id or name
   * holds it (the dashboard's search). Reads the rows a batch at a time.
   */
  async readablePage(caller: RuntimeCaller, after: FilePosition | null, limit: number, contains: string | null): Promise<FileRecord[]> {
    const found: FileRecord[] = [];
    for (let from = after; ;) {
      const batch = await this.store.page(caller.canvas.id, from, limit, contains);
      const readable = await Promise.all(batch.map((f) => this.mayRead(caller, f)));
      for (const [i, f] of batch.entries()) if (readable[i] && found.length < limit) found.push(recordOf(f));
      if (found.length >= limit || batch.length < limit) return found;
      from = batch[batch.length - 1]!;
    }
  }

  /** A file the caller may read, for its content; counts the bytes served. */
  async open(caller: RuntimeCaller, id: string): Promise<StoredFile> {
    const file = await this.readable(caller, id);
    this.usage.add(caller.canvas.id, 'fileBytesOut', file.size);
    return file;
  }

  /** A file the caller may rename (`update`) or delete: NOT_FOUND when they cannot see it, else PERMISSION_DENIED. */
  async changeable(caller: RuntimeCaller, id: string, op: 'update' | 'delete' = 'update'): Promise<StoredFile> {
    const file = await this.readable(caller, id);
    await this.assertMayChange(caller, file, op);
    return file;
  }

  async rename(caller: RuntimeCaller, id: string, name: string): Promise<FileRecord> {
    const file = await this.changeable(caller, id);
    await this.store.rename(caller.canvas.id, file.id, name);
    await this.audit.record({
      actorId: caller.actorId,
      actorKind: actorKindOf(caller),
      canvasId: caller.canvas.id,
      action: 'file.renamed',
      detail: { fileId: file.id },
    });
    return recordOf({ ...file, name });
  }

  async delete(caller: RuntimeCaller, id: string): Promise<void> {
    const file = await this.changeable(caller, id, 'delete');
    await this.store.delete(caller.canvas.id, file.id);
    await this.audit.record({
      actorId: caller.actorId,
      actorKind: actorKindOf(caller),
      canvasId: caller.canvas.id,
      action: 'file.deleted',
      detail: { fileId: file.id, size: file.size },
    });
  }

  /**
   * The attachments of records just deleted go with them: rows at once, and
   * their bytes unless another file or version still uses them. Best effort
   * (the collection service reports a failure, never fails the delete).
   */
  async removeAttachments(removed: RecordsRemoved): Promise<boolean> {
    const hashes = await this.store.deleteAttachments(removed.canvasId, removed.collection, removed.ids);
    if (hashes.length > 0) await this.gc.collect(new Set(hashes));
    return true;
  }

  private async readable(caller: RuntimeCaller, id: string): Promise<StoredFile> {
    const file = await this.store.byId(caller.canvas.id, id);
    if (!file || !(await this.mayRead(caller, file))) throw new AppError('NOT_FOUND', 'no such file');
    return file;
  }

  private async mayRead(caller: RuntimeCaller, file: StoredFile): Promise<boolean> {
    const b = file.binding;
    if (b?.kind === 'group') {
      const rights = this.groupRights(caller, b.group);
      return rights !== null && allows(rights.read, file.uploadedBy === caller.actorId);
    }
    if (b?.kind === 'record') return (await this.recordAllows(caller, b, 'read')) === 'yes';
    return file.scope === 'shared' || isManager(caller) || file.uploadedBy === caller.actorId;
  }

  private async assertMayChange(caller: RuntimeCaller, file: StoredFile, op: 'update' | 'delete'): Promise<void> {
    const b = file.binding;
    if (b?.kind === 'group') {
      const rights = this.groupRights(caller, b.group)!;
      if (allows(rights[op], file.uploadedBy === caller.actorId)) return;
      throw new AppError('PERMISSION_DENIED', `your role may not ${op === 'update' ? 'rename' : 'delete'} this file of the group`);
    }
    // An attachment changes with its record: renaming or removing one is updating the record.
    if (b?.kind === 'record') {
      if ((await this.recordAllows(caller, b, 'update')) === 'yes') return;
      throw new AppError('PERMISSION_DENIED', 'changing an attachment needs the right to update its record');
    }
    if (isManager(caller)) return;
    if (file.scope === 'submission' && file.uploadedBy === caller.actorId) return;
    throw new AppError('PERMISSION_DENIED', 'only owners and editors may change shared files');
  }

  /** The caller's rights on a file group's files, or null when the live policy has no such group. */
  private groupRights(caller: RuntimeCaller, group: string) {
    const policy = fileGroupPolicy(caller.canvas.runtimePolicy, group);
    return policy ? recordRights(policy.preset, policy.overrides, caller.role) : null;
  }

  /** Whether the caller may `op` the parent record: yes, or why not (it is hidden, or only read). */
  private async recordAllows(
    caller: RuntimeCaller,
    b: { collection: string; recordId: string },
    op: 'read' | 'update',
  ): Promise<'yes' | 'hidden' | 'denied'> {
    try {
      await this.collections.target(this.collections.open(caller, b.collection), b.recordId, op);
      return 'yes';
    } catch (err) {
      if (err instanceof AppError && err.errorCode === 'PERMISSION_DENIED' && op !== 'read') return 'denied';
      if (err instanceof AppError) return 'hidden';
      throw err;
    }
  }

  private async authorize(caller: RuntimeCaller, placement: Placement): Promise<void> {
    const b = placement.binding;
    if (b?.kind === 'group') {
      const rights = this.groupRights(caller, b.group);
      if (!rights) {
        notePolicyMiss(this.events, caller, 'fileGroup', b.group);
        throw new AppError('COLLECTION_NOT_CONFIGURED', `the file group "${b.group}" is not configured in this canvas's runtime policy`);
      }
      if (!hasAny(rights.create)) throw new AppError('PERMISSION_DENIED', 'your role may not upload to this file group');
      return;
    }
    if (b?.kind === 'record') {
      // The record's own answers: 404 when absent or unreadable, 403 when readable but not updatable.
      await this.collections.target(this.collections.open(caller, b.collection), b.recordId, 'update');
      return;
    }
    if (placement.scope === 'shared' && !isManager(caller)) {
      throw new AppError('PERMISSION_DENIED', 'only owners and editors may upload shared files; viewers upload with scope "submission"');
    }
  }
}

function recordOf(f: StoredFile): FileRecord {
  const record: FileRecord = {
    id: f.id,
    name: f.name,
    size: f.size,
    mime: f.mime,
    createdAt: f.createdAt,
    scope: f.scope,
    uploadedBy: f.uploadedBy,
  };
  if (f.binding?.kind === 'group') record.group = f.binding.group;
  if (f.binding?.kind === 'record') Object.assign(record, { collection: f.binding.collection, recordId: f.binding.recordId });
  return record;
}

/** Where an upload goes: `scope` (shared by default), or a file group, or a record: never two of them. */
interface Placement {
  scope: FileScope;
  binding: FileBinding | null;
}

function placementOf(fields: ScopeFields): Placement {
  const { scope, group, collection, recordId } = fields;
  const toRecord = collection !== undefined || recordId !== undefined;
  if ([scope !== undefined, group !== undefined, toRecord].filter(Boolean).length > 1) {
    throw new AppError('INVALID_BODY', '`scope`, `group` and `collection` with `recordId` are alternatives: send one');
  }
  if (group !== undefined) return { scope: 'shared', binding: { kind: 'group', group } };
  if (toRecord) {
    if (!collection || !recordId) throw new AppError('INVALID_BODY', 'an attachment needs both `collection` and `recordId`');
    return { scope: 'shared', binding: { kind: 'record', collection, recordId } };
  }
  if (scope === undefined || scope === 'shared') return { scope: 'shared', binding: null };
  if (scope === 'submission') return { scope: 'submission', binding: null };
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
