// A canvas's data for its owners and editors: a summary in counts, and
// exports of exactly what the caller could read through the runtime API with
// their live role and the live policy. The rows come from the runtime
// services themselves (the same read rules, the same refusals), never from
// the tables directly: `kv.user` is never exported, and records a policy
// keeps personal reach an owner only when the policy lets them read them.
import type { User, UserStore } from '../auth/users.ts';
import type { GuestStore } from '../auth/guests.ts';
import type { AuditLog } from '../audit/store.ts';
import type { CanvasRole, Canvas } from '../canvases/record.ts';
import { AppError } from '../errors.ts';
import type { CollectionService } from '../runtime/collections/service.ts';
import type { FileService } from '../runtime/files/service.ts';
import type { KvService } from '../runtime/kv/service.ts';
import type { RuntimeCaller } from '../runtime/pipeline.ts';
import type { SubmissionService } from '../runtime/submissions/service.ts';
import type { BlobStore } from '../blobs/store.ts';
import { zipStream, type ZippedFile } from './files-zip.ts';
import type { DataRow } from './rows.ts';
import type { CanvasDataStore, DataSummary } from './store.ts';

export type ExportKind = 'kv' | 'collection' | 'submissions' | 'files' | 'files.zip';

/** Rows are read from the services a page at a time. */
const PAGE = 500;

export interface CanvasDataDeps {
  kv: KvService;
  collections: CollectionService;
  submissions: SubmissionService;
  files: FileService;
  store: CanvasDataStore;
  users: Pick<UserStore, 'byId'>;
  guests: Pick<GuestStore, 'invite'>;
  audit: Pick<AuditLog, 'record'>;
  blobs: Pick<BlobStore, 'file' | 'local'>;
}

export interface PreparedExport {
  /** The fixed columns every row has, in order. */
  columns: readonly string[];
  rows: () => AsyncIterable<DataRow>;
}

export class CanvasDataService {
  constructor(private readonly deps: CanvasDataDeps) {}

  summary(canvas: Canvas): Promise<DataSummary> {
    return this.deps.store.summary(canvas);
  }

  /**
   * An export as the caller would read it through the runtime API. The
   * caller must hold a role on the canvas: an instance admin without one has
   * none there (admin status never implies a runtime role), so 403. A
   * collection the policy does not configure is 404 COLLECTION_NOT_CONFIGURED,
   * as at runtime; refusals come before the first byte.
   */
  async prepare(
    canvas: Canvas,
    user: User,
    role: CanvasRole | null,
    kind: Exclude<ExportKind, 'files.zip'>,
    name: string | null,
  ): Promise<PreparedExport> {
    if (role === null)
      throw new AppError('PERMISSION_DENIED', 'exports follow the runtime read rules, and you hold no role on this canvas');
    const caller: RuntimeCaller = {
      canvas,
      principal: { kind: 'user', user, via: 'session' },
      user,
      actorId: user.id,
      actorName: user.name,
      role,
      kind: 'member',
    };
    const people = new People(this.deps.users, this.deps.guests, canvas.id);
    const { kv, collections, submissions, files } = this.deps;
    switch (kind) {
      case 'kv': {
        // Shared keys only: the per-viewer scope is its viewer's alone.
        const rows = async function* (): AsyncIterable<DataRow> {
          let cursor = '';
          for (;;) {
            const page = await kv.list(caller, 'shared', { cursor, limit: String(PAGE) });
            for (const e of page.entries) yield { fixed: [['key', e.key]], valueJson: e.value };
            if (page.nextCursor === null) return;
            cursor = page.nextCursor;
          }
        };
        return { columns: ['key'], rows };
      }
      case 'submissions': {
        const space = submissions.space(caller, name);
        // Refused before the first byte when the caller may not list them.
        const first = await submissions.list(caller, space, { limit: String(PAGE) });
        const rows = async function* (): AsyncIterable<DataRow> {
          let page = first;
          for (let again = false; ; again = true) {
            if (again) page = await submissions.list(caller, space, { limit: String(PAGE), cursor: page.nextCursor });
            for (const s of page.entries)
              yield { fixed: [['userId', s.userId], ...(await people.of(s.userId)), ['updatedAt', iso(s.updatedAt)]], valueJson: s.value };
            if (page.nextCursor === null) return;
          }
        };
        return { columns: ['userId', 'name', 'email', 'updatedAt'], rows };
      }
      case 'collection': {
        const open = collections.open(caller, name);
        collections.require(open, 'read');
        const rows = async function* (): AsyncIterable<DataRow> {
          let cursor = '';
          for (;;) {
            const page = await collections.readablePage(open, cursor, PAGE);
            for (const r of page)
              yield {
                fixed: [['id', r.id], ['authorId', r.authorId], ...(await people.of(r.authorId)), ['updatedAt', iso(r.updatedAt)]],
                valueJson: r.value,
              };
            if (page.length < PAGE) return;
            cursor = page[page.length - 1]!.id;
          }
        };
        return { columns: ['id', 'authorId', 'name', 'email', 'updatedAt'], rows };
      }
      case 'files': {
        const listed = await files.list(caller);
        const rows = async function* (): AsyncIterable<DataRow> {
          for (const f of listed)
            yield {
              fixed: [
                ['id', f.id],
                ['name', f.name],
                ['size', f.size],
                ['mime', f.mime],
                ['scope', f.scope],
                ['group', f.group ?? null],
                ['uploadedBy', f.uploadedBy],
                ...(await people.of(f.uploadedBy)).map(([k, v]): [string, string] => [k === 'name' ? 'uploaderName' : 'uploaderEmail', v]),
                ['createdAt', iso(f.createdAt)],
              ],
              valueJson: null,
            };
        };
        return {
          columns: ['id', 'name', 'size', 'mime', 'scope', 'group', 'uploadedBy', 'uploaderName', 'uploaderEmail', 'createdAt'],
          rows,
        };
      }
    }
  }

