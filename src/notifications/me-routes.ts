// GET/PUT /api/me/notifications: which emails the caller gets (CONTRACT §9,
// tranche 3). `emailEnabled: false` when the instance sends no email at all,
// so the dashboard can say so. PUT changes only the fields it names.
import { managedCanvas } from '../canvases/authority.ts';
import { sessionRoute } from '../auth/door-routes.ts';
import type { Core } from '../foundation.ts';
import { AppError } from '../errors.ts';
import { declaredRoutes } from '../http/declared-route.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import type { NotificationsFeature } from './feature.ts';
import { PreferencesAnswer, PutPreferencesBody } from './model.ts';
import { KINDS } from './preferences.ts';

export function notificationMeRoutes(ctx: Pick<Core, 'canvases'>, auth: AuthKinds, notifications: NotificationsFeature) {
  const view = async (userId: string) => ({ emailEnabled: notifications.emailEnabled, ...(await notifications.preferences.of(userId)) });
  return declaredRoutes('notification-preferences', auth, [
    sessionRoute(
      {
        method: 'GET',
        path: '/api/me/notifications',
        summary: 'Which emails you get, and whether this instance sends email at all',
        answer: PreferencesAnswer,
      },
      ({ actor }) => view(actor.user.id),
    ),
    sessionRoute(
      {
        method: 'PUT',
        path: '/api/me/notifications',
        summary: 'Turn email kinds on or off; new-submission mail per canvas you own (off, immediate, hourly)',
        body: PutPreferencesBody,
        answer: PreferencesAnswer,
        errors: ['INVALID_BODY', 'NOT_FOUND', 'PERMISSION_DENIED'],
      },
      async ({ actor, body }) => {
        const submissions = body.submissions ?? {};
        // New-submission mail is for a canvas's owner: not its editors, not an admin for someone else's canvas.
        for (const id of Object.keys(submissions)) {
          const m = await managedCanvas(ctx, actor, id, 'own');
          if (m.role !== 'owner') throw new AppError('PERMISSION_DENIED', 'submission emails go to the canvas owner only');
        }
        const kinds = Object.fromEntries(KINDS.filter((k) => body[k] !== undefined).map((k) => [k, body[k]!]));
        await notifications.preferences.change(actor.user.id, { kinds, submissions });
        return view(actor.user.id);
      },
    ),
  ]);
}
