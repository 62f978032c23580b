// GET /api/canvases/{id}/capabilities: what each switch amounts to on this
// instance and why one is off ("AI off: no provider key on this instance"),
// for the people managing the canvas (the dashboard's runtime settings).
import { Elysia } from 'elysia';
import { managedCanvas } from '../canvases/authority.ts';
import type { AppContext } from '../context.ts';
import type { AuthKinds } from '../http/auth-kinds.ts';
import { json } from '../http/respond.ts';
import { capabilityStates } from './capabilities.ts';

export function capabilityStateRoutes(ctx: AppContext, auth: AuthKinds) {
  return new Elysia({ name: 'capability-states' }).use(auth).guard({ management: true, parse: 'none' }, (app) =>
    app.get('/api/canvases/:id/capabilities', ({ actor, params }) => {
      const { canvas } = managedCanvas(ctx, actor, params.id, 'manage');
      return json(200, { switches: canvas.capabilities, effective: capabilityStates(ctx, canvas) }, { 'cache-control': 'no-store' });
    }),
  );
}
