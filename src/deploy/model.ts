import { Type } from '@sinclair/typebox';

const closed = { additionalProperties: false } as const;

/** POST /v1/canvases/{id}/rollback: the version number to make live again. */
export const RollbackBody = Type.Object({ version: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) }, closed);

/**
 * The coordination fields of a deploy (spec "Coordination"). The staged-upload
 * routes read their fields by these names (upload/body.ts) and the service
 * checks the values, so the spec's codes come from one place.
 */
const coordination = {
  releaseId: Type.Optional(Type.String()),
  expectedPublicationToken: Type.Optional(Type.String()),
};

/** POST …/uploads: the manifest and the coordination fields. */
export const BeginUploadBody = Type.Object(
  {
    manifest: Type.Array(
      Type.Object({
        path: Type.String(),
        hash: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'sha256, lowercase hex' }),
        size: Type.Integer({ minimum: 0 }),
      }),
    ),
    ...coordination,
    preview: Type.Optional(Type.Boolean({ description: 'a kept release answers as its preview instead of a conflict' })),
  },
  closed,
);

/** POST …/uploads/{uploadId}/finalize: the coordination fields (an empty body is `{}`). */
export const FinalizeBody = Type.Object(
  {
    ...coordination,
    preview: Type.Optional(Type.Boolean({ description: 'make a ready version without going live (outcome "preview")' })),
  },
  closed,
);

/** Rollback's answer: the canvas URL and the version now live. */
export const RollbackAnswer = Type.Object({ url: Type.String(), version: Type.Integer() });

/** Unpublish's answer: the canvas is a draft again, its history kept. */
export const UnpublishAnswer = Type.Object({
  url: Type.String(),
  publicationState: Type.Literal('draft'),
  currentVersionId: Type.Null(),
});
