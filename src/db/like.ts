/** Text for `LIKE ? ESCAPE '\'` that matches itself literally: `%`, `_` and the escape are escaped. */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * A lowercased `LIKE ? ESCAPE '\'` pattern for text that holds `text`
 * anywhere, compared with `easel_fold(column)`: toLowerCase on SQLite
 * (src/db/open.ts), ICU's lower() on Postgres (migration 030), so "équipe"
 * finds "Équipe" on both.
 */
export function containsPattern(text: string): string {
  // Composed, as stored names and paths are (a search typed on a Mac may arrive decomposed).
  return `%${likeLiteral(text.normalize('NFC').toLowerCase())}%`;
}
