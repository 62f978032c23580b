// The editor's draft preview calls the runtime API (and loads the SDK) with
// the preview token in its address as its credential: in subdomain mode the
// preview is a cross-site frame on the canvas host, where no session cookie
// reaches (see preview-token.ts). The SDK adds the token of the page it runs
// on to every runtime URL as PREVIEW_PARAM (a WebSocket or an <img src> sends
// no header); the token names the person, who then goes through the canvas's
// access ladder like any signed-in caller.
import type { Principal } from '../auth/principal.ts';
import type { Core } from '../foundation.ts';
import { previewTokenUser } from './preview-token.ts';

export const PREVIEW_PARAM = 'easel_preview';

/** The preview token a runtime request carries, or null (read only when the request has no session). */
export function previewTokenOfRequest(request: Request): string | null {
  const q = request.url.indexOf('?');
  return q < 0 ? null : new URLSearchParams(request.url.slice(q + 1)).get(PREVIEW_PARAM);
}

/** The draft-preview path below a canvas's root: `__easel/draft/{token}/…`. */
const DRAFT_PATH = /^__easel\/draft\/([^/?#]+)\//;

/** The preview token of a path below the canvas root, or null. */
export function previewTokenOfPath(rest: string): string | null {
  return DRAFT_PATH.exec(rest)?.[1] ?? null;
}

export type PreviewDeps = Pick<Core, 'instanceSecret' | 'users' | 'now'>;

/**
 * The person a preview token was issued to, as a principal for this canvas's
 * runtime API; null for no token, another canvas's, an expired or forged one,
 * or a person no longer active. Their role on the canvas is resolved after.
 */
export async function previewPrincipal(ctx: PreviewDeps, canvasId: string, token: string | null): Promise<Principal | null> {
  if (!token || token.length > 256) return null;
  const userId = previewTokenUser(ctx.instanceSecret, canvasId, token, ctx.now());
  const user = userId === null ? null : await ctx.users.byId(userId);
  if (!user || !user.active) return null;
  return { kind: 'user', user, via: 'preview' };
}
