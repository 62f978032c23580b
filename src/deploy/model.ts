import { Type } from '@sinclair/typebox';

/** POST /v1/canvases/{id}/rollback: the version number to make live again. */
export const RollbackBody = Type.Object(
  { version: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) },
  { additionalProperties: false },
);
