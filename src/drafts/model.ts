// Request shapes of the draft routes (src/drafts/routes.ts).
import type { TSchema } from '@sinclair/typebox';
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

const Nullable = <S extends TSchema>(s: S) => t.Union([s, t.Null()]);

/** Your draft as the editor shows it (service.ts DraftView). */
export const DraftViewAnswer = t.Object({
  canvasId: t.String(),
  baseVersion: Nullable(t.Integer()),
  liveVersion: Nullable(t.Integer()),
  stale: Nullable(
    t.Object(
      {
        version: t.Integer(),
        changes: t.Array(
          t.Object({
            path: t.String(),
            change: t.Union([t.Literal('added'), t.Literal('removed'), t.Literal('modified')]),
            editedInDraft: t.Boolean(),
          }),
        ),
      },
      { description: 'set when a deploy went live while the draft had unpublished edits' },
    ),
  ),
  editedCount: t.Integer(),
  files: t.Array(
    t.Object({
      path: t.String(),
      size: t.Integer(),
      mime: t.String(),
      hash: Nullable(t.String({ description: 'null: the draft deletes the file' })),
      edited: t.Boolean(),
      text: t.Boolean({ description: 'text the editor can open' }),
    }),
  ),
  updatedAt: t.Integer(),
  previewUrl: t.String({ description: "where the draft is served on the canvas's own origin, for an hour" }),
});

/**
 * The file routes' query as the document describes it. Any string passes the
 * declaration: DraftFileQuery and DraftWriteQuery check the whole query
 * strictly (400 INVALID_BODY, an unknown parameter too).
 */
export const DraftFileQueryDoc = t.Object({
  path: t.Optional(t.String({ description: 'the file' })),
  from: t.Optional(t.String({ description: 'draft (default), base or live' })),
});
export const DraftWriteQueryDoc = t.Object({ path: t.Optional(t.String({ description: 'the file' })) });

/** Writing a file answers the draft and the key-scanner's warnings about the text written. */
export const DraftWriteAnswer = t.Object({
  draft: DraftViewAnswer,
  warnings: t.Array(t.String(), { description: 'e.g. the text looks like it holds a canvas key' }),
});
