import type { Config } from '../config.ts';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

type HostConfig = Pick<Config, 'urlMode' | 'canvasHost'> & Partial<Pick<Config, 'baseUrl' | 'apiBaseUrl'>>;

/**
 * Subdomain mode: the slug when the Host is `{slug}.{EASEL_CANVAS_HOST}`
 * (port included when the canvas host carries one), else null. Path mode
 * never routes by host, and the instance's own hosts (base, API) are never a
 * canvas even when they sit directly under the canvas host.
 */
export function canvasSlugFromHost(config: HostConfig, host: string | null): string | null {
  if (config.urlMode !== 'subdomain' || !host) return null;
  const h = host.toLowerCase();
  const suffix = `.${config.canvasHost.toLowerCase()}`;
  if (!h.endsWith(suffix)) return null;
  const label = h.slice(0, -suffix.length);
  return LABEL.test(label) && !reservedHostLabels(config).includes(label) ? label : null;
}

let memo: { key: string; labels: string[] } | null = null;

/**
 * Subdomain mode: the labels L for which the base or API host is
 * `L.{canvas host}` (ports ignored: cookies do not tell ports apart). A
 * canvas holding such a slug would own that host, its `/sdk/v1.js` included,
 * so no slug may take one and no request for that host reaches a canvas.
 */
export function reservedHostLabels(config: HostConfig): string[] {
  if (config.urlMode !== 'subdomain') return [];
  const key = `${config.canvasHost} ${config.baseUrl ?? ''} ${config.apiBaseUrl ?? ''}`;
  if (memo?.key === key) return memo.labels;
  const under = `.${config.canvasHost.toLowerCase().replace(/:\d+$/, '')}`;
  const labels: string[] = [];
  for (const url of [config.baseUrl, config.apiBaseUrl]) {
    if (!url) continue;
    const hostname = new URL(url).hostname.toLowerCase();
    if (!hostname.endsWith(under)) continue;
    const label = hostname.slice(0, -under.length);
    if (LABEL.test(label) && !labels.includes(label)) labels.push(label);
  }
  memo = { key, labels };
  return labels;
}
