import type { Canvas } from '../canvases/record.ts';
import { connectionsEffective } from '../connections/effective.ts';
import type { Core } from '../foundation.ts';

/** What the effectiveness table reads: instance settings and configuration, and the Connection grants. */
export type CapabilityLookup = Pick<Core, 'connections' | 'config' | 'settings'>;

export type Capability = 'identity' | 'kv' | 'files' | 'ai' | 'realtime' | 'connections' | 'authoring';
export type DisabledReason = 'backend_off' | 'feature_off' | 'operator_disabled';

export type CapabilityState = { effective: true } | { effective: false; reason: DisabledReason; hint: string };

const ON: CapabilityState = { effective: true };

/**
 * Whether any Connection can work for this canvas: a live enabled profile,
 * an admin grant for the canvas, and the encryption key where the profile
 * has protected headers (src/connections/effective.ts).
 */
export function connectionsAvailable(ctx: CapabilityLookup, canvas: Canvas): boolean {
  return connectionsEffective(ctx, canvas);
}

/** What the owner does to turn a switch on (the capabilities route; the dashboard has no switch for it yet). */
function switchOnHint(canvas: Canvas, name: string): string {
  const also = name === 'backend' ? '' : ` (with "backend": true if it is off)`;
  return `The canvas owner can turn on ${name}: PATCH /api/canvases/${canvas.id}/capabilities with {"${name}": true}${also}, or the set_capabilities MCP tool.`;
}

/** The spec's capability-effectiveness table, with the reason a capability is off. */
export function capabilityState(ctx: CapabilityLookup, canvas: Canvas, capability: Capability): CapabilityState {
  if (!canvas.capabilities.backend) {
    return { effective: false, reason: 'backend_off', hint: switchOnHint(canvas, 'backend') };
  }
  switch (capability) {
    case 'identity':
      return ON;
    case 'connections':
      return connectionsAvailable(ctx, canvas)
        ? ON
        : {
            effective: false,
            reason: 'operator_disabled',
            hint: 'An instance administrator must define a Connection profile and grant it to this canvas.',
          };
    case 'kv':
    case 'files':
    case 'ai':
    case 'realtime':
    case 'authoring':
      if (!canvas.capabilities[capability]) {
        return { effective: false, reason: 'feature_off', hint: switchOnHint(canvas, capability) };
      }
      return operatorState(ctx, capability);
  }
}

function operatorState(ctx: CapabilityLookup, capability: 'kv' | 'files' | 'ai' | 'realtime' | 'authoring'): CapabilityState {
  if (capability === 'ai' && !ctx.settings.get().aiApiKey) {
    return {
      effective: false,
      reason: 'operator_disabled',
      hint: 'The instance has no AI provider key; an administrator must configure one.',
    };
  }
  if (capability === 'realtime' && !ctx.config.realtime) {
    return { effective: false, reason: 'operator_disabled', hint: 'Realtime is switched off for this instance (EASEL_REALTIME).' };
  }
  if (capability === 'authoring' && !ctx.config.authoring) {
    return { effective: false, reason: 'operator_disabled', hint: 'Authoring is switched off for this instance (EASEL_AUTHORING).' };
  }
  return ON;
}

export function isEffective(ctx: CapabilityLookup, canvas: Canvas, capability: Capability): boolean {
  return capabilityState(ctx, canvas, capability).effective;
}

/** Every switchable capability's state, for the people managing the canvas (the dashboard shows why each is off). */
export function capabilityStates(ctx: CapabilityLookup, canvas: Canvas): Record<Exclude<Capability, 'identity'>, CapabilityState> {
  return {
    kv: capabilityState(ctx, canvas, 'kv'),
    files: capabilityState(ctx, canvas, 'files'),
    ai: capabilityState(ctx, canvas, 'ai'),
    realtime: capabilityState(ctx, canvas, 'realtime'),
    connections: capabilityState(ctx, canvas, 'connections'),
    authoring: capabilityState(ctx, canvas, 'authoring'),
  };
}
