/** Text for `LIKE ? ESCAPE '\'` that matches itself literally: `%`, `_` and the escape are escaped. */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * A lowercased `LIKE ? ESCAPE '\'` pattern for text that holds `text`
 * anywhere, compared with `lower(column)`. SQLite's lower() folds ASCII only:
 * there a search finds a non-ASCII letter only where the data has it in lower case.
 */
export function containsPattern(text: string): string {
  return `%${likeLiteral(text.toLowerCase())}%`;
}
