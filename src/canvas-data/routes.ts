// GET /api/canvases/{id}/data (the summary) and its exports (CONTRACT §9,
// 2026-11-28): owners, editors and admins reach them, anyone else gets 404;
// the right to the canvas is checked before anything is read. Exports stream
// (JSON, NDJSON or CSV) as an attachment named after the canvas and the day.
import type { Core } from '../foundation.ts';
import { managedCanvas, type Actor, type Managed } from '../canvases/authority.ts';
import { sessionRoute } from '../auth/door-routes.ts';
import type { ErrorCode } from '../errors.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { declaredRoutes } from '../http/declared-route.ts';
import { checkStrict } from '../http/json-body.ts';
import { CONTENT_TYPES, exportStream } from './format.ts';
import { DataSummaryAnswer, EXPORT_ANSWER, EXPORT_ERRORS, ExportQuery, ExportQueryDoc, PRIVATE } from './model.ts';
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

/** The canvases answer who may manage one; the clock names the exported files; the data is the service's. */
export function canvasDataRoutes(ctx: Pick<Core, 'canvases' | 'now'>, auth: AuthKinds, data: CanvasDataService) {
  const exported = async (actor: Actor, id: string, request: Request, kind: Exclude<ExportKind, 'files.zip'>, name: string | null) => {
    const managed: Managed = await managedCanvas(ctx, actor, id, 'manage');
    // The whole query, strictly (an unknown parameter is refused), after the right to the canvas.
    const query = Object.fromEntries(new URL(request.url).searchParams);
    checkStrict(ExportQuery, query);
    const format = query.format ?? 'json';
    const prepared = await data.prepare(managed.canvas, actor.user, managed.role, kind, name);
    await data.audited(managed.canvas.id, actor.user.id, managed.asAdmin, kind, name, format);
    return new Response(exportStream(format, prepared.columns, prepared.rows), {
      headers: attachment(CONTENT_TYPES[format], fileName(managed.canvas.slug, kind, name, ctx.now()), EXTENSIONS[format]),
    });
  };
  const exportRoute = <P extends string>(path: P, summary: string, more: ErrorCode[] = []) =>
    ({
      method: 'GET',
      path,
      tag: 'Management',
      summary,
      query: ExportQueryDoc,
      answer: EXPORT_ANSWER,
      errors: [...EXPORT_ERRORS, ...more],
    }) as const;
  return declaredRoutes('canvas-data', auth, [
    sessionRoute(
      {
        method: 'GET',
        path: '/api/canvases/:id/data',
        summary: 'What the canvas holds, in counts and bytes (KV, collections, submissions, files)',
        answer: DataSummaryAnswer,
        errors: ['NOT_FOUND'],
        headers: PRIVATE,
      },
      async ({ actor, params }) => data.summary((await managedCanvas(ctx, actor, params.id, 'manage')).canvas),
    ),
    sessionRoute(
      exportRoute('/api/canvases/:id/data/kv', 'Export the shared KV keys (never the per-viewer scope)'),
      ({ actor, params, request }) => exported(actor, params.id, request, 'kv', null),
    ),
    sessionRoute(
      exportRoute('/api/canvases/:id/data/collections/:name', "Export a collection's records the caller may read", [
        'COLLECTION_NOT_CONFIGURED',
      ]),
      ({ actor, params, request }) => exported(actor, params.id, request, 'collection', params.name),
    ),
    sessionRoute(
      exportRoute('/api/canvases/:id/data/submissions/:collection', 'Export a submissions collection (owners and editors)'),
      ({ actor, params, request }) => exported(actor, params.id, request, 'submissions', params.collection),
    ),
    sessionRoute(
      exportRoute('/api/canvases/:id/data/files', 'Export the list of runtime files the caller may read'),
      ({ actor, params, request }) => exported(actor, params.id, request, 'files', null),
    ),
    sessionRoute(
      {
        method: 'GET',
        path: '/api/canvases/:id/data/files.zip',
        summary: 'The runtime files the caller may read, in one ZIP',
        answer: { contentType: 'application/zip', description: 'a ZIP of stored entries, one per file, streamed' },
        errors: ['NOT_FOUND', 'PERMISSION_DENIED'],
      },
      async ({ actor, params }) => {
        const managed = await managedCanvas(ctx, actor, params.id, 'manage');
        const body = await data.zipFiles(managed.canvas, actor.user, managed.role);
        await data.audited(managed.canvas.id, actor.user.id, managed.asAdmin, 'files.zip', null, 'zip');
        return new Response(body, {
          headers: attachment('application/zip', fileName(managed.canvas.slug, 'files', null, ctx.now()), 'zip'),
        });
      },
    ),
  ]);
}
