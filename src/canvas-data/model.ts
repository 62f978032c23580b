import { t } from 'elysia';
import { BROWSE_LIMITS } from './browse.ts';

export const ExportQuery = t.Object(
  { format: t.Optional(t.Union([t.Literal('json'), t.Literal('ndjson'), t.Literal('csv')], { default: 'json' })) },
  { additionalProperties: false },
);

/** GET …/data: what the canvas holds, in counts and bytes (store.ts DataSummary): no key, value, name or person. */
export const DataSummaryAnswer = t.Object({
  kv: t.Object({
    shared: t.Object({ keys: t.Integer(), bytes: t.Integer() }),
    perViewer: t.Object({ keys: t.Integer(), bytes: t.Integer(), people: t.Integer() }),
  }),
  collections: t.Array(
    t.Object({
      name: t.String(),
      preset: t.Union([t.String(), t.Null()]),
      records: t.Integer(),
      bytes: t.Integer(),
      updatedAt: t.Union([t.Integer(), t.Null()]),
    }),
  ),
  submissions: t.Array(
    t.Object({ collection: t.String(), count: t.Integer(), bytes: t.Integer(), updatedAt: t.Union([t.Integer(), t.Null()]) }),
  ),
  files: t.Object({
    count: t.Integer(),
    bytes: t.Integer(),
    groups: t.Array(t.Object({ scope: t.String(), group: t.Union([t.String(), t.Null()]), count: t.Integer(), bytes: t.Integer() })),
  }),
});

/**
 * The export's query as the document describes it. Any string passes the
 * declaration: ExportQuery checks the whole query strictly (an unknown or bad
 * parameter is 400 INVALID_BODY), after the right to the canvas.
 */
export const ExportQueryDoc = t.Object({
  format: t.Optional(t.String({ description: 'json (default), ndjson or csv (RFC 4180 with a header row)' })),
});

/** An export's answer: a stream in the asked format, as an attachment. */
export const EXPORT_ANSWER = {
  contentType: 'application/json',
  description: 'the rows as a JSON array, NDJSON lines or CSV, as an attachment',
};

/** What every export and browse route refuses beyond the session door. */
export const EXPORT_ERRORS = ['NOT_FOUND', 'INVALID_BODY', 'PERMISSION_DENIED'] as const;

/** Data answers are the caller's view of a canvas's contents: never kept by a cache. */
export const PRIVATE = { 'cache-control': 'private, no-store' };

/**
 * The browser's page query as the document describes it. Any string passes
 * the declaration: browse.ts checks the whole query strictly (400
 * INVALID_BODY naming the parameter), after the right to the canvas.
 */
export const BrowseQueryDoc = t.Object({
  limit: t.Optional(t.String({ description: `items per page, 1-${BROWSE_LIMITS.maxPage} (default ${BROWSE_LIMITS.defaultPage})` })),
  after: t.Optional(t.String({ description: 'the `next` of the previous page (absent: from the start)' })),
  q: t.Optional(
    t.String({
      description: `only items whose key or id or value text (a file's name) holds this, case-insensitively, taken literally (at most ${BROWSE_LIMITS.queryChars} characters)`,
    }),
  ),
});

/** A page of the browser: the export's rows (browse.ts writes it as JSON text). */
export const BrowseAnswer = t.Object({
  items: t.Array(t.Unknown(), { description: "the export's rows (people named), in key, id or upload order" }),
  next: t.Union([t.String(), t.Null()], { description: 'the cursor of the next page; null at the end' }),
});

/** A deleted item (remove.ts Removed). */
export const RemovedAnswer = t.Object({ ok: t.Literal(true), attachmentCleanupFailed: t.Optional(t.Boolean()) });
