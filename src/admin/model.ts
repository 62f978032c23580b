// TypeBox schemas of the admin bodies (CONTRACT §4, admin routes). Closed objects: unknown fields are refused.
import { t } from 'elysia';

const closed = { additionalProperties: false } as const;
const MODEL = '^[A-Za-z0-9._:-]{1,100}$';
const usd = t.Number({ minimum: 0, maximum: 1_000_000 });
const bytes = t.Integer({ minimum: 1, maximum: 2 ** 50 });
const count = t.Integer({ minimum: 1, maximum: 1_000_000 });
/** null puts a setting back to its environment default. */
const orReset = <T extends Parameters<typeof t.Union>[0][number]>(schema: T) => t.Optional(t.Union([schema, t.Null()]));

export const ORG_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const PatchUserBody = t.Object(
  {
    active: t.Optional(t.Boolean()),
    canPublishPublic: t.Optional(t.Boolean()),
    orgId: t.Optional(t.Union([t.String({ pattern: ORG_ID.source }), t.Null()])),
  },
  closed,
);

export const DisableBody = t.Object({ reason: t.Optional(t.String({ maxLength: 500 })) }, closed);

export const PatchSettingsBody = t.Object(
  {
    aiModels: orReset(t.Array(t.String({ pattern: MODEL }), { minItems: 1, maxItems: 50, uniqueItems: true })),
    // Merged per model into the price table; null for a model removes its price.
    aiPrices: orReset(
      t.Record(t.String({ pattern: MODEL }), t.Union([t.Object({ input: usd, output: usd }, closed), t.Null()]), { maxProperties: 100 }),
    ),
    aiApiKey: orReset(t.String({ minLength: 1, maxLength: 1000 })),
    aiUserDailyUsd: orReset(usd),
    aiCanvasMonthlyUsd: orReset(usd),
    publicLinks: orReset(t.Boolean()),
    filesBytesFile: orReset(bytes),
    filesBytesCanvas: orReset(bytes),
    userCanvases: orReset(count),
    userStorageBytes: orReset(bytes),
    userCanvasCreatesPerHour: orReset(count),
  },
  closed,
);
