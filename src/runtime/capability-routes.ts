// For the people managing a canvas (the dashboard's runtime settings):
// GET /api/canvases/{id}/capabilities, what each switch amounts to on this
// instance and why one is off ("AI off: no provider key on this instance"),
// with the rights each policy preset grants, and what the live pages asked
// for that the policy does not configure (`unconfigured`);
// GET /api/canvases/{id}/usage, its KV keys and file bytes against the quotas.
import { Elysia } from 'elysia';
import { managedCanvas } from '../canvases/authority.ts';
import type { AppContext } from '../context.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { json } from '../http/respond.ts';
import { effectiveRights, PRESETS } from '../policy/presets.ts';
import { capabilityStates } from './capabilities.ts';
import { FileStore } from './files/store.ts';
import { KV_LIMITS } from './kv/service.ts';
import { KvStore } from './kv/store.ts';
import type { PolicyMisses } from './policy-misses.ts';

/** What each preset grants before overrides: the dashboard's policy form explains presets with these, not a copy of its own. */
const PRESET_RIGHTS = Object.fromEntries(PRESETS.map((p) => [p, effectiveRights(p)]));

export function capabilityStateRoutes(ctx: AppContext, auth: AuthKinds, misses: PolicyMisses) {
  return new Elysia({ name: 'capability-states' }).use(auth).guard({ management: true, parse: 'none' }, (app) =>
    app
      .get('/api/canvases/:id/capabilities', async ({ actor, params }) => {
        const { canvas } = await managedCanvas(ctx, actor, params.id, 'manage');
        return json(
          200,
          {
            switches: canvas.capabilities,
            effective: capabilityStates(ctx, canvas),
            presets: PRESET_RIGHTS,
            unconfigured: await misses.stillMissing(canvas.id, canvas.runtimePolicy),
          },
          { 'cache-control': 'no-store' },
        );
      })
      .get('/api/canvases/:id/usage', async ({ actor, params }) => {
        const { canvas } = await managedCanvas(ctx, actor, params.id, 'manage');
        const { filesBytesCanvas } = ctx.settings.get();
        return json(
          200,
          {
            kv: {
              sharedKeys: await new KvStore(ctx.sql).count({ canvasId: canvas.id, scope: 'shared', ownerId: '' }),
              sharedKeysMax: KV_LIMITS.sharedKeys,
              userKeysMaxPerPerson: KV_LIMITS.userKeys,
            },
            files: { bytes: await new FileStore(ctx.sql).bytesUsed(canvas.id), bytesMax: filesBytesCanvas },
          },
          { 'cache-control': 'no-store' },
        );
      }),
  );
}
