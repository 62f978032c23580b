// The dashboard's data browser: a page of what an export would give (the
// same rows, the same read rules, people named the same way), after a
// cursor, optionally only the rows holding a text. The answer is
// `{items, next}`: `next` is the cursor of the page after, null at the end.
// Keyset cursors (a key, an id, a file's place) keep pages free of
// duplicates and gaps while records are added.
import { t } from 'elysia';
import { AppError } from '../errors.ts';
import { checkStrict } from '../http/json-body.ts';
import { rowJson, type DataRow } from './rows.ts';
import type { ExportKind, PreparedExport, RowsFrom } from './service.ts';

export type BrowseKind = Exclude<ExportKind, 'files.zip'>;

export const BROWSE_LIMITS = { defaultPage: 50, maxPage: 200, queryChars: 200, cursorChars: 1024 } as const;

export const BrowseQuery = t.Object(
  {
    limit: t.Optional(t.String({ pattern: '^[0-9]{1,4}$' })),
    after: t.Optional(t.String({ maxLength: BROWSE_LIMITS.cursorChars })),
    q: t.Optional(t.String({ maxLength: BROWSE_LIMITS.queryChars })),
  },
  { additionalProperties: false },
);

export interface BrowsePage {
  limit: number;
  after: string;
  contains: string | null;
}

/** The query string's page, strictly: unknown or malformed parameters are 400 INVALID_BODY naming them. */
export function browsePageOf(query: Record<string, string>): BrowsePage {
  checkStrict(BrowseQuery, query);
  const limit = query.limit === undefined ? BROWSE_LIMITS.defaultPage : Number(query.limit);
  if (limit < 1 || limit > BROWSE_LIMITS.maxPage)
    throw new AppError('INVALID_BODY', `limit: a whole number from 1 to ${BROWSE_LIMITS.maxPage}`);
  return { limit, after: query.after ?? '', contains: query.q ? query.q : null };
}

/**
 * One page as the JSON text `{"items":[…],"next":…}`; `prepare` gives the rows
 * from where the page starts, `deletable` whether the caller may delete a row
 * (each item carries it, so the dashboard offers Delete only where it works).
 */
export async function browsePage(
  page: BrowsePage,
  prepare: (from: RowsFrom) => Promise<PreparedExport>,
  deletable: (row: DataRow) => boolean,
): Promise<string> {
  // One more than the page: when it comes, there is a next page.
  const prepared = await prepare({ after: page.after, contains: page.contains, batch: page.limit + 1 });
  const items: string[] = [];
  let last = '';
  let next: string | null = null;
  for await (const row of prepared.rows()) {
    if (items.length === page.limit) {
      next = last;
      break;
    }
    // rowJson is an object's text: `deletable` goes first, before its fields.
    items.push(`{"deletable":${deletable(row)},${rowJson(row).slice(1)}`);
    last = row.cursor;
  }
  return `{"items":[${items.join(',')}],"next":${JSON.stringify(next)}}`;
}
