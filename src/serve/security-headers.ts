import type { Config } from '../config.ts';

/**
 * Headers every canvas response carries: canvases may not frame the
 * dashboard, nor be framed by other sites. An operator's EASEL_CANVAS_CSP is
 * added in front of Easel's frame-ancestors (theirs wins when it names
 * frame-ancestors itself).
 */
export function canvasSecurityHeaders(config: Pick<Config, 'urlMode' | 'baseUrl' | 'canvasCsp'>): Record<string, string> {
  const base = new URL(config.baseUrl).origin;
  const headers: Record<string, string> = {
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'strict-origin-when-cross-origin',
    'cross-origin-opener-policy': 'same-origin',
  };
  // Its own origin, and (subdomain mode) the dashboard's, for previews; nothing else may frame it.
  const frameAncestors = config.urlMode === 'subdomain' ? `frame-ancestors 'self' ${base}` : "frame-ancestors 'self'";
  if (config.urlMode !== 'subdomain') headers['x-frame-options'] = 'SAMEORIGIN';
  const operator = config.canvasCsp?.trim().replace(/;\s*$/, '') ?? '';
  headers['content-security-policy'] = !operator
    ? frameAncestors
    : /(^|;)\s*frame-ancestors\s/i.test(operator)
      ? operator
      : `${operator}; ${frameAncestors}`;
  return headers;
}
