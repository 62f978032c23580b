import type { Config } from '../config.ts';

/** The canvas URL for the configured mode; it always ends with "/". */
export function canvasUrl(config: Pick<Config, 'urlMode' | 'baseUrl' | 'canvasHost'>, slug: string): string {
  if (config.urlMode === 'subdomain') {
    const scheme = new URL(config.baseUrl).protocol;
    return `${scheme}//${slug}.${config.canvasHost}/`;
  }
  return `${config.baseUrl}/c/${slug}/`;
}
