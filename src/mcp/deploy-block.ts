import type { Config } from '../config.ts';

/** Where an agent deploys a canvas: absolute URLs (spec "Agent tool equivalents"; CONTRACT §9). */
export interface DeployBlock {
  apiBase: string;
  zip: string;
  upload: string;
  files: string;
  curl: string;
}

export function deployBlock(config: Pick<Config, 'apiBaseUrl'>, canvasId: string): DeployBlock {
  const apiBase = config.apiBaseUrl.replace(/\/+$/, '');
  const base = `${apiBase}/v1/canvases/${encodeURIComponent(canvasId)}`;
  return {
    apiBase,
    zip: `${base}/deploy`,
    upload: `${base}/uploads`,
    files: `${base}/files`,
    curl: `curl -X PUT -H "Authorization: Bearer $EASEL_CANVAS_KEY" --data-binary @site.zip ${base}/deploy`,
  };
}
