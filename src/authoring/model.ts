// Authoring's `metadata` field (spec "Authoring metadata JSON fields"): a
// JSON string in the multipart body, checked strictly (a field a method does
// not accept is 400 INVALID_BODY, CONTRACT §9).
import type { TSchema } from '@sinclair/typebox';
import { t } from 'elysia';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import { checkStrict } from '../http/json-body.ts';
import { epochMs } from '../http/epoch-ms.ts';
import { parseJsonText } from '../http/json-text.ts';
import type { AuthoringAccess } from './store.ts';

const MiB = 1024 * 1024;
export const AUTHORING_LIMITS = {
  bundleBytes: 50 * MiB,
  metadataBytes: 16 * 1024,
  titleChars: 200,
  tags: 20,
  tagChars: 64,
  passwordChars: 200,
} as const;

const ACCESS = t.Union([
  t.Literal('private'),
  t.Literal('specific_people'),
  t.Literal('whole_org'),
  t.Literal('public_link'),
  t.Literal('password'),
]);
const TAGS = t.Array(t.String({ minLength: 1, maxLength: AUTHORING_LIMITS.tagChars }), { maxItems: AUTHORING_LIMITS.tags });
const PASSWORD = t.String({ minLength: 1, maxLength: AUTHORING_LIMITS.passwordChars });
const TITLE = t.String({ minLength: 1, maxLength: AUTHORING_LIMITS.titleChars });
const EPOCH_MS = epochMs();
const FREE_FORM = t.Record(t.String(), t.Unknown());

export const CreateMetadata = t.Object(
  {
    title: TITLE,
    slug: t.Optional(t.String()),
    tags: t.Optional(TAGS),
    access: t.Optional(ACCESS),
    password: t.Optional(PASSWORD),
    expiresAt: t.Optional(EPOCH_MS),
    metadata: t.Optional(FREE_FORM),
  },
  { additionalProperties: false },
);

export const UpdateMetadata = t.Object(
  {
    title: t.Optional(TITLE),
    tags: t.Optional(TAGS),
    access: t.Optional(ACCESS),
    password: t.Optional(t.Union([PASSWORD, t.Null()])),
    expiresAt: t.Optional(t.Union([EPOCH_MS, t.Null()])),
    metadata: t.Optional(FREE_FORM),
    expectedUpdatedAt: t.Optional(EPOCH_MS),
  },
  { additionalProperties: false },
);

export type CreateMetadata = typeof CreateMetadata.static;
export type UpdateMetadata = typeof UpdateMetadata.static;

/** The metadata field's JSON: at most 16 KiB, an object of the method's fields. */
export function parseMetadata<S extends typeof CreateMetadata | typeof UpdateMetadata>(schema: S, text: string | null): S['static'] {
  if (text === null) throw new AppError('INVALID_BODY', 'metadata: the multipart field is required (a JSON object)');
  const parsed = parseJsonText(text);
  if (!parsed.ok) throw new AppError('INVALID_BODY', 'metadata: not JSON');
  checkStrict(schema, parsed.value);
  const free = (parsed.value as { metadata?: unknown }).metadata;
  if (free !== undefined && Buffer.byteLength(JSON.stringify(free)) > AUTHORING_LIMITS.metadataBytes) {
    throw new AppError('INVALID_BODY', `metadata.metadata: at most ${AUTHORING_LIMITS.metadataBytes / 1024} KiB`);
  }
  return parsed.value as S['static'];
}

/** `specific_people` is a legacy alias of `private` (spec Versioning 5). */
export function normalizeAccess(access: CreateMetadata['access']): AuthoringAccess | undefined {
  return access === 'specific_people' ? 'private' : access;
}

