// Response shapes for the API description. Request bodies come from the
// features' own TypeBox models (the schemas readJson validates with); the
// answers are plain objects built by views, so their shapes are written here.
import { Type as T } from '@sinclair/typebox';

const Nullable = <S extends ReturnType<typeof T.String>>(s: S) => T.Union([s, T.Null()]);

export const DeployResult = T.Object(
  {
    outcome: T.Union([T.Literal('published'), T.Literal('already_current'), T.Literal('preview')]),
    url: T.String(),
    previewUrl: T.Optional(
      T.String({ description: 'with outcome "preview": where the new version is served ({url}__easel/v/{version}/)' }),
    ),
    version: T.Integer(),
    versionId: T.String(),
    releaseId: Nullable(T.String()),
    publicationToken: T.String(),
    fileCount: T.Integer(),
    totalBytes: T.Integer(),
    warnings: T.Array(T.String()),
  },
  { $id: 'DeployResult' },
);

export const CanvasView = T.Object(
  {
    id: T.String(),
    slug: T.String(),
    url: T.String(),
    title: T.String(),
    ownerId: T.String(),
    role: T.Union([T.Literal('owner'), T.Literal('editor'), T.Literal('viewer'), T.Literal('admin')]),
    status: T.String({ description: 'active, archived, disabled or expired' }),
    publicationState: T.Union([T.Literal('published'), T.Literal('draft')]),
    accessMode: T.String({ description: 'restricted, specific_people, whole_org or public_link' }),
    hasPassword: T.Boolean(),
    expiresAt: T.Union([T.Integer({ description: 'ms since the epoch' }), T.Null()]),
    currentVersionId: Nullable(T.String()),
    publicationToken: T.String(),
    capabilities: T.Record(T.String(), T.Boolean()),
    aiAudience: T.String(),
    connectionsAudience: T.String(),
    serviceWorkers: T.Boolean(),
    runtimePolicy: T.Unknown(),
    runtimePolicyRevision: Nullable(T.String()),
    createdAt: T.Integer(),
    updatedAt: T.Integer(),
  },
  { $id: 'CanvasView', additionalProperties: true },
);

/** A canvas in a person's list: a viewer sees these fields; those who manage it see its whole view, with `people` and `lastDeployAt`. */
export const ListedCanvas = T.Object(
  {
    id: T.String(),
    slug: T.String(),
    url: T.String(),
    title: T.String(),
    ownerId: T.String(),
    role: T.Union([T.Literal('owner'), T.Literal('editor'), T.Literal('viewer'), T.Literal('admin')]),
    status: T.String(),
    publicationState: T.Union([T.Literal('published'), T.Literal('draft')]),
    accessMode: T.String(),
    hasPassword: T.Boolean(),
    createdAt: T.Integer(),
    updatedAt: T.Integer(),
    people: T.Optional(T.Integer({ description: 'how many people it is shared with (managers only)' })),
    lastDeployAt: T.Optional(T.Union([T.Integer({ description: 'ms since the epoch (managers only)' }), T.Null()])),
    aiMonth: T.Optional(
      T.Object(
        {
          month: T.String({ description: 'UTC month, yyyy-mm' }),
          spentUsd: T.Number({ description: 'spend this month as the cap counts it (settled calls and running reservations)' }),
          capUsd: T.Number({ description: "the canvas's monthly AI cap" }),
          calls: T.Integer({ description: 'settled AI calls this month' }),
        },
        { description: "the canvas's AI spend this month against its cap (managers only)" },
      ),
    ),
  },
  { additionalProperties: true },
);

export const CanvasList = T.Object({ canvases: T.Array(ListedCanvas) });

export const Member = T.Object({
  userId: T.String(),
  email: T.String(),
  name: T.String(),
  role: T.Union([T.Literal('owner'), T.Literal('editor'), T.Literal('viewer')]),
});

export const MemberList = T.Object({ members: T.Array(Member) });

export const CanvasCreated = T.Intersect([CanvasView, T.Object({ apiKey: T.String({ description: 'the deploy key, shown this once' }) })]);

export const DeployStatus = T.Object(
  {
    id: T.String(),
    slug: T.String(),
    url: T.String(),
    title: T.String(),
    status: T.Literal('active'),
    publicationState: T.Union([T.Literal('published'), T.Literal('draft')]),
    accessMode: T.String(),
    currentVersionId: Nullable(T.String()),
    publicationToken: T.String(),
    currentVersion: T.Union([
      T.Object({ id: T.String(), number: T.Integer(), releaseId: Nullable(T.String()), createdAt: T.Integer() }),
      T.Null(),
    ]),
  },
  { $id: 'DeployStatus' },
);

export const VersionList = T.Object(
  {
    versions: T.Array(
      T.Object({
        id: T.String(),
        number: T.Integer(),
        source: T.String(),
        status: T.String(),
        createdBy: T.String(),
        createdAt: T.Integer(),
        fileCount: T.Integer(),
        totalBytes: T.Integer(),
        releaseId: Nullable(T.String()),
        current: T.Boolean(),
        preview: T.Boolean({ description: 'deployed as a preview (not made live by its deploy)' }),
        previewUrl: T.String({ description: 'where this version is served: {canvas URL}__easel/v/{number}/' }),
        warnings: T.Array(T.String(), { description: 'what its deploy warned of, as the DeployResult said it (empty for none)' }),
      }),
    ),
  },
  { $id: 'VersionList' },
);

export const FileListing = T.Object(
  {
    version: T.Integer(),
    fileCount: T.Integer(),
    files: T.Array(
      T.Object({ path: T.String(), size: T.Integer(), mime: T.String(), hash: T.String({ description: 'sha256, lowercase hex' }) }),
    ),
  },
  { $id: 'FileListing' },
);

export const BeginUploadAnswer = T.Union([
  T.Object({ uploadId: T.String(), missingHashes: T.Array(T.String()), expiresAt: T.Optional(T.Integer()) }),
  DeployResult,
]);

export const Ok = T.Object({ ok: T.Literal(true) });

export const KvValue = T.Object({ value: T.Unknown() });

/** `{error}`: the Deploy API's authentication, body and throttling refusals. */
export const ShortError = T.Object({ error: T.String() }, { $id: 'ShortError' });
/** `{code, message, …}`: everything else (coordination conflicts add `current` and `release`). */
export const CodedError = T.Object(
  {
    code: T.String(),
    message: T.String(),
    path: T.Optional(T.String()),
    current: T.Optional(T.Unknown()),
    release: T.Optional(T.Unknown()),
  },
  { $id: 'CodedError', additionalProperties: true },
);
