// GET/PUT /api/canvases/{id}/webhooks and a hook's last deliveries (CONTRACT
// §9, tranche 3 "Webhooks"): owners, editors and admins; anyone else gets
// 404 before the body is read. PUT replaces the list: a hook kept is named
// by id, a new one gets an id and its signing secret, shown in that answer
// only. Secrets are never in any other answer.
import { actorKind, managedCanvas } from '../canvases/authority.ts';
import { sessionRoute } from '../auth/door-routes.ts';
import { managedOnce } from '../canvases/managed-once.ts';
import type { Core } from '../foundation.ts';
import { declaredRoutes } from '../http/declared-route.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { DeliveriesAnswer, eventsColumn, PutWebhooksBody, receiverUrl, WebhooksAnswer } from './model.ts';
import type { WebhookService } from './service.ts';

const PRIVATE = { 'cache-control': 'private, no-store' };

/** The canvases answer who may manage one (src/canvases/authority.ts); the hooks are the service's. */
export function webhookRoutes(ctx: Pick<Core, 'canvases'>, auth: AuthKinds, hooks: WebhookService) {
  const canvasOf = managedOnce(ctx);
  const described = (summary: string) => ({ summary, headers: PRIVATE });
  return declaredRoutes('webhooks', auth, [
    sessionRoute(
      {
        method: 'GET',
        path: '/api/canvases/:id/webhooks',
        ...described("The canvas's webhooks: URL, events, active, last delivery (never their signing secrets)"),
        answer: WebhooksAnswer,
        errors: ['NOT_FOUND'],
      },
      async ({ actor, params }) => {
        const managed = await managedCanvas(ctx, actor, params.id, 'manage');
        return { hooks: await hooks.list(managed.canvas.id) };
      },
    ),
    sessionRoute(
      {
        method: 'PUT',
        path: '/api/canvases/:id/webhooks',
        ...described(
          "Replace the canvas's webhooks (at most 10; keep one by sending its id): a new hook's signing secret is in this answer only",
        ),
        body: PutWebhooksBody,
        bodyOptions: { maxBytes: 64 * 1024 },
        answer: WebhooksAnswer,
        errors: ['NOT_FOUND', 'INVALID_BODY'],
      },
      {
        check: async ({ actor, params, request }) => void (await canvasOf(actor, params.id, request)),
        handle: async ({ actor, params, request, body }) => {
          const managed = await canvasOf(actor, params.id, request);
          const wanted = body.hooks.map((h, i) => ({
            id: h.id,
            url: receiverUrl(h.url, `hooks[${i}].url`),
            events: eventsColumn(h.events),
            active: h.active,
          }));
          // The new hooks' secrets, this once.
          return { hooks: await hooks.replace(managed.canvas.id, wanted, { actorId: actor.user.id, actorKind: actorKind(managed) }) };
        },
      },
    ),
    sessionRoute(
      {
        method: 'GET',
        path: '/api/canvases/:id/webhooks/:hookId/deliveries',
        ...described("A webhook's last 50 deliveries: status, HTTP status, duration, attempts, time"),
        answer: DeliveriesAnswer,
        errors: ['NOT_FOUND'],
      },
      async ({ actor, params }) => {
        const managed = await managedCanvas(ctx, actor, params.id, 'manage');
        return { deliveries: await hooks.deliveries(managed.canvas.id, params.hookId) };
      },
    ),
  ]);
}
