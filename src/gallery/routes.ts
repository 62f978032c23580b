// GET/PUT /api/canvases/{id}/gallery (owners, editors, admins), GET
// /api/gallery?q= (what the caller may open), POST /api/gallery/{id}/use
// (a template into a new canvas of the caller).
import { Elysia, t } from 'elysia';
import { canvasView } from '../canvases/view.ts';
import type { AppContext } from '../context.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { readJson } from '../http/json-body.ts';
import { json } from '../http/respond.ts';
import type { Gallery } from './service.ts';

export const GalleryBody = t.Object(
  { listed: t.Optional(t.Boolean()), templatable: t.Optional(t.Boolean()) },
  { additionalProperties: false },
);
export const UseTemplateBody = t.Object({ title: t.Optional(t.String({ minLength: 1, maxLength: 200 })) }, { additionalProperties: false });

export function galleryRoutes(ctx: AppContext, auth: AuthKinds, gallery: Gallery) {
  const ok = (body: unknown, status = 200) => json(status, body, { 'cache-control': 'no-store' });
  return new Elysia({ name: 'gallery' }).use(auth).guard({ management: true, parse: 'none' }, (app) =>
    app
      .get('/api/canvases/:id/gallery', async ({ actor, params }) => ok(await gallery.settings(actor, params.id)))
      .put('/api/canvases/:id/gallery', async ({ actor, params, request }) =>
        ok(await gallery.set(actor, params.id, await readJson(request, GalleryBody))),
      )
      .get('/api/gallery', async ({ actor, request }) => {
        const q = (new URL(request.url).searchParams.get('q') ?? '').trim().slice(0, 200);
        return ok({ canvases: await gallery.list({ kind: 'user', user: actor.user, via: 'session' }, q) });
      })
      .post('/api/gallery/:id/use', async ({ actor, params, request }) => {
        const { title } = await readJson(request, UseTemplateBody, { emptyAs: {} });
        const made = await gallery.useTemplate(actor, params.id, title);
        return ok({ ...canvasView(ctx.config, made.canvas, 'owner'), apiKey: made.apiKey }, 201);
      }),
  );
}
