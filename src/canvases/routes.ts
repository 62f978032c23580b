// Management API: /api/canvases (CONTRACT §4, minus guest invites and tokens).
// Every route: the caller (401, 429), then their right to the canvas (404,
// 403), then the body (400), then the rule itself.
import { Elysia } from 'elysia';
import type { AppContext } from '../context.ts';
import { json } from '../http/respond.ts';
import { managedCanvas, type Need } from './authority.ts';
import { jsonBody, rawBody } from '../http/json-body.ts';
import { setCapabilities } from './capabilities.ts';
import { managementActor } from './guard.ts';
import { listMembers, putMember, removeMember } from './members.ts';
import { CapabilitiesBody, CreateCanvasBody, PatchCanvasBody, PutMemberBody } from './model.ts';
import {
  createCanvas,
  deleteCanvas,
  getCanvas,
  listCanvases,
  regenerateKey,
  setArchived,
  updateCanvas,
  type CanvasWithRole,
} from './service.ts';
import { canvasView } from './view.ts';

export function canvasRoutes(ctx: AppContext) {
  const view = (r: CanvasWithRole) => canvasView(ctx.config, r.canvas, r.role);
  const ok = (body: unknown, status = 200) => json(status, body, { 'cache-control': 'no-store' });
  const actor = (request: Request) => managementActor(ctx, request);
  /** The actor, already known to hold `need` on the canvas (so the body is checked only for them). */
  const authorized = (request: Request, id: string, need: Need) => {
    const a = actor(request);
    managedCanvas(ctx, a, id, need);
    return a;
  };

  return new Elysia({ name: 'canvas-management' })
    .post(
      '/api/canvases',
      ({ request, body }) => {
        const a = actor(request);
        const created = createCanvas(ctx, a, jsonBody(CreateCanvasBody, request, body));
        return ok({ ...view(created), apiKey: created.apiKey }, 201);
      },
      rawBody,
    )
    .get('/api/canvases', ({ request }) => ok({ canvases: listCanvases(ctx, actor(request)).map(view) }))
    .get('/api/canvases/:id', ({ request, params }) => ok(view(getCanvas(ctx, actor(request), params.id))))
    .patch(
      '/api/canvases/:id',
      async ({ request, params, body }) => {
        const a = authorized(request, params.id, 'manage');
        return ok(view(await updateCanvas(ctx, a, params.id, jsonBody(PatchCanvasBody, request, body))));
      },
      rawBody,
    )
    .delete('/api/canvases/:id', ({ request, params }) => {
      deleteCanvas(ctx, actor(request), params.id);
      return ok({ ok: true });
    })
    .patch(
      '/api/canvases/:id/capabilities',
      ({ request, params, body }) => {
        const a = authorized(request, params.id, 'manage');
        return ok(view(setCapabilities(ctx, a, params.id, jsonBody(CapabilitiesBody, request, body))));
      },
      rawBody,
    )
    .post('/api/canvases/:id/regenerate-key', ({ request, params }) => ok(regenerateKey(ctx, actor(request), params.id)))
    .post('/api/canvases/:id/archive', ({ request, params }) => ok(view(setArchived(ctx, actor(request), params.id, true))))
    .post('/api/canvases/:id/restore', ({ request, params }) => ok(view(setArchived(ctx, actor(request), params.id, false))))
    .get('/api/canvases/:id/members', ({ request, params }) => ok({ members: listMembers(ctx, actor(request), params.id) }))
    .put(
      '/api/canvases/:id/members',
      ({ request, params, body }) => {
        const a = authorized(request, params.id, 'manage');
        return ok(putMember(ctx, a, params.id, jsonBody(PutMemberBody, request, body)));
      },
      rawBody,
    )
    .delete('/api/canvases/:id/members/:userId', ({ request, params }) => {
      removeMember(ctx, actor(request), params.id, params.userId);
      return ok({ ok: true });
    });
}
