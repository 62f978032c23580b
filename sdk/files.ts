// easel.files: upload, list, rename, delete, and the content URL.
import { EaselError } from './errors.ts';
import type { Transport } from './request.ts';
import type { FileRecord, UploadResult } from './wire.ts';
export type { FileRecord, UploadResult } from './wire.ts';

/** Where the file belongs: `scope` (`shared`, the default, or `submission`), or a file `group`, or a `collection` record. */
export interface UploadOptions {
  scope?: 'shared' | 'submission';
  group?: string;
  collection?: string;
  recordId?: string;
}

export interface Files {
  upload(file: Blob, options?: UploadOptions): Promise<UploadResult>;
  /** Shared files, plus the viewer's own submission files. */
  list(): Promise<FileRecord[]>;
  rename(id: string, name: string): Promise<FileRecord>;
  delete(id: string): Promise<{ ok: true }>;
  /** Synchronous: the absolute content URL (usable as an <img src> or a link). */
  url(id: string): string;
}

export function createFiles(t: Transport): Files {
  const path = (id: string) => `/files/${encodeURIComponent(id)}`;
  const url = (id: string) => t.url(`${path(id)}/content`);
  return Object.freeze({
    async upload(file: Blob, options: UploadOptions = {}) {
      if (!(file instanceof Blob))
        throw new EaselError('INVALID_BODY', 400, 'upload takes a File or a Blob (new Blob([text]) for a string)');
      const form = new FormData();
      // Fields before the file, so a refusal comes before any byte is stored.
      for (const name of ['scope', 'group', 'collection', 'recordId'] as const) {
        const value = options[name];
        if (value !== undefined && value !== null) form.append(name, String(value));
      }
      // A Blob has no name (browsers would say "blob"): the server's default name is `upload`.
      const named = typeof File !== 'undefined' && file instanceof File;
      form.append('file', file, named ? (file as File).name : 'upload');
      const result = await t.request<UploadResult>('POST', '/files', { body: form });
      return { ...result, url: url(result.id) };
    },
    async list() {
      return (await t.request<{ files: FileRecord[] }>('GET', '/files')).files;
    },
    rename: (id: string, name: string) => t.request<FileRecord>('PATCH', path(id), { json: { name } }),
    delete: (id: string) => t.request<{ ok: true }>('DELETE', path(id)),
    url,
  });
}
