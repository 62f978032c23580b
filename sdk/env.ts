// Where the SDK runs: the canvas's slug and the runtime API's origin, read
// from the page URL in both URL modes (CONTRACT §6).
//   path mode:      page {base}/c/{slug}/…, API on the same origin
//   subdomain mode: page {scheme}//{slug}.{canvas host}/…, API on the origin the SDK script came from
//                   (the canvas host itself for /sdk/v1.js, the recommended include)
import { EaselError } from './errors.ts';
import type { Target } from './request.ts';

/** The SDK script's own URL: only readable while the script first runs. */
export function currentScriptSrc(): string | null {
  const doc = (globalThis as { document?: Document }).document;
  const script = doc?.currentScript as HTMLScriptElement | null | undefined;
  return script?.src || null;
}

interface PageLocation {
  href: string;
  origin: string;
  hostname: string;
  pathname: string;
  protocol: string;
  host: string;
}

/** The editor's draft preview (`…/__easel/draft/{token}/…`): its token is the preview's credential for the runtime API. */
function previewOf(pathname: string): { preview: string } | Record<string, never> {
  const token = /\/__easel\/draft\/([^/]+)\//.exec(pathname)?.[1];
  return token ? { preview: token } : {};
}

export function detectTarget(page: PageLocation, scriptSrc: string | null): Target {
  return { ...targetOf(page, scriptSrc), ...previewOf(page.pathname) };
}

function targetOf(page: PageLocation, scriptSrc: string | null): Target {
  const apiOrigin = scriptSrc ? new URL(scriptSrc, page.href).origin : page.origin;
  if (apiOrigin === page.origin) {
    const m = /^\/c\/([^/]+)/.exec(page.pathname);
    if (m) return { apiBase: apiOrigin, slug: decode(m[1]!) };
    // The SDK served from the canvas host itself: the host answers this canvas's runtime API too, same origin.
    const dot = page.hostname.indexOf('.');
    if (dot > 0) return { apiBase: page.origin, slug: page.hostname.slice(0, dot) };
    throw new EaselError('NOT_A_CANVAS', 0, 'this page is not a canvas: the SDK cannot tell which canvas to talk to');
  }
  const dot = page.hostname.indexOf('.');
  if (dot <= 0) throw new EaselError('NOT_A_CANVAS', 0, 'this page is not a canvas: the SDK cannot tell which canvas to talk to');
  return { apiBase: apiOrigin, slug: page.hostname.slice(0, dot) };
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The browser's answer, computed once on first use. */
export function browserTarget(scriptSrc: string | null): () => Target {
  let target: Target | null = null;
  return () => {
    if (!target) {
      const loc = (globalThis as { location?: PageLocation }).location;
      if (!loc) throw new EaselError('NOT_A_CANVAS', 0, 'the SDK runs in a browser page');
      target = detectTarget(loc, scriptSrc);
    }
    return target;
  };
}
