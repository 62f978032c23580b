/** Text for `LIKE ? ESCAPE '\'` that matches itself literally: `%`, `_` and the escape are escaped. */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
