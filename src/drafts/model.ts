// Request shapes of the draft routes (src/drafts/routes.ts).
import { t } from 'elysia';

/** `?path=` names a file of the canvas; `from` which copy to read (GET only). */
export const DraftFileQuery = t.Object(
  {
    path: t.String({ minLength: 1, maxLength: 1024 }),
    from: t.Optional(t.Union([t.Literal('draft'), t.Literal('base'), t.Literal('live')])),
  },
  { additionalProperties: false },
);

export const DraftPathBody = t.Object({ path: t.String({ minLength: 1, maxLength: 1024 }) }, { additionalProperties: false });

export const PublishDraftBody = t.Object(
  { expectedPublicationToken: t.Optional(t.Union([t.String({ maxLength: 200 }), t.Null()])) },
  { additionalProperties: false },
);

/** Writing and deleting name only the file. */
export const DraftWriteQuery = t.Object({ path: t.String({ minLength: 1, maxLength: 1024 }) }, { additionalProperties: false });
