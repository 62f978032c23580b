import type { Config } from '../config.ts';

/** Headers every canvas response carries: canvases may not frame the dashboard, nor be framed by other sites. */
export function canvasSecurityHeaders(config: Pick<Config, 'urlMode' | 'baseUrl'>): Record<string, string> {
  const base = new URL(config.baseUrl).origin;
  const headers: Record<string, string> = {
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'strict-origin-when-cross-origin',
    'cross-origin-opener-policy': 'same-origin',
  };
  if (config.urlMode === 'subdomain') {
    // Its own origin, and the dashboard's (previews); nothing else may frame it.
    headers['content-security-policy'] = `frame-ancestors 'self' ${base}`;
  } else {
    headers['content-security-policy'] = "frame-ancestors 'self'";
    headers['x-frame-options'] = 'SAMEORIGIN';
  }
  return headers;
}
