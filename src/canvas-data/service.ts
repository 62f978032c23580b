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
import type { FilePosition } from '../runtime/files/store.ts';
import type { KvService } from '../runtime/kv/service.ts';
import type { RuntimeCaller } from '../runtime/pipeline.ts';
import { allows } from '../policy/rights.ts';
import type { SubmissionService } from '../runtime/submissions/service.ts';
import type { BlobStore } from '../blobs/store.ts';
import { browsePage, browsePageOf, type BrowseKind } from './browse.ts';
import { zipStream, type ZippedFile } from './files-zip.ts';
import { removeItem, type Removed } from './remove.ts';
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

/** Where the rows start and what they hold; by default all of them, read 500 at a time. */
export interface RowsFrom {
  /** A row's `cursor`: the rows after it. */
  after?: string;
  /** Only the rows whose key or id or value text (a file's name) holds this, case-insensitively. */
  contains?: string | null;
  /** How many rows are read from the services at a time. */
  batch?: number;
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
   * as at runtime; refusals come before the first byte. `from` starts the
   * rows after a row's cursor, keeps only those holding a text, or reads
   * fewer at a time (the dashboard's browser asks for one page).
   */
  async prepare(
    canvas: Canvas,
    user: User,
    role: CanvasRole | null,
    kind: Exclude<ExportKind, 'files.zip'>,
    name: string | null,
    from: RowsFrom = {},
  ): Promise<PreparedExport> {
    const caller = callerFor(canvas, user, role);
    const people = new People(this.deps.users, this.deps.guests, canvas.id);
    const { kv, collections, submissions, files } = this.deps;
    const batch = from.batch ?? PAGE;
    const contains = from.contains ?? null;
    const start = from.after ?? '';
    switch (kind) {
      case 'kv': {
        // Shared keys only: the per-viewer scope is its viewer's alone.
        const first = await kv.list(caller, 'shared', { cursor: start, limit: String(batch) }, contains);
        const rows = async function* (): AsyncIterable<DataRow> {
          for (let page = first; ;) {
            for (const e of page.entries) yield { fixed: [['key', e.key]], valueJson: e.value, cursor: e.key };
            if (page.nextCursor === null) return;
            page = await kv.list(caller, 'shared', { cursor: page.nextCursor, limit: String(batch) }, contains);
          }
        };
        return { columns: ['key'], rows };
      }
      case 'submissions': {
        const space = submissions.space(caller, name);
        // Refused before the first byte when the caller may not list them.
        const first = await submissions.list(caller, space, { limit: String(batch), cursor: start }, contains);
        const rows = async function* (): AsyncIterable<DataRow> {
          for (let page = first; ;) {
            for (const s of page.entries)
              yield {
                fixed: [['userId', s.userId], ...(await people.of(s.userId)), ['updatedAt', iso(s.updatedAt)]],
                valueJson: s.value,
                cursor: s.userId,
              };
            if (page.nextCursor === null) return;
            page = await submissions.list(caller, space, { limit: String(batch), cursor: page.nextCursor }, contains);
          }
        };
        return { columns: ['userId', 'name', 'email', 'updatedAt'], rows };
      }
      case 'collection': {
        const open = collections.open(caller, name);
        const first = await collections.readablePage(open, start, batch, contains);
        const rows = async function* (): AsyncIterable<DataRow> {
          for (let page = first; ;) {
            for (const r of page)
              yield {
                fixed: [['id', r.id], ['authorId', r.authorId], ...(await people.of(r.authorId)), ['updatedAt', iso(r.updatedAt)]],
                valueJson: r.value,
                cursor: r.id,
              };
            if (page.length < batch) return;
            page = await collections.readablePage(open, page[page.length - 1]!.id, batch, contains);
          }
        };
        return { columns: ['id', 'authorId', 'name', 'email', 'updatedAt'], rows };
      }
      case 'files': {
        const first = await files.readablePage(caller, filePosition(start), batch, contains);
        const rows = async function* (): AsyncIterable<DataRow> {
          for (let page = first; ;) {
            for (const f of page)
              yield {
                fixed: [
                  ['id', f.id],
                  ['name', f.name],
                  ['size', f.size],
                  ['mime', f.mime],
                  ['scope', f.scope],
                  ['group', f.group ?? null],
                  ['uploadedBy', f.uploadedBy],
                  ...(await people.of(f.uploadedBy)).map(([k, v]): [string, string] => [
                    k === 'name' ? 'uploaderName' : 'uploaderEmail',
                    v,
                  ]),
                  ['createdAt', iso(f.createdAt)],
                ],
                valueJson: null,
                cursor: fileCursor(f),
              };
            if (page.length < batch) return;
            page = await files.readablePage(caller, page[page.length - 1]!, batch, contains);
          }
        };
        return {
          columns: ['id', 'name', 'size', 'mime', 'scope', 'group', 'uploadedBy', 'uploaderName', 'uploaderEmail', 'createdAt'],
          rows,
        };
      }
    }
  }

  /** A page for the dashboard's data browser, as JSON text `{items, next}`: the export's rows, by the export's rules. */
  async browse(
    canvas: Canvas,
    user: User,
    role: CanvasRole | null,
    kind: BrowseKind,
    name: string | null,
    query: Record<string, string>,
  ): Promise<string> {
    const caller = callerFor(canvas, user, role); // an admin without a role is refused before the query is read
    const page = browsePageOf(query);
    return browsePage(page, (from) => this.prepare(canvas, user, role, kind, name, from), this.deletable(caller, kind, name));
  }

  /**
   * Who may delete what, as removeItem's paths decide: shared keys, submissions
   * and files are the owners' and editors' (the only roles that reach here); a
   * collection record follows its policy's delete rule (anyone's, the
   * caller's own, or none).
   */
  private deletable(caller: RuntimeCaller, kind: BrowseKind, name: string | null): (row: DataRow) => boolean {
    if (kind !== 'collection') return () => true;
    const rule = this.deps.collections.open(caller, name).rights.delete;
    return (row) =>
      allows(
        rule,
        row.fixed.some(([column, value]) => column === 'authorId' && value === caller.actorId),
      );
  }

  /** Deletes one item as the runtime API would let the caller (see removeItem). */
  remove(
    canvas: Canvas,
    user: User,
    role: CanvasRole | null,
    kind: BrowseKind,
    name: string | null,
    item: string | null,
  ): Promise<Removed> {
    return removeItem(this.deps, callerFor(canvas, user, role), kind, name, item);
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
  if (role === null)
    throw new AppError('PERMISSION_DENIED', "a canvas's data follows the runtime API's rules, and you hold no role on this canvas");
  const principal = { kind: 'user', user, via: 'session' } as const;
  return { canvas, principal, user, actorId: user.id, actorName: user.name, role, kind: 'member', managing: true };
}

/** A file's place in the files' (createdAt, id) order, as one opaque cursor. */
function fileCursor(f: { createdAt: number; id: string }): string {
  return `${f.createdAt.toString(36)}.${f.id}`;
}

function filePosition(cursor: string): FilePosition | null {
  if (cursor === '') return null;
  const match = /^([0-9a-z]{1,11})\.([A-Za-z0-9_-]{1,64})$/.exec(cursor);
  if (!match) throw new AppError('INVALID_BODY', 'after: malformed cursor: pass a returned `next` unchanged');
  return { createdAt: parseInt(match[1]!, 36), id: match[2]! };
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
