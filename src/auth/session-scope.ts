import type { CanvasStore } from '../canvases/store.ts';
import type { Config } from '../config.ts';
import type { ChangeSignal } from '../db/change-signal.ts';
import { VersionedCache } from '../db/versioned-cache.ts';
import { canvasSlugFromHost, requestHost } from '../http/canvas-host.ts';
import type { SessionScope } from './principal.ts';

const BASE: SessionScope = { kind: 'base' };

/**
 * For the Authenticator: which sessions count on a request's host. Path
 * mode has one host. Subdomain mode: a canvas host takes only sessions made
 * for its canvas, by id (a slug given up and taken by another canvas does
 * not inherit the old one's sessions); the slug's canvas is remembered while
 * the canvases table is unchanged.
 */
export function sessionScopeOf(
  config: Config,
  canvases: CanvasStore,
  changes: ChangeSignal,
  now: () => number,
): (request: Request) => SessionScope | Promise<SessionScope> {
  if (config.urlMode !== 'subdomain') return () => BASE;
  const ids = new VersionedCache<string | null>(changes, now, 10_000);
  return (request) => {
    const slug = canvasSlugFromHost(config, requestHost(request));
    if (slug === null) return BASE;
    const held = ids.peek(slug);
    if (held !== undefined) return { kind: 'canvas', canvasId: held };
    return ids.getAsync(slug, async () => (await canvases.bySlug(slug))?.id ?? null).then((canvasId) => ({ kind: 'canvas', canvasId }));
  };
}
