// GET/PUT /api/canvases/{id}/gallery (owners, editors, admins), GET
// /api/gallery?q= (what the caller may open), POST /api/gallery/{id}/use
// (a template into a new canvas of the caller).
import { Type as T } from '@sinclair/typebox';
import { managedCanvas } from '../canvases/authority.ts';
import { sessionRoute } from '../auth/door-routes.ts';
import { canvasView } from '../canvases/view.ts';
import type { Core } from '../foundation.ts';
import { declaredRoutes } from '../http/declared-route.ts';
import { CanvasCreated } from '../openapi/schemas.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { GalleryBody, GalleryList, GallerySettingsAnswer, UseTemplateBody } from './model.ts';
import type { Gallery } from './service.ts';

export function galleryRoutes(ctx: Pick<Core, 'canvases' | 'config'>, auth: AuthKinds, gallery: Gallery) {
  return declaredRoutes('gallery', auth, [
    sessionRoute(
      {
        method: 'GET',
        path: '/api/canvases/:id/gallery',
        summary: 'Whether the canvas is listed in the gallery and offered as a template',
        answer: GallerySettingsAnswer,
        errors: ['NOT_FOUND'],
      },
      async ({ actor, params }) => gallery.settings(actor, params.id),
    ),
    sessionRoute(
      {
        method: 'PUT',
        path: '/api/canvases/:id/gallery',
        summary: 'List the canvas in the gallery (published only), offer it as a template',
        body: GalleryBody,
        answer: GallerySettingsAnswer,
        errors: ['NOT_FOUND', 'INVALID_BODY', 'NOT_PUBLISHED'],
      },
      {
        // The right to the canvas before its body (404 before 400).
        check: async ({ actor, params }) => void (await managedCanvas(ctx, actor, params.id, 'manage')),
        handle: async ({ actor, params, body }) => gallery.set(actor, params.id, body),
      },
    ),
    sessionRoute(
      {
        method: 'GET',
        path: '/api/gallery',
        summary: 'Listed canvases you may open, searched by title',
        query: T.Object({ q: T.Optional(T.String({ description: 'search text' })) }),
        answer: GalleryList,
      },
      async ({ actor, query }) => {
        const q = (query.q ?? '').trim().slice(0, 200);
        return { canvases: await gallery.list({ kind: 'user', user: actor.user, via: 'session' }, q) };
      },
    ),
    sessionRoute(
      {
        method: 'POST',
        path: '/api/gallery/:id/use',
        summary: "A new canvas of yours from a template's live version (its deploy key shown once)",
        body: UseTemplateBody,
        bodyOptions: { emptyAs: {} },
        answer: CanvasCreated,
        status: 201,
        errors: ['NOT_FOUND', 'PERMISSION_DENIED', 'QUOTA_EXCEEDED', 'INVALID_BODY'],
      },
      {
        // The right to the template before the body (404, 403 before 400).
        check: async ({ actor, params }) => void (await gallery.template(actor, params.id)),
        handle: async ({ actor, params, body }) => {
          const made = await gallery.useTemplate(actor, params.id, body.title);
          return { ...canvasView(ctx.config, made.canvas, 'owner'), apiKey: made.apiKey };
        },
      },
    ),
  ]);
}
