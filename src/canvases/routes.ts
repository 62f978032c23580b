// Management API: /api/canvases (CONTRACT §4, minus guest invites and tokens).
// Every route: the caller (401, 429), then their right to the canvas (404,
// 403), then the body (400), then the rule itself.
import { Elysia } from 'elysia';
import type { AppContext } from '../context.ts';
import { json } from '../http/respond.ts';
import { homeFacts } from './home-facts.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { readJson } from '../http/json-body.ts';
import { managedCanvas, viewRoleFor, type Actor, type Need } from './authority.ts';
import { setCapabilities } from './capabilities.ts';
import { listMembers, putMember, removeMember } from './members.ts';
import { CapabilitiesBody, CreateCanvasBody, PatchCanvasBody, PutMemberBody, PutOwnerBody } from './model.ts';
import { transferOwnership } from './ownership.ts';
import {
  createCanvas,
  deleteCanvas,
  getCanvas,
  listCanvases,
  regenerateKey,
  setArchived,
  updateCanvas,
  type CanvasWithRole,
} from './service.ts';
import type { Canvas } from './record.ts';
import { canvasView, listedCanvasView } from './view.ts';

/** What other features add to a manager's view of a canvas (authoring: where it was published from). */
export type ViewExtras = (canvas: Canvas) => Promise<Record<string, unknown>>;

export function canvasRoutes(ctx: AppContext, auth: AuthKinds, extras: ViewExtras = async () => ({})) {
  const view = async (r: CanvasWithRole) => ({ ...canvasView(ctx.config, r.canvas, r.role), ...(await extras(r.canvas)) });
  const listed = async (r: CanvasWithRole) =>
    r.role === 'viewer'
      ? listedCanvasView(ctx.config, r.canvas, r.role)
      : { ...listedCanvasView(ctx.config, r.canvas, r.role), ...(await extras(r.canvas)) };
  const ok = (body: unknown, status = 200) => json(status, body, { 'cache-control': 'no-store' });
  /** The right to the canvas is checked before its body is read. */
  const authorize = async (actor: Actor, id: string, need: Need): Promise<void> => void (await managedCanvas(ctx, actor, id, need));

  return new Elysia({ name: 'canvas-management' }).use(auth).guard({ management: true, parse: 'none' }, (app) =>
    app
      .post('/api/canvases', async ({ actor, request }) => {
        const created = await createCanvas(ctx, actor, await readJson(request, CreateCanvasBody));
        return ok({ ...(await view(created)), apiKey: created.apiKey }, 201);
      })
      .get('/api/canvases', async ({ actor }) => {
        const [rows, facts] = await Promise.all([listCanvases(ctx, actor), homeFacts(ctx.sql, actor.user.id)]);
        // Those who manage a canvas also see how widely it is shared and when it was last deployed.
        const withFacts = async (r: CanvasWithRole) =>
          r.role === 'viewer' ? listed(r) : { ...(await listed(r)), ...(facts.get(r.canvas.id) ?? { people: 0, lastDeployAt: null }) };
        return ok({ canvases: await Promise.all(rows.map(withFacts)) });
      })
      .get('/api/canvases/:id', async ({ actor, params }) => ok(await view(await getCanvas(ctx, actor, params.id))))
      .patch('/api/canvases/:id', async ({ actor, params, request }) => {
        await authorize(actor, params.id, 'manage');
        return ok(await view(await updateCanvas(ctx, actor, params.id, await readJson(request, PatchCanvasBody))));
      })
      .delete('/api/canvases/:id', async ({ actor, params }) => {
        await deleteCanvas(ctx, actor, params.id);
        return ok({ ok: true });
      })
      .patch('/api/canvases/:id/capabilities', async ({ actor, params, request }) => {
        await authorize(actor, params.id, 'manage');
        return ok(await view(await setCapabilities(ctx, actor, params.id, await readJson(request, CapabilitiesBody))));
      })
      .post('/api/canvases/:id/regenerate-key', async ({ actor, params }) => ok(await regenerateKey(ctx, actor, params.id)))
      .post('/api/canvases/:id/archive', async ({ actor, params }) => ok(await view(await setArchived(ctx, actor, params.id, true))))
      .post('/api/canvases/:id/restore', async ({ actor, params }) => ok(await view(await setArchived(ctx, actor, params.id, false))))
      .get('/api/canvases/:id/members', async ({ actor, params }) => ok({ members: await listMembers(ctx, actor, params.id) }))
      .put('/api/canvases/:id/members', async ({ actor, params, request }) => {
        await authorize(actor, params.id, 'manage');
        return ok(await putMember(ctx, actor, params.id, await readJson(request, PutMemberBody)));
      })
      .put('/api/canvases/:id/owner', async ({ actor, params, request }) => {
        await authorize(actor, params.id, 'own');
        const { canvas } = await transferOwnership(ctx, actor, params.id, await readJson(request, PutOwnerBody));
        return ok(await view({ canvas, role: (await viewRoleFor(ctx, actor, canvas)) ?? 'viewer' }));
      })
      .delete('/api/canvases/:id/members/:userId', async ({ actor, params }) => {
        await removeMember(ctx, actor, params.id, params.userId);
        return ok({ ok: true });
      }),
  );
}
