// TypeBox schemas of the management bodies (CONTRACT §4). Every object is
// closed: unknown fields are refused (see body.ts), never silently dropped.
import { t } from 'elysia';
import { epochMs } from '../http/epoch-ms.ts';

const closed = { additionalProperties: false } as const;
/** A title is 1-200 characters once trimmed (the service trims and checks); the schema bounds what is read. */
export const TITLE_MAX = 200;
export const PASSWORD_MAX = 200;
const audience = t.Union([t.Literal('editors'), t.Literal('viewers')]);

export const CreateCanvasBody = t.Object(
  { title: t.String({ maxLength: TITLE_MAX }), slug: t.Optional(t.String({ maxLength: 100 })) },
  closed,
);

export const PatchCanvasBody = t.Object(
  {
    title: t.Optional(t.String({ maxLength: TITLE_MAX })),
    slug: t.Optional(t.String({ maxLength: 100 })),
    accessMode: t.Optional(t.Union([t.Literal('restricted'), t.Literal('whole_org'), t.Literal('public_link')])),
    password: t.Optional(t.Union([t.String({ minLength: 1, maxLength: PASSWORD_MAX }), t.Null()])),
    expiresAt: t.Optional(t.Union([epochMs('epoch milliseconds, e.g. Date.parse("2027-01-31T00:00:00Z")'), t.Null()])),
    // Owner or admin only: a service worker outlives unpublishing in the visitor's browser.
    serviceWorkers: t.Optional(t.Boolean()),
  },
  closed,
);

export const CapabilitiesBody = t.Object(
  {
    backend: t.Optional(t.Boolean()),
    kv: t.Optional(t.Boolean()),
    files: t.Optional(t.Boolean()),
    ai: t.Optional(t.Boolean()),
    realtime: t.Optional(t.Boolean()),
    authoring: t.Optional(t.Boolean()),
    aiAudience: t.Optional(audience),
    connectionsAudience: t.Optional(audience),
    guestAi: t.Optional(t.Boolean()),
    guestAiMonthlyUsd: t.Optional(t.Number({ minimum: 0, maximum: 1_000_000, description: 'US dollars a month' })),
    expectedRuntimePolicy: t.Optional(t.Union([t.String({ maxLength: 200 }), t.Null()])),
    // Checked by src/policy/document.ts, which names the exact path of a fault.
    runtimePolicy: t.Optional(t.Unknown()),
  },
  closed,
);

export const PutMemberBody = t.Object(
  { email: t.String({ maxLength: 320 }), role: t.Union([t.Literal('editor'), t.Literal('viewer')]) },
  closed,
);

/** PUT /api/canvases/{id}/owner: the person (an active user of the instance) to give the canvas to. */
export const PutOwnerBody = t.Object({ email: t.String({ maxLength: 320 }) }, closed);
