/** Text for `LIKE ? ESCAPE '\'` that matches itself literally: `%`, `_` and the escape are escaped. */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * A lowercased `LIKE ? ESCAPE '\'` pattern for text that holds `text`
 * anywhere, compared with `lower(column)`: on SQLite that lower() is
 * JavaScript's toLowerCase (src/db/open.ts), on Postgres its own, so "équipe"
 * finds "Équipe" on both.
 */
export function containsPattern(text: string): string {
  return `%${likeLiteral(text.toLowerCase())}%`;
}
