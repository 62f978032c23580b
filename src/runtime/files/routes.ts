import { Elysia } from 'elysia';
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import type { AuthKinds } from '../../server/auth-kinds.ts';
import { readJson } from '../../http/json-body.ts';
import { matchingEtag } from '../../serve/send-file.ts';
import { runtimeJson } from '../runtime-request.ts';
import { contentDisposition } from './disposition.ts';
import { fileId, RenameBody } from './model.ts';
import { boundaryOf, MultipartError, MultipartTooLargeError, readMultipart } from '../../http/multipart.ts';
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

/** POST/GET /v1/c/{slug}/files, GET /files/{id}/content, PATCH and DELETE /files/{id}. */
export function fileRoutes(ctx: AppContext, auth: AuthKinds, files: FileService) {
  const renameRefused = () => new AppError('INVALID_BODY', 'send {"name": "<new name>"}');

  return new Elysia({ name: 'runtime-files' }).use(auth).guard({ runtime: 'files', parse: 'none' }, (app) =>
    app
      .post('/v1/c/:slug/files', async ({ caller, request }) => {
        const boundary = boundaryOf(request.headers.get('content-type'));
        if (!boundary || !request.body) throw new AppError('INVALID_BODY', 'upload a file as multipart/form-data with a `file` part');
        // The whole body, declared or streamed (chunked), is held to the file cap plus room for the rest of the form.
        const declared = Number(request.headers.get('content-length') ?? 0);
        const { filesBytesFile } = ctx.settings.get();
        const maxBody = filesBytesFile + MULTIPART_OVERHEAD;
        if (declared > maxBody) throw fileTooLarge(filesBytesFile);
        ctx.blobs.ensureRoom(declared);
        try {
          return runtimeJson(201, await files.upload(caller, readMultipart(request.body, boundary, maxBody)));
        } catch (err) {
          if (err instanceof MultipartError) throw new AppError('INVALID_BODY', err.message);
          if (err instanceof MultipartTooLargeError) throw fileTooLarge(filesBytesFile);
          throw err;
        }
      })
      .get('/v1/c/:slug/files', async ({ caller }) => runtimeJson(200, { files: await files.list(caller) }))
      .get('/v1/c/:slug/files/:id/content', async ({ caller, params, request }) => {
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
      })
      .patch('/v1/c/:slug/files/:id', async ({ caller, params, request }) => {
        const id = (await files.changeable(caller, fileId(params.id))).id;
        const body = await readJson(request, RenameBody, {
          maxBytes: MAX_RENAME_BODY,
          jsonTypeOnly: false,
          invalid: renameRefused,
          tooLarge: renameRefused,
        });
        return runtimeJson(200, await files.rename(caller, id, newName(body)));
      })
      .delete('/v1/c/:slug/files/:id', async ({ caller, params }) => {
        await files.delete(caller, fileId(params.id));
        return runtimeJson(200, { ok: true });
      }),
  );
}
