// GET/PUT /api/me/notifications: which emails the caller gets (CONTRACT §9,
// tranche 3). `emailEnabled: false` when the instance sends no email at all,
// so the dashboard can say so. PUT changes only the fields it names.
import { Type } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import { managedCanvas } from '../canvases/authority.ts';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { readJson } from '../http/json-body.ts';
import { json } from '../http/respond.ts';
import type { NotificationsFeature } from './feature.ts';
import { KINDS, SUBMISSION_MODES, type Kind } from './preferences.ts';

const PutPreferencesBody = Type.Object(
  {
    ...Object.fromEntries(KINDS.map((k) => [k, Type.Optional(Type.Boolean())])),
    submissions: Type.Optional(
      Type.Record(Type.String({ minLength: 1, maxLength: 40 }), Type.Union(SUBMISSION_MODES.map((m) => Type.Literal(m))), {
        maxProperties: 500,
      }),
    ),
  },
  { additionalProperties: false },
);

export function notificationMeRoutes(ctx: AppContext, auth: AuthKinds, notifications: NotificationsFeature) {
  const view = async (userId: string) =>
    json(
      200,
      { emailEnabled: notifications.emailEnabled, ...(await notifications.preferences.of(userId)) },
      { 'cache-control': 'no-store' },
    );
  return new Elysia({ name: 'notification-preferences' }).use(auth).guard({ management: true, parse: 'none' }, (app) =>
    app
      .get('/api/me/notifications', ({ actor }) => view(actor.user.id))
      .put('/api/me/notifications', async ({ actor, request }) => {
        const body = (await readJson(request, PutPreferencesBody)) as Partial<Record<Kind, boolean>> & {
          submissions?: Record<string, (typeof SUBMISSION_MODES)[number]>;
        };
        const submissions = body.submissions ?? {};
        // New-submission mail is for a canvas's owner: not its editors, not an admin for someone else's canvas.
        for (const id of Object.keys(submissions)) {
          const m = await managedCanvas(ctx, actor, id, 'own');
          if (m.role !== 'owner') throw new AppError('PERMISSION_DENIED', 'submission emails go to the canvas owner only');
        }
        const kinds = Object.fromEntries(KINDS.filter((k) => body[k] !== undefined).map((k) => [k, body[k]!]));
        await notifications.preferences.change(actor.user.id, { kinds, submissions });
        return view(actor.user.id);
      }),
  );
}
