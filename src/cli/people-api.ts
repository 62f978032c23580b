// The management API as a signed-in person calls it from the CLI: which
// instance (flag, environment, the folder's link, the last login), the token
// for it, JSON requests through the retrying client, and which canvas.
import { ApiError, DeployApi, objectBody, toApiError } from './api-client.ts';
import { baseUrl, DEFAULT_INSTANCE, UsageError } from './args.ts';
import { findLink, withLinkHint, type ProjectLink } from './project-link.ts';
import { readUserConfig, tokenFor } from './user-config.ts';

export type Env = Record<string, string | undefined>;

export interface Session {
  base: string;
  linked: { folder: string; link: ProjectLink } | null;
  call<T = Record<string, unknown>>(method: string, path: string, json?: unknown): Promise<T>;
  /** One request whose 2xx body the caller streams (no retry: a download is not resent); a refusal rejects with ApiError. */
  fetch(method: string, path: string): Promise<Response>;
}

export function instanceOf(flag: string | undefined, env: Env, cwd: string): { base: string; linked: Session['linked'] } {
  const linked = findLink(cwd);
  // A token from the environment (CI) goes where a deploy with it would: the server's default address.
  const chosen =
    flag ??
    env.EASEL_API_BASE_URL ??
    linked?.link.instance ??
    readUserConfig(env).current ??
    (env.EASEL_TOKEN?.trim() ? DEFAULT_INSTANCE : undefined);
  if (!chosen)
    throw new ApiError('NOT_SIGNED_IN', 'not signed in to any Easel: run easel login <instance URL> (or pass --api <url>)', 0, null);
  return { base: baseUrl(chosen, flag ? '--api' : 'the instance URL'), linked };
}

export function session(flag: string | undefined, env: Env, cwd: string): Session {
  const { base, linked } = instanceOf(flag, env, cwd);
  const token = tokenFor(env, base);
  const api = new DeployApi(base, token ?? '');
  const aboutLinked = (path: string) => linked !== null && path.startsWith(`/api/canvases/${linked.link.canvasId}`);
  return {
    base,
    linked,
    async call<T>(method: string, path: string, json?: unknown): Promise<T> {
      // An instance that does not answer says so, rather than that you are not signed in to it.
      if (!token) {
        await fetch(`${base}/healthz`, { redirect: 'manual' }).catch((err: unknown) => {
          throw new ApiError('NETWORK_ERROR', `cannot reach ${base} (${err instanceof Error ? err.message : String(err)})`, 0, null);
        });
        throw new ApiError('NOT_SIGNED_IN', `not signed in to ${base}: run easel login ${base}`, 0, null);
      }
      try {
        const reply = await api.send({
          method,
          path,
          ...(json === undefined ? {} : { body: () => JSON.stringify(json), contentType: 'application/json' }),
        });
        return (reply.body ?? {}) as T;
      } catch (err) {
        throw aboutLinked(path) ? withLinkHint(err, linked, linked!.link.canvasId) : err;
      }
    },
    async fetch(method: string, path: string): Promise<Response> {
      let res: Response;
      try {
        res = await fetch(base + path, { method, headers: { authorization: `Bearer ${token}` }, redirect: 'manual' });
      } catch (err) {
        throw new ApiError('NETWORK_ERROR', `cannot reach ${base} (${err instanceof Error ? err.message : String(err)})`, 0, null);
      }
      if (res.status < 300) return res;
      const refusal = toApiError({ status: res.status, body: objectBody(await res.text()), retryAfterMs: null });
      throw aboutLinked(path) ? withLinkHint(refusal, linked, linked!.link.canvasId) : refusal;
    },
  };
}

/** A canvas id from `--canvas` (an id or a slug) or the folder's link. */
export async function canvasIdOf(s: Session, flag: string | undefined): Promise<string> {
  if (!flag) {
    if (s.linked) return s.linked.link.canvasId;
    throw new UsageError('which canvas? Pass --canvas <id or slug>, or run easel link <canvas> in this folder');
  }
  const { canvases } = await s.call<{ canvases: Array<{ id: string; slug: string }> }>('GET', '/api/canvases');
  const found = canvases.find((c) => c.id === flag || c.slug === flag);
  if (!found)
    throw new ApiError('NOT_FOUND', `no canvas ${JSON.stringify(flag)} among yours on ${s.base} (easel canvases lists them)`, 404, null);
  return found.id;
}
