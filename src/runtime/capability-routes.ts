// For the people managing a canvas (the dashboard's runtime settings):
// GET /api/canvases/{id}/capabilities, what each switch amounts to on this
// instance and why one is off ("AI off: no provider key on this instance"),
// with the rights each policy preset grants, and what the live pages asked
// for that the policy does not configure (`unconfigured`);
// GET /api/canvases/{id}/usage, its KV keys and file bytes against the quotas.
import { Type as T } from '@sinclair/typebox';
import { managedCanvas } from '../canvases/authority.ts';
import { sessionRoute } from '../auth/door-routes.ts';
import type { Core } from '../foundation.ts';
import { declaredRoutes } from '../http/declared-route.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { effectiveRights, PRESETS } from '../policy/presets.ts';
import { capabilityStates } from './capabilities.ts';
import type { FileService } from './files/service.ts';
import { KV_LIMITS, type KvService } from './kv/service.ts';
import type { PolicyMisses } from './policy-misses.ts';

/** What each preset grants before overrides: the dashboard's policy form explains presets with these, not a copy of its own. */
const PRESET_RIGHTS = Object.fromEntries(PRESETS.map((p) => [p, effectiveRights(p)]));

const CapabilityState = T.Union([
  T.Object({ effective: T.Literal(true) }),
  T.Object({
    effective: T.Literal(false),
    reason: T.Union([T.Literal('backend_off'), T.Literal('feature_off'), T.Literal('operator_disabled')]),
    hint: T.String({ description: 'what would turn it on' }),
  }),
]);

const CapabilityStates = T.Object({
  switches: T.Record(T.String(), T.Boolean(), { description: "the canvas's switches as set" }),
  effective: T.Record(T.String(), CapabilityState, { description: 'each capability on this instance, and why one is off' }),
  presets: T.Record(
    T.String(),
    T.Object({ read: T.String(), create: T.String(), update: T.String(), delete: T.String(), increment: T.String() }),
    { description: 'the rights each runtime policy preset grants before overrides' },
  ),
  unconfigured: T.Array(
    T.Object({
      kind: T.Union([T.Literal('collection'), T.Literal('fileGroup')]),
      name: T.String(),
      lastAt: T.Integer({ description: 'when a page last asked for it (ms since the epoch)' }),
    }),
    { description: 'what live pages asked for that the runtime policy does not configure' },
  ),
});

const Usage = T.Object({
  kv: T.Object({ sharedKeys: T.Integer(), sharedKeysMax: T.Integer(), userKeysMaxPerPerson: T.Integer() }),
  files: T.Object({ bytes: T.Integer(), bytesMax: T.Integer() }),
});

export function capabilityStateRoutes(
  ctx: Pick<Core, 'canvases' | 'config' | 'connections' | 'settings'>,
  auth: AuthKinds,
  misses: PolicyMisses,
  kv: KvService,
  files: FileService,
) {
  return declaredRoutes('capability-states', auth, [
    sessionRoute(
      {
        method: 'GET',
        path: '/api/canvases/:id/capabilities',
        summary: 'Each capability switch and its effective state, with why one is off',
        answer: CapabilityStates,
        errors: ['NOT_FOUND'],
      },
      async ({ actor, params }) => {
        const { canvas } = await managedCanvas(ctx, actor, params.id, 'manage');
        return {
          switches: canvas.capabilities,
          effective: capabilityStates(ctx, canvas),
          presets: PRESET_RIGHTS,
          unconfigured: await misses.stillMissing(canvas.id, canvas.runtimePolicy),
        };
      },
    ),
    sessionRoute(
      {
        method: 'GET',
        path: '/api/canvases/:id/usage',
        summary: "The canvas's shared KV keys and file bytes against the quotas",
        answer: Usage,
        errors: ['NOT_FOUND'],
      },
      async ({ actor, params }) => {
        const { canvas } = await managedCanvas(ctx, actor, params.id, 'manage');
        const { filesBytesCanvas } = ctx.settings.get();
        return {
          kv: {
            sharedKeys: await kv.sharedKeyCount(canvas.id),
            sharedKeysMax: KV_LIMITS.sharedKeys,
            userKeysMaxPerPerson: KV_LIMITS.userKeys,
          },
          files: { bytes: await files.bytesUsed(canvas.id), bytesMax: filesBytesCanvas },
        };
      },
    ),
  ]);
}
