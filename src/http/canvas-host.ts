import { HOST_LABEL, reservedHostLabels, type HostConfig } from './host-labels.ts';
import { authorityOf } from './url-path.ts';

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
  return HOST_LABEL.test(label) && !reservedHostLabels(config).includes(label) ? label : null;
}

/** The Host a request was sent to (the header, else the URL's authority). */
export function requestHost(request: Request): string {
  const header = request.headers.get('host');
  if (header !== null) return header;
  return authorityOf(request.url);
}
