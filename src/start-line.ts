// The line `easel serve` prints once it listens: where it listens and, when
// people reach it at another address (a reverse proxy, another port), that
// public URL, so the line never names an address nothing answers on.
import type { Config } from './config.ts';

const LOOPBACK = new Set(['127.0.0.1', '[::1]', '::1']);

/** The public URL when it is not simply the listen address (`localhost` counts as a loopback bind's name). */
export function publicUrlIfDifferent(listenUrl: string, baseUrl: string): string | null {
  const listen = new URL(listenUrl);
  const base = new URL(baseUrl);
  const sameHost = listen.hostname === base.hostname || (base.hostname === 'localhost' && LOOPBACK.has(listen.hostname));
  return sameHost && listen.protocol === base.protocol && listen.port === base.port ? null : base.origin + base.pathname.replace(/\/$/, '');
}

export function startLine(
  version: string,
  listenUrl: string,
  config: Pick<Config, 'baseUrl' | 'database' | 'redis' | 'smtp' | 'authMode' | 'urlMode'>,
  dataDir: string,
  blobLocation: string | null,
): string {
  const publicUrl = publicUrlIfDifferent(listenUrl, config.baseUrl);
  const shown = publicUrl === null ? config.baseUrl : listenUrl;
  const parts = [
    ...(publicUrl === null ? [] : [`public URL: ${publicUrl}`]),
    `data: ${dataDir}`,
    ...(config.database ? [`database: ${config.database.display}`, ...(config.redis ? [] : ['single node: no EASEL_REDIS_URL'])] : []),
    ...(blobLocation ? [`blobs: ${blobLocation}`] : []),
    ...(config.redis ? [`realtime: ${config.redis.display}`] : []),
    ...(config.smtp ? [`email: ${config.smtp.display}`] : []),
    `auth: ${config.authMode}`,
    `urls: ${config.urlMode}`,
  ];
  return `easel ${version} listening on ${shown} (${parts.join(', ')})`;
}
