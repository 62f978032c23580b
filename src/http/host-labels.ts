import type { Config } from '../config.ts';

/** One DNS label: what a slug must be to serve as `{slug}.{canvas host}`. */
export const HOST_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export type HostConfig = Pick<Config, 'urlMode' | 'canvasHost'> & Partial<Pick<Config, 'baseUrl' | 'apiBaseUrl'>>;

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
    if (HOST_LABEL.test(label) && !labels.includes(label)) labels.push(label);
  }
  memo = { key, labels };
  return labels;
}
