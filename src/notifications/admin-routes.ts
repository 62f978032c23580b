// GET /api/admin/notifications: the outbox's recent messages and failures,
// for instance admins (anyone else: 404, as every admin route).
import { Type as T } from '@sinclair/typebox';
import { LIMIT_QUERY, listLimit } from '../admin/routes.ts';
import { adminRoute } from '../auth/door-routes.ts';
import { declaredRoutes } from '../http/declared-route.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import type { DeliveryState } from './outbox-store.ts';
import type { NotificationsFeature } from './feature.ts';

const STATES = new Set<string>(['pending', 'sent', 'failed']);

const iso = (description: string) => T.Union([T.String({ format: 'date-time' }), T.Null()], { description });

/** What an admin sees of a message (never its body: it may quote people's data). */
const Delivery = T.Object({
  id: T.String(),
  kind: T.String(),
  recipient: T.String(),
  subject: T.String(),
  state: T.Union([T.Literal('pending'), T.Literal('sent'), T.Literal('failed')]),
  attempts: T.Integer(),
  createdAt: T.String({ format: 'date-time' }),
  finishedAt: iso('when it was sent or given up on'),
  nextAttemptAt: iso('pending only: when it is tried again'),
  lastError: T.Union([T.String(), T.Null()]),
});

export function notificationAdminRoutes(auth: AuthKinds, notifications: NotificationsFeature) {
  return declaredRoutes('notification-admin', auth, [
    adminRoute(
      {
        method: 'GET',
        path: '/api/admin/notifications',
        summary: 'Recent notification emails: sent, waiting to be tried again, failed',
        query: T.Object({ state: T.Optional(T.String({ description: 'pending, sent or failed (default: all)' })), limit: LIMIT_QUERY }),
        answer: T.Object({ emailEnabled: T.Boolean(), deliveries: T.Array(Delivery) }),
      },
      async ({ query }) => {
        const limit = listLimit(query.limit);
        const raw = query.state;
        const state = raw !== undefined && STATES.has(raw) ? (raw as DeliveryState) : null;
        return { emailEnabled: notifications.emailEnabled, deliveries: await notifications.outbox.recent(limit, state) };
      },
    ),
  ]);
}
