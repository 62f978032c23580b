// The one place that turns a request into an access decision: page serving,
// the runtime pipeline, the realtime re-checks and the SDK's anonymous
// admission all ask it, so they cannot disagree. The database facts come from
// memory (VersionedCache): a publication, a settings or member change, a
// deactivated owner are writes the change signal sees (every node's, on
// Postgres), so they show on the next request. Unknown slugs are not remembered (a canvas created later must
// be found). Cached canvases are shared between requests: read, never change.
import type { Principal } from '../auth/principal.ts';
import type { Core } from '../foundation.ts';
import { VersionedCache } from '../db/versioned-cache.ts';
import { gatePassed } from '../serve/gate-pass.ts';
import { decideAccess, publicLinkActive, type AccessDecision, type AccessInput, type Viewer } from './access.ts';
import { statusOf, type Canvas, type CanvasRole } from './record.ts';

/** The part of the app context this feature uses. */
export type AccessDeps = Pick<Core, 'canvases' | 'config' | 'instanceSecret' | 'now' | 'settings' | 'sql' | 'users'>;

export type OwnerFacts = AccessInput['owner'];

export interface CanvasFacts {
  canvas: Canvas;
  owner: OwnerFacts;
}

export interface ResolvedAccess {
  /** null: no such canvas. */
  canvas: Canvas | null;
  decision: AccessDecision;
  /** The Public link rung is live (pages may be cached publicly). */
  publicOpen: boolean;
}

export class AccessResolver {
  private readonly canvases: VersionedCache<CanvasFacts | null>;
  private readonly roles: VersionedCache<CanvasRole | null>;

  constructor(private readonly ctx: AccessDeps) {
    const version = ctx.sql.changes;
    this.canvases = new VersionedCache(version, ctx.now, 1024);
    this.roles = new VersionedCache(version, ctx.now, 10_000);
  }

  /** The canvas by slug with its owner's switches. */
  bySlug(slug: string): CanvasFacts | Promise<CanvasFacts | null> {
    // Most requests: the facts are held, and answered without a wait.
    return this.canvases.peek(slug) ?? this.load(slug);
  }

  private load(slug: string): Promise<CanvasFacts | null> {
    return this.canvases.getAsync(
      slug,
      async () => {
        const canvas = await this.ctx.canvases.bySlug(slug);
        return canvas ? { canvas, owner: await this.ownerFacts(canvas) } : null;
      },
      (facts) => facts !== null,
    );
  }

  /** Facts for a canvas already loaded (by id): its owner's switches read now. */
  async factsOf(canvas: Canvas): Promise<CanvasFacts> {
    return { canvas, owner: await this.ownerFacts(canvas) };
  }

  /**
   * The access ladder for `principal` (null: nobody signed in) on a canvas
   * (null: no such canvas). `checkGate: false` asks "would they get in past
   * the password gate" (the gate form itself).
   */
  resolve(
    request: Request,
    facts: CanvasFacts | null,
    principal: Principal | null,
    checkGate = true,
  ): ResolvedAccess | Promise<ResolvedAccess> {
    // Most requests: the person's role on the canvas is held, and answered without a wait.
    const role = facts && principal?.kind === 'user' ? this.roleOf(facts.canvas, principal.user.id) : null;
    if (role instanceof Promise) return role.then((r) => this.decide(request, facts, principal, checkGate, r));
    return this.decide(request, facts, principal, checkGate, role);
  }

  private decide(
    request: Request,
    facts: CanvasFacts | null,
    principal: Principal | null,
    checkGate: boolean,
    role: CanvasRole | null,
  ): ResolvedAccess {
    const canvas = facts?.canvas ?? null;
    const input = { canvas, owner: facts?.owner ?? null, instance: this.instanceFacts() };
    const decision = decideAccess({
      ...input,
      viewer: canvas && principal ? viewerOf(principal, role) : { kind: 'anonymous' },
      gatePassed: checkGate && canvas !== null && canvas.hasPassword && gatePassed(this.ctx, request, canvas),
      now: this.ctx.now(),
    });
    return { canvas, decision, publicOpen: publicLinkActive(input) };
  }

  /** Whether this signed-in person gets into the canvas's pages (past its password, if they know it): the gallery shows only those. */
  async mayOpen(canvas: Canvas, user: Principal & { kind: 'user' }): Promise<boolean> {
    const decision = decideAccess({
      canvas,
      owner: await this.ownerFacts(canvas),
      instance: this.instanceFacts(),
      viewer: viewerOf(user, await this.roleOf(canvas, user.user.id)),
      gatePassed: true,
      now: this.ctx.now(),
    });
    return decision.ok;
  }

  /** An active, unexpired Public link canvas whose owner (and the instance) allow public links. */
  async openPublicLink(slug: string): Promise<boolean> {
    const facts = await this.bySlug(slug);
    if (!facts || statusOf(facts.canvas) !== 'active') return false;
    if (facts.canvas.expiresAt !== null && facts.canvas.expiresAt <= this.ctx.now()) return false;
    return publicLinkActive({ ...facts, instance: this.instanceFacts() });
  }

  private roleOf(canvas: Canvas, userId: string): CanvasRole | null | Promise<CanvasRole | null> {
    if (canvas.ownerId === userId) return 'owner';
    const key = `${canvas.id} ${userId}`;
    const held = this.roles.peek(key);
    return held !== undefined ? held : this.roles.getAsync(key, () => this.ctx.canvases.roleOf(canvas, userId));
  }

  /** The owner's switches decideAccess looks at (null: the owner row is gone). */
  private async ownerFacts(canvas: Canvas): Promise<OwnerFacts> {
    const owner = await this.ctx.users.byId(canvas.ownerId);
    return owner ? { active: owner.active, canPublishPublic: owner.canPublishPublic, orgId: owner.orgId } : null;
  }

  /** Instance switches: settings are already held in memory by SettingsService. */
  private instanceFacts(): AccessInput['instance'] {
    return { publicLinks: this.ctx.settings.get().publicLinks, tenancy: this.ctx.config.tenancy };
  }
}

/** `role`: the user's role on the canvas (ignored for guests and anonymous callers). */
function viewerOf(principal: Principal, role: CanvasRole | null): Viewer {
  switch (principal.kind) {
    case 'user':
      return { kind: 'user', userId: principal.user.id, orgId: principal.user.orgId, role };
    case 'guest':
      return { kind: 'guest', inviteId: principal.inviteId, canvasId: principal.canvasId };
    case 'anonymous':
      return { kind: 'anonymous' };
  }
}
