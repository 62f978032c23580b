// CSV per RFC 4180: fields separated by commas, records by CRLF, a field
// quoted when it holds a comma, a quote, CR or LF (quotes doubled inside).
// A cell a spreadsheet would run as a formula (starting with =, +, -, @, or a
// tab or CR before one) is prefixed with ' so it is shown, not evaluated:
// canvas visitors write these values, the owner opens the file.

const NEEDS_QUOTES = /[",\r\n]/;
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(text: string): string {
  const safe = FORMULA_START.test(text) ? `'${text}` : text;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function csvRow(cells: readonly string[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}
