// GET/PUT /api/canvases/{id}/webhooks and a hook's last deliveries (CONTRACT
// §9, tranche 3 "Webhooks"): owners, editors and admins; anyone else gets
// 404 before the body is read. PUT replaces the list: a hook kept is named
// by id, a new one gets an id and its signing secret, shown in that answer
// only. Secrets are never in any other answer.
import { Elysia } from 'elysia';
import { actorKind, managedCanvas } from '../canvases/authority.ts';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { readJson } from '../http/json-body.ts';
import { json } from '../http/respond.ts';
import type { WebhooksFeature } from './feature.ts';
import { eventsColumn, PutWebhooksBody, receiverUrl } from './model.ts';
import { newSecret, storedSecret } from './secret.ts';

const PRIVATE = { 'cache-control': 'private, no-store' };

export function webhookRoutes(ctx: AppContext, auth: AuthKinds, webhooks: WebhooksFeature) {
  const { store } = webhooks;
  return new Elysia({ name: 'webhooks' }).use(auth).guard({ management: true, parse: 'none' }, (app) =>
    app
      .get('/api/canvases/:id/webhooks', async ({ actor, params }) => {
        const managed = await managedCanvas(ctx, actor, params.id, 'manage');
        return json(200, { hooks: await store.list(managed.canvas.id) }, PRIVATE);
      })
      .put('/api/canvases/:id/webhooks', async ({ actor, params, request }) => {
        const managed = await managedCanvas(ctx, actor, params.id, 'manage');
        const body = await readJson(request, PutWebhooksBody, { maxBytes: 64 * 1024 });
        const wanted = body.hooks.map((h, i) => ({
          id: h.id,
          url: receiverUrl(h.url, `hooks[${i}].url`),
          events: eventsColumn(h.events),
          active: h.active,
        }));
        const secrets = new Map<string, string>();
        const ids = await store.replace(managed.canvas.id, wanted, ctx.now(), (id) => {
          const secret = newSecret();
          secrets.set(id, secret);
          return storedSecret(ctx.config.secretKey, id, secret);
        });
        await ctx.audit.record({
          actorId: actor.user.id,
          actorKind: actorKind(managed),
          canvasId: managed.canvas.id,
          action: 'webhooks.changed',
          detail: { hooks: wanted.length, added: ids.filter((id) => id !== null).length },
        });
        const hooks = await store.list(managed.canvas.id);
        // The new hooks' secrets, this once.
        return json(200, { hooks: hooks.map((h) => (secrets.has(h.id) ? { ...h, secret: secrets.get(h.id) } : h)) }, PRIVATE);
      })
      .get('/api/canvases/:id/webhooks/:hookId/deliveries', async ({ actor, params }) => {
        const managed = await managedCanvas(ctx, actor, params.id, 'manage');
        if (!(await store.has(managed.canvas.id, params.hookId))) throw new AppError('NOT_FOUND', 'no such webhook on this canvas');
        return json(200, { deliveries: await store.deliveries(params.hookId) }, PRIVATE);
      }),
  );
}
