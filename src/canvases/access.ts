import type { Canvas, CanvasRole } from './record.ts';

/**
 * Who wants in, as the access decision needs to know them.
 * `role` is the user's role from the store (owner/editor/viewer), null when not on the list.
 */
export type Viewer =
  | { kind: 'user'; userId: string; orgId: string | null; role: CanvasRole | null }
  | { kind: 'guest'; inviteId: string; canvasId: string }
  | { kind: 'anonymous' };

export interface AccessInput {
  /** null = unknown slug or deleted. */
  canvas: Canvas | null;
  owner: { active: boolean; canPublishPublic: boolean; orgId: string | null } | null;
  viewer: Viewer;
  /** A valid __easel_gate pass for this canvas and its current password version. */
  gatePassed: boolean;
  now: number;
  instance: { publicLinks: boolean; tenancy: boolean };
}

export type AccessRefusal = 'NOT_FOUND' | 'OWNER_ONLY' | 'NOT_INVITED' | 'DISABLED' | 'ARCHIVED' | 'SHARE_EXPIRED' | 'PASSWORD_REQUIRED';

export type AccessDecision =
  | {
      ok: true;
      /** null for anonymous visitors and whole_org/public_link visitors not on the list. */
      role: CanvasRole | null;
      /** owner | editor | viewer (guests and admitted non-members are 'viewer'). */
      effectiveRole: CanvasRole;
      /** A visitor of a live Public link canvas who is not owner/editor: pages yes, runtime API → STATIC_ONLY. */
      staticOnly: boolean;
    }
  | { ok: false; code: AccessRefusal };

/** How the viewer got in, or null when the sharing rung gives them no route in. */
type Route = 'list' | 'guest' | 'org' | 'public';

/** Whether the Public link rung is live: instance switch, owner permission and an active owner. */
export function publicLinkActive(input: Pick<AccessInput, 'canvas' | 'owner' | 'instance'>): boolean {
  return (
    input.canvas !== null &&
    input.canvas.accessMode === 'public_link' &&
    input.instance.publicLinks &&
    input.owner !== null &&
    input.owner.active &&
    input.owner.canPublishPublic
  );
}

function routeIn(input: AccessInput, canvas: Canvas): Route | null {
  const v = input.viewer;
  if (v.kind === 'user' && v.role !== null) return 'list';
  if (v.kind === 'guest') return v.canvasId === canvas.id ? 'guest' : null;
  if (canvas.accessMode === 'whole_org' && v.kind === 'user') {
    if (!input.instance.tenancy) return 'org';
    // With tenancy on, "the organisation" is the owner's: nobody beyond the list when the owner has none.
    const ownerOrg = input.owner?.orgId ?? null;
    return ownerOrg !== null && v.orgId === ownerOrg ? 'org' : null;
  }
  // A Public link canvas whose public links are off behaves as Restricted: list only.
  if (canvas.accessMode === 'public_link' && publicLinkActive(input)) return 'public';
  return null;
}

/**
 * The one access decision for canvas pages and the runtime API. Pure: the caller gathers the facts.
 * Order (first match wins) is fixed by INTERFACES.md so a refused visitor never learns more than
 * "not found" unless the sharing rung gives them a route in. Admins get no bypass here.
 */
export function decideAccess(input: AccessInput): AccessDecision {
  const canvas = input.canvas;
  if (canvas === null || canvas.deletedAt !== null) return { ok: false, code: 'NOT_FOUND' };
  const v = input.viewer;
  // The runtime API's answer; canvas pages never get here with such a guest (they count it as anonymous).
  if (v.kind === 'guest' && v.canvasId !== canvas.id) return { ok: false, code: 'NOT_INVITED' };

  const route = routeIn(input, canvas);
  if (route === null) return { ok: false, code: 'OWNER_ONLY' };

  if (canvas.disabledAt !== null) return { ok: false, code: 'DISABLED' };
  if (canvas.archivedAt !== null) return { ok: false, code: 'ARCHIVED' };

  const role: CanvasRole | null = v.kind === 'user' ? v.role : null;
  const manages = role === 'owner' || role === 'editor';
  if (canvas.expiresAt !== null && canvas.expiresAt <= input.now && !manages) return { ok: false, code: 'SHARE_EXPIRED' };
  if (canvas.hasPassword && !manages && v.kind !== 'guest' && !input.gatePassed) return { ok: false, code: 'PASSWORD_REQUIRED' };

  return {
    ok: true,
    role,
    effectiveRole: role ?? 'viewer',
    // Static-only follows the canvas, not the route: members on the list of a live Public link canvas
    // are static-only too; with public links off the canvas behaves as Restricted, runtime API included.
    staticOnly: publicLinkActive(input) && !manages,
  };
}
