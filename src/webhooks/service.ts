// A canvas's webhooks as the management API changes them (CONTRACT §9,
// tranche 3 "Webhooks"): the list, its replacement (a new hook's signing
// secret is answered this once, stored sealed), a hook's last deliveries.
// Callers check the right to the canvas first; nothing here knows HTTP.
import type { ActorKind } from '../audit/store.ts';
import type { Core } from '../foundation.ts';
import { AppError } from '../errors.ts';
import { newSecret, storedSecret } from './secret.ts';
import type { HookView, WantedHook, WebhookStore } from './store.ts';

export interface WebhookServiceDeps {
  ctx: Pick<Core, 'audit' | 'now' | 'config'>;
  store: WebhookStore;
}

export class WebhookService {
  constructor(private readonly deps: WebhookServiceDeps) {}

  /** The canvas's hooks, never their secrets. */
  list(canvasId: string): Promise<HookView[]> {
    return this.deps.store.list(canvasId);
  }

  /** Replaces the canvas's hooks; the answer carries the new hooks' secrets, this once. */
  async replace(
    canvasId: string,
    wanted: WantedHook[],
    by: { actorId: string; actorKind: ActorKind },
  ): Promise<Array<HookView & { secret?: string }>> {
    const { ctx, store } = this.deps;
    const secrets = new Map<string, string>();
    const ids = await store.replace(canvasId, wanted, ctx.now(), (id) => {
      const secret = newSecret();
      secrets.set(id, secret);
      return storedSecret(ctx.config.secretKey, id, secret);
    });
    await ctx.audit.record({
      ...by,
      canvasId,
      action: 'webhooks.changed',
      detail: { hooks: wanted.length, added: ids.filter((id) => id !== null).length },
    });
    const hooks = await store.list(canvasId);
    return hooks.map((h) => (secrets.has(h.id) ? { ...h, secret: secrets.get(h.id) } : h));
  }

  /** A hook's last deliveries; 404 when the canvas has no such hook. */
  async deliveries(canvasId: string, hookId: string) {
    if (!(await this.deps.store.has(canvasId, hookId))) throw new AppError('NOT_FOUND', 'no such webhook on this canvas');
    return this.deps.store.deliveries(hookId);
  }
}
