import type { Core } from '../../foundation.ts';
import { AppError } from '../../errors.ts';
import { declaredRoutes } from '../../http/declared-route.ts';
import { boundaryOf, MultipartError, MultipartTooLargeError, readMultipart } from '../../http/multipart.ts';
import { Ok } from '../../openapi/schemas.ts';
import { matchingEtag } from '../../serve/send-file.ts';
import type { AuthKinds } from '../../server/auth-kinds.ts';
import { runtimeRoute } from '../door-routes.ts';
import { contentDisposition } from './disposition.ts';
import { FileList, FileRecord, fileId, RenameBody, UploadResult } from './model.ts';
import type { FileService } from './service.ts';

const MAX_RENAME_BODY = 4096;
/** Room for the form's other parts and headers around the file itself. */
const MULTIPART_OVERHEAD = 64 * 1024;

const fileTooLarge = (cap: number) => new AppError('FILE_TOO_LARGE', `files are at most ${cap} bytes`, { quota: 'files.bytes.file' });

/** The new name: trimmed, 1 to 255 characters, no control characters. */
function newName(body: RenameBody): string {
  const name = body.name.trim();
  if (name === '' || [...name].length > 255) throw new AppError('INVALID_BODY', 'name must be 1 to 255 characters');
  if (/[\x00-\x1f\x7f]/.test(name)) throw new AppError('INVALID_BODY', 'name must not contain control characters');
  return name;
}

const renameRefused = () => new AppError('INVALID_BODY', 'send {"name": "<new name>"}');

/** POST/GET /v1/c/{slug}/files, GET /files/{id}/content, PATCH and DELETE /files/{id}. A malformed file id is 400. */
export function fileRoutes(ctx: Pick<Core, 'blobs' | 'log' | 'settings'>, auth: AuthKinds, files: FileService) {
  const route = { doorOption: 'files' as const };
  return declaredRoutes('runtime-files', auth, [
    runtimeRoute(
      {
        method: 'POST',
        path: '/v1/c/:slug/files',
        ...route,
        summary: 'Upload a file (multipart/form-data, field "file")',
        body: { contentType: 'multipart/form-data', description: 'one part named file' },
        answer: UploadResult,
        status: 201,
        errors: [
          'INVALID_BODY',
          'BODY_TOO_LARGE',
          'PERMISSION_DENIED',
          'FILE_TOO_LARGE',
          'QUOTA_EXCEEDED',
          'INSUFFICIENT_STORAGE',
          'STORAGE_UNAVAILABLE',
          // A file group the policy does not configure; an attachment's record absent or hidden.
          'COLLECTION_NOT_CONFIGURED',
          'NOT_FOUND',
        ],
      },
      async ({ caller, request }) => {
        const boundary = boundaryOf(request.headers.get('content-type'));
        if (!boundary || !request.body) throw new AppError('INVALID_BODY', 'upload a file as multipart/form-data with a `file` part');
        // The whole body, declared or streamed (chunked), is held to the file cap plus room for the rest of the form.
        const declared = Number(request.headers.get('content-length') ?? 0);
        const { filesBytesFile } = ctx.settings.get();
        const maxBody = filesBytesFile + MULTIPART_OVERHEAD;
        if (declared > maxBody) throw fileTooLarge(filesBytesFile);
        ctx.blobs.ensureRoom(declared);
        try {
          return await files.upload(caller, readMultipart(request.body, boundary, maxBody));
        } catch (err) {
          if (err instanceof MultipartError) throw new AppError('INVALID_BODY', err.message);
          if (err instanceof MultipartTooLargeError) throw fileTooLarge(filesBytesFile);
          throw err;
        }
      },
    ),
    runtimeRoute({ method: 'GET', path: '/v1/c/:slug/files', ...route, summary: 'List files', answer: FileList }, async ({ caller }) => ({
      files: await files.list(caller),
    })),
    runtimeRoute(
      {
        method: 'GET',
        path: '/v1/c/:slug/files/:id/content',
        ...route,
        summary: "A file's bytes (Range and ETag)",
        answer: { contentType: 'application/octet-stream', description: 'the file, with its own type; 304 to a matching If-None-Match' },
        errors: ['INVALID_BODY', 'NOT_FOUND'],
      },
      async ({ caller, params, request }) => {
        const file = await files.open(caller, fileId(params.id));
        const blob = ctx.blobs.file(file.hash);
        if (!(await ctx.blobs.local(file.hash))) {
          ctx.log.error('runtime file blob missing', { fileId: file.id, canvasId: file.canvasId });
          throw new AppError('NOT_FOUND', 'no such file');
        }
        const etag = `"${file.hash}"`;
        const headers: Record<string, string> = {
          'content-type': file.mime,
          'content-disposition': contentDisposition(file.mime, file.name),
          'x-content-type-options': 'nosniff',
          'content-security-policy': 'sandbox',
          'cross-origin-resource-policy': 'same-site',
          // Access can change at any time: revalidate on every use.
          'cache-control': 'private, no-cache',
          etag,
        };
        // Weak tags, lists and `*` match as for pages (weak comparison, RFC 9110 §13.1.2).
        const ifNoneMatch = request.headers.get('if-none-match');
        if (ifNoneMatch !== null && matchingEtag(ifNoneMatch, file.hash)) return new Response(null, { status: 304, headers });
        return new Response(blob, { status: 200, headers });
      },
    ),
    runtimeRoute(
      {
        method: 'PATCH',
        path: '/v1/c/:slug/files/:id',
        ...route,
        summary: 'Rename a file',
        body: RenameBody,
        bodyOptions: { maxBytes: MAX_RENAME_BODY, jsonTypeOnly: false, invalid: renameRefused, tooLarge: renameRefused },
        answer: FileRecord,
        errors: ['INVALID_BODY', 'BODY_TOO_LARGE', 'PERMISSION_DENIED', 'NOT_FOUND'],
      },
      {
        // The right to the file before its body.
        check: async ({ caller, params }) => void (await files.changeable(caller, fileId(params.id))),
        handle: async ({ caller, params, body }) => files.rename(caller, fileId(params.id), newName(body)),
      },
    ),
    runtimeRoute(
      {
        method: 'DELETE',
        path: '/v1/c/:slug/files/:id',
        ...route,
        summary: 'Delete a file',
        answer: Ok,
        errors: ['INVALID_BODY', 'PERMISSION_DENIED', 'NOT_FOUND'],
      },
      async ({ caller, params }) => {
        await files.delete(caller, fileId(params.id));
        return { ok: true as const };
      },
    ),
  ]);
}
