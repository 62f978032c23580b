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

// The answers of the admin routes (src/admin/routes.ts): what the views build, written once for the type check and the document.
const nullable = <S extends Parameters<typeof t.Union>[0][number]>(schema: S, options: { description?: string } = {}) =>
  t.Union([schema, t.Null()], options);

export const AdminUser = t.Object({
  id: t.String(),
  email: t.String(),
  name: t.String(),
  avatarUrl: nullable(t.String()),
  active: t.Boolean(),
  canPublishPublic: t.Boolean(),
  orgId: nullable(t.String()),
  createdAt: t.Integer({ description: 'ms since the epoch' }),
  adminGroups: t.Array(t.String(), { description: 'admin groups (EASEL_OIDC_ADMIN_GROUPS) at their last OIDC sign-in' }),
  isAdmin: t.Boolean(),
});

export const AdminUserList = t.Object({
  users: t.Array(AdminUser),
  tenancy: t.Boolean({ description: 'whether home orgs mean anything on this instance (EASEL_TENANCY)' }),
});

export const AuditEntry = t.Object({
  id: t.Integer(),
  at: t.Integer({ description: 'ms since the epoch' }),
  actorId: nullable(t.String()),
  actorKind: t.String(),
  actor: nullable(t.Object({ name: t.String(), email: t.String() }), { description: 'the person as they are called now' }),
  canvasId: nullable(t.String()),
  canvas: nullable(t.Object({ title: t.String(), slug: t.String() })),
  action: t.String(),
  detail: t.Unknown(),
});

export const AuditPage = t.Object({
  entries: t.Array(AuditEntry),
  nextBefore: nullable(t.Integer({ description: 'the `before` of the next page; null when this one is empty' })),
});

export const DiskUsageAnswer = t.Object({
  database: t.Object({ bytes: t.Integer(), walBytes: t.Integer() }),
  blobs: t.Object({
    bytes: t.Integer(),
    files: t.Integer(),
    measuredAt: t.Integer(),
    remote: nullable(t.String({ description: 'the remote blob store (EASEL_BLOB_URL); the figures are then its local cache' })),
    cacheBytes: nullable(t.Integer()),
  }),
  disk: t.Object({ freeBytes: t.Integer(), totalBytes: t.Integer(), minFreeBytes: t.Integer() }),
});

/** The instance settings as an admin reads them: the provider key never, only whether it is set. */
export const SettingsView = t.Object({
  aiModels: t.Array(t.String()),
  aiPrices: t.Record(t.String(), t.Object({ input: t.Number(), output: t.Number() }), { description: 'USD per million tokens' }),
  aiApiKeySet: t.Boolean(),
  aiUserDailyUsd: t.Number(),
  aiCanvasMonthlyUsd: t.Number(),
  publicLinks: t.Boolean(),
  filesBytesFile: t.Integer(),
  filesBytesCanvas: t.Integer(),
  userCanvases: t.Integer(),
  userStorageBytes: t.Integer(),
  userCanvasCreatesPerHour: t.Integer(),
});
