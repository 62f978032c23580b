import type { Config } from '../config.ts';

/** The canvas URL for the configured mode; it always ends with "/". */
export function canvasUrl(config: Pick<Config, 'urlMode' | 'baseUrl' | 'canvasHost'>, slug: string): string {
  if (config.urlMode === 'subdomain') {
    const scheme = new URL(config.baseUrl).protocol;
    return `${scheme}//${slug}.${config.canvasHost}/`;
  }
  return `${config.baseUrl}/c/${slug}/`;
}

/** The URL path a canvas's pages are served under when that is not its host's root (path mode: `/c/{slug}/`), else null. */
export function servedBelowRoot(config: Pick<Config, 'urlMode' | 'baseUrl' | 'canvasHost'>, slug: string): string | null {
  const path = new URL(canvasUrl(config, slug)).pathname;
  return path === '/' ? null : path;
}
