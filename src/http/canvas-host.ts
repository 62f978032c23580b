import type { Config } from '../config.ts';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Subdomain mode: the slug when the Host is `{slug}.{EASEL_CANVAS_HOST}`
 * (port included when the canvas host carries one), else null. Path mode
 * never routes by host.
 */
export function canvasSlugFromHost(config: Pick<Config, 'urlMode' | 'canvasHost'>, host: string | null): string | null {
  if (config.urlMode !== 'subdomain' || !host) return null;
  const h = host.toLowerCase();
  const suffix = `.${config.canvasHost.toLowerCase()}`;
  if (!h.endsWith(suffix)) return null;
  const label = h.slice(0, -suffix.length);
  return LABEL.test(label) ? label : null;
}
