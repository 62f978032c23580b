// Admin API bodies for Connection profiles (CONTRACT §4). Unknown fields are
// refused (jsonBody is strict); the finer rules (origin, header names and
// values) are checked in profiles.ts so each refusal names its field.
import { t } from 'elysia';
import { HTTP_METHODS } from '../policy/document.ts';

const Method = t.Union(HTTP_METHODS.map((m) => t.Literal(m)));
const Methods = t.Array(Method, { minItems: 1, maxItems: HTTP_METHODS.length, uniqueItems: true });

export const MAX_PROTECTED_HEADERS = 16;
export const MAX_PROTECTED_VALUE_BYTES = 8 * 1024;

export const CreateProfileBody = t.Object(
  {
    name: t.String(),
    origin: t.String({ maxLength: 2048 }),
    methods: Methods,
    protectedHeaders: t.Optional(t.Record(t.String(), t.String())),
    enabled: t.Optional(t.Boolean()),
  },
  { additionalProperties: false },
);

/** `protectedHeaders` merges: a string sets (or replaces) a value, null removes the header. */
export const PatchProfileBody = t.Object(
  {
    origin: t.Optional(t.String({ maxLength: 2048 })),
    methods: t.Optional(Methods),
    protectedHeaders: t.Optional(t.Record(t.String(), t.Union([t.String(), t.Null()]))),
    enabled: t.Optional(t.Boolean()),
  },
  { additionalProperties: false },
);

export type CreateProfileInput = typeof CreateProfileBody.static;
export type PatchProfileInput = typeof PatchProfileBody.static;

/** A Connection profile as an admin sees it (header names only: values are write-only). */
export const ProfileAnswer = t.Object({
  name: t.String(),
  origin: t.String(),
  methods: t.Array(Method),
  protectedHeaders: t.Array(t.String(), { description: 'header names only' }),
  enabled: t.Boolean(),
  usable: t.Boolean({ description: 'enabled, and its protected headers open with the current EASEL_SECRET_KEY' }),
  unusableReason: t.Union([t.String({ description: 'disabled, secret_key_missing or secret_key_changed' }), t.Null()]),
  canvasIds: t.Array(t.String(), { description: 'the canvases it is granted to' }),
  createdAt: t.Integer(),
  updatedAt: t.Integer(),
});

export const ProfileList = t.Object({ connections: t.Array(ProfileAnswer) });

export const CanvasGrants = t.Object({ connections: t.Array(t.Object({ name: t.String(), grantedAt: t.Integer() })) });

export const GrantAnswer = t.Object({ canvasId: t.String(), name: t.String(), grantedAt: t.Integer() });