  /** The files the caller may read, their bytes in one streamed ZIP; each file's right is checked again as it is read. */
  async zipFiles(canvas: Canvas, user: User, role: CanvasRole | null): Promise<ReadableStream<Uint8Array>> {
    const caller = callerFor(canvas, user, role);
    const { files, blobs } = this.deps;
    const listed = await files.list(caller);
    const entries = async function* (): AsyncIterable<ZippedFile> {
      for (const f of listed)
        yield {
          name: f.name,
          open: async () => {
            const file = await files.open(caller, f.id).catch(() => null);
            if (file === null || !(await blobs.local(file.hash))) return null;
            return blobs.file(file.hash).stream();
          },
        };
    };
    return zipStream(entries());
  }

  /** Every export is audited with what was exported, never the data. */
  async audited(canvasId: string, actorId: string, asAdmin: boolean, kind: ExportKind, name: string | null, format: string): Promise<void> {
    await this.deps.audit.record({
      actorId,
      actorKind: asAdmin ? 'admin' : 'user',
      canvasId,
      action: 'data.export',
      detail: { kind, ...(name === null ? {} : { name }), format },
    });
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The caller the runtime services would see: an instance admin without a role has none here (admin status never implies one). */
function callerFor(canvas: Canvas, user: User, role: CanvasRole | null): RuntimeCaller {
  if (role === null) throw new AppError('PERMISSION_DENIED', 'exports follow the runtime read rules, and you hold no role on this canvas');
  return { canvas, principal: { kind: 'user', user, via: 'session' }, user, actorId: user.id, actorName: user.name, role, kind: 'member' };
}

/** Names and emails of the people behind ids, resolved at export time, each once. */
class People {
  private readonly known = new Map<string, Array<[string, string]>>();

  constructor(
    private readonly users: Pick<UserStore, 'byId'>,
    private readonly guests: Pick<GuestStore, 'invite'>,
    private readonly canvasId: string,
  ) {}

  async of(id: string): Promise<Array<[string, string]>> {
    let found = this.known.get(id);
    if (!found) {
      if (id.startsWith('guest:')) {
        const invite = await this.guests.invite(this.canvasId, id.slice('guest:'.length));
        found = [
          ['name', invite?.name ?? ''],
          ['email', ''],
        ];
      } else {
        const user = await this.users.byId(id);
        found = [
          ['name', user?.name ?? ''],
          ['email', user?.email ?? ''],
        ];
      }
      this.known.set(id, found);
    }
    return found;
  }
}
