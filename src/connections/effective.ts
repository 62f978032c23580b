// When a Connection is usable (spec, capability effectiveness: "backend on, a
// live enabled profile, a per-canvas admin grant, and the external
// encryption key available when the profile has protected headers").
import type { Canvas } from '../canvases/record.ts';
import type { Core } from '../foundation.ts';

/** What the effectiveness checks read: the profiles and grants, and the key that opens sealed headers. */
export type ConnectionsLookup = Pick<Core, 'connections' | 'config'>;
import { keyIdOf } from '../secrets/sealed.ts';
import type { Profile } from './store.ts';

export type ProfileState =
  { usable: true; profile: Profile } | { usable: false; reason: 'not_granted' | 'disabled' | 'secret_key_missing' | 'secret_key_changed' };

/** Whether the profile itself can be used (enabled, and its protected headers open under the current key). */
export function profileUsable(ctx: ConnectionsLookup, profile: Profile): ProfileState {
  if (!profile.enabled) return { usable: false, reason: 'disabled' };
  const sealed = ctx.connections.headerKeys(profile.name);
  if (sealed.length > 0) {
    const key = ctx.config.secretKey;
    if (!key) return { usable: false, reason: 'secret_key_missing' };
    const id = keyIdOf(key);
    if (sealed.some((h) => h.keyId !== id)) return { usable: false, reason: 'secret_key_changed' };
  }
  return { usable: true, profile };
}

/** The named profile for this canvas: unknown and not granted look the same (a canvas never learns which profiles exist). */
export function profileStateFor(ctx: ConnectionsLookup, canvasId: string, name: string): ProfileState {
  const store = ctx.connections;
  const profile = store.get(name);
  if (!profile || !store.isGranted(canvasId, name)) return { usable: false, reason: 'not_granted' };
  return profileUsable(ctx, profile);
}

/**
 * The connections capability for a canvas: with a profile name, whether that
 * profile works here; without, whether any granted profile does. The runtime
 * pipeline's capability gate calls the second form.
 */
export function connectionsEffective(ctx: ConnectionsLookup, canvas: Canvas, profileName?: string): boolean {
  if (!canvas.capabilities.backend) return false;
  if (profileName !== undefined) return profileStateFor(ctx, canvas.id, profileName).usable;
  return grantedConnectionNames(ctx, canvas.id).length > 0;
}

/** Names of the Connections this canvas can use now (granted, enabled, key available), sorted: /me's `resources.connections`. */
export function grantedConnectionNames(ctx: ConnectionsLookup, canvasId: string): string[] {
  const store = ctx.connections;
  return store
    .grantsOf(canvasId)
    .map((g) => store.get(g.name))
    .filter((p): p is Profile => p !== null && profileUsable(ctx, p).usable)
    .map((p) => p.name);
}