/** The rung must be allowed on this instance (`public_link` covers `password`). */
export function checkRung(config: Pick<Config, 'authoringAllowedRungs'>, access: AuthoringAccess): void {
  const rung = access === 'password' ? 'public_link' : access;
  const allowed =
    config.authoringAllowedRungs.includes(rung) || (rung === 'private' && config.authoringAllowedRungs.includes('specific_people'));
  if (!allowed) throw new AppError('INVALID_BODY', `access: "${access}" is not allowed on this instance (EASEL_AUTHORING_ALLOWED_RUNGS)`);
}

/**
 * Expiry rules on the share's resulting state: a new expiry must be in the
 * future and within the maximum days; when the instance requires one, the
 * share must end up with one.
 */
export function checkExpiry(
  config: Pick<Config, 'authoringMaxExpiryDays' | 'authoringRequireExpiry'>,
  given: number | null | undefined,
  resulting: number | null,
  now: number,
): void {
  if (config.authoringRequireExpiry && resulting === null) throw new AppError('INVALID_BODY', 'expiresAt: required on this instance');
  if (given === undefined || given === null) return;
  if (given <= now) throw new AppError('INVALID_BODY', 'expiresAt: must be in the future');
  const maxDays = config.authoringMaxExpiryDays;
  if (maxDays > 0 && given > now + maxDays * 24 * 3600 * 1000)
    throw new AppError('INVALID_BODY', `expiresAt: at most ${maxDays} days ahead`);
}

const Nullable = <S extends TSchema>(s: S) => t.Union([s, t.Null()]);
const oneOf = <V extends string>(...values: V[]) => t.Union(values.map((v) => t.Literal(v)));

/** A canvas a page published, as the SDK receives it (sdk/wire.ts AuthoredCanvas). */
export const AuthoredCanvasAnswer = t.Object({
  id: t.String(),
  url: t.String(),
  title: t.String(),
  tags: t.Array(t.String()),
  access: oneOf('private', 'whole_org', 'public_link', 'password'),
  accessMode: oneOf('restricted', 'whole_org', 'public_link'),
  publicationStatus: oneOf('disabled', 'archived', 'unpublished', 'draft', 'expired', 'published'),
  hasPassword: t.Boolean(),
  status: oneOf('revoked', 'expired', 'private', 'live'),
  createdAt: t.Integer(),
  updatedAt: t.Integer(),
  expiresAt: Nullable(t.Integer()),
  revokedAt: Nullable(t.Integer()),
  galleryListed: t.Boolean(),
  galleryTemplatable: t.Boolean(),
  discoverability: t.Literal('none'),
  createdBy: t.String(),
  viewerRole: oneOf('owner', 'editor', 'admin'),
  audienceSummary: t.Object({ count: t.Integer(), names: t.Array(t.String()) }),
  version: Nullable(t.String()),
  bundleUpdatedAt: t.Integer(),
  sourceApp: Nullable(t.String()),
  sourceKind: Nullable(t.String()),
  metadata: t.Record(t.String(), t.Unknown()),
});

export const AuthoredListAnswer = t.Object({ canvases: t.Array(AuthoredCanvasAnswer) });

/** The list's filters; an empty `tags` filters nothing. */
export const AuthoredListQuery = t.Object({
  sourceApp: t.Optional(t.String({ description: 'only canvases published with this metadata.sourceApp' })),
  sourceKind: t.Optional(t.String({ description: 'only canvases published with this metadata.sourceKind' })),
  tags: t.Optional(t.String({ description: 'comma-separated tags, all of which must match' })),
});

/** Where a canvas a page published came from (service.ts AuthoredSummary); null for canvases no page made. */
export const AuthoredSummaryAnswer = Nullable(
  t.Object({
    sourceCanvasId: t.String(),
    sourceApp: Nullable(t.String()),
    sourceKind: Nullable(t.String()),
    createdBy: t.String(),
    publicationStatus: oneOf('disabled', 'archived', 'unpublished', 'draft', 'expired', 'published'),
    revokedAt: Nullable(t.Integer()),
  }),
);
