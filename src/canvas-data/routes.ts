// GET /api/canvases/{id}/data (the summary) and its exports (CONTRACT §9,
// 2026-11-28): owners, editors and admins reach them, anyone else gets 404;
// the right to the canvas is checked before anything is read. Exports stream
// (JSON, NDJSON or CSV) as an attachment named after the canvas and the day.
import { Elysia } from 'elysia';
import type { AppContext } from '../context.ts';
import { managedCanvas, type Managed } from '../canvases/authority.ts';
import type { Actor } from '../canvases/authority.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { checkStrict } from '../http/json-body.ts';
import { json } from '../http/respond.ts';
import { CONTENT_TYPES, exportStream } from './format.ts';
import { ExportQuery } from './model.ts';
import type { ExportFormat } from './rows.ts';
import type { CanvasDataService, ExportKind } from './service.ts';

const EXTENSIONS: Record<ExportFormat, string> = { json: 'json', ndjson: 'ndjson', csv: 'csv' };

/** `{slug}-{kind}[-{name}]-{YYYY-MM-DD}`: slugs and resource names are already safe in a file name. */
function fileName(slug: string, kind: string, name: string | null, now: number): string {
  return [slug, kind, name, new Date(now).toISOString().slice(0, 10)].filter(Boolean).join('-');
}

function attachment(type: string, name: string, extension: string): Record<string, string> {
  return {
    'content-type': type,
    'content-disposition': `attachment; filename="${name}.${extension}"`,
    'cache-control': 'private, no-store',
    'x-content-type-options': 'nosniff',
  };
}

export function canvasDataRoutes(ctx: AppContext, auth: AuthKinds, data: CanvasDataService) {
  const exported = async (actor: Actor, id: string, request: Request, kind: Exclude<ExportKind, 'files.zip'>, name: string | null) => {
    const managed: Managed = await managedCanvas(ctx, actor, id, 'manage');
    const query = Object.fromEntries(new URL(request.url).searchParams);
    checkStrict(ExportQuery, query);
    const format = query.format ?? 'json';
    const prepared = await data.prepare(managed.canvas, actor.user, managed.role, kind, name);
    await data.audited(managed.canvas.id, actor.user.id, managed.asAdmin, kind, name, format);
    return new Response(exportStream(format, prepared.columns, prepared.rows), {
      headers: attachment(CONTENT_TYPES[format], fileName(managed.canvas.slug, kind, name, ctx.now()), EXTENSIONS[format]),
    });
  };
  return new Elysia({ name: 'canvas-data' }).use(auth).guard({ management: true, parse: 'none' }, (app) =>
    app
      .get('/api/canvases/:id/data', async ({ actor, params }) => {
        const managed = await managedCanvas(ctx, actor, params.id, 'manage');
        return json(200, await data.summary(managed.canvas), { 'cache-control': 'private, no-store' });
      })
      .get('/api/canvases/:id/data/kv', ({ actor, params, request }) => exported(actor, params.id, request, 'kv', null))
      .get('/api/canvases/:id/data/collections/:name', ({ actor, params, request }) =>
        exported(actor, params.id, request, 'collection', params.name),
      )
      .get('/api/canvases/:id/data/submissions/:collection', ({ actor, params, request }) =>
        exported(actor, params.id, request, 'submissions', params.collection),
      )
      .get('/api/canvases/:id/data/files', ({ actor, params, request }) => exported(actor, params.id, request, 'files', null))
      .get('/api/canvases/:id/data/files.zip', async ({ actor, params }) => {
        const managed = await managedCanvas(ctx, actor, params.id, 'manage');
        const body = await data.zipFiles(managed.canvas, actor.user, managed.role);
        await data.audited(managed.canvas.id, actor.user.id, managed.asAdmin, 'files.zip', null, 'zip');
        return new Response(body, {
          headers: attachment('application/zip', fileName(managed.canvas.slug, 'files', null, ctx.now()), 'zip'),
        });
      }),
  );
}
