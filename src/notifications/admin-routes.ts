// GET /api/admin/notifications: the outbox's recent messages and failures,
// for instance admins (anyone else: 404, as every admin route).
import { Elysia } from 'elysia';
import { listLimit } from '../admin/routes.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { json } from '../http/respond.ts';
import type { DeliveryState } from './outbox-store.ts';
import type { NotificationsFeature } from './feature.ts';

const STATES = new Set<string>(['pending', 'sent', 'failed']);

export function notificationAdminRoutes(auth: AuthKinds, notifications: NotificationsFeature) {
  return new Elysia({ name: 'notification-admin' }).use(auth).guard({ admin: true, parse: 'none' }, (app) =>
    app.get('/api/admin/notifications', async ({ request }) => {
      const q = new URL(request.url).searchParams;
      const limit = listLimit(q.get('limit'));
      const raw = q.get('state');
      const state = raw !== null && STATES.has(raw) ? (raw as DeliveryState) : null;
      return json(
        200,
        { emailEnabled: notifications.emailEnabled, deliveries: await notifications.outbox.recent(limit, state) },
        { 'cache-control': 'no-store' },
      );
    }),
  );
}
