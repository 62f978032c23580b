import { t } from 'elysia';
import { API_KINDS } from './store.ts';

/** `days` as sent (digits only); its range is checked after (1–400). */
export const InsightsQuery = t.Object({ days: t.Optional(t.String({ pattern: '^[0-9]{1,4}$' })) }, { additionalProperties: false });

export const InsightsAnswer = t.Object({
  days: t.Array(t.Object({ date: t.String({ format: 'date' }), views: t.Integer(), visitors: t.Integer() })),
  topPaths: t.Array(t.Object({ path: t.String(), views: t.Integer() })),
  api: t.Object(Object.fromEntries(API_KINDS.map((k) => [k, t.Integer()]))),
});
