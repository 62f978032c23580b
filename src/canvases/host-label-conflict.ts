// A start-up check, not a management rule: `easel serve` asks it before
// createApp builds the canvas service, so it reads the store directly.
import type { Core } from '../foundation.ts';
import { reservedHostLabels } from '../http/host-labels.ts';

/**
 * The line `easel serve` refuses to start with when an existing canvas holds
 * the label of the base or API host (subdomain mode), else null: that canvas
 * would be served on the instance's own host.
 */
export async function hostLabelConflict(ctx: Pick<Core, 'canvases' | 'config'>): Promise<string | null> {
  for (const label of reservedHostLabels(ctx.config)) {
    const canvas = await ctx.canvases.bySlug(label);
    if (!canvas) continue;
    const host = `${label}.${ctx.config.canvasHost.replace(/:\d+$/, '')}`;
    return (
      `canvas ${canvas.id} holds the slug "${label}", but ${host} is this instance's own host (EASEL_BASE_URL or EASEL_API_BASE_URL); ` +
      `rename that canvas first (start once with EASEL_URL_MODE=path and change its slug) or choose another host`
    );
  }
  return null;
}
