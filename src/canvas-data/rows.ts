// One exported item: its fixed columns (id or key, who, when) and its value.
// JSON and NDJSON write the row as an object; CSV spreads the value's
// top-level fields over columns of their own.

export type ExportFormat = 'json' | 'ndjson' | 'csv';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['json', 'ndjson', 'csv'];

export interface DataRow {
  /** Fixed columns in their order: strings, numbers, or null. */
  fixed: Array<[string, string | number | null]>;
  /** The stored JSON text of the value, when the item has one (files have none). */
  valueJson: string | null;
  /** Where rows after this one start (a key, an id, or a file's place): the browser's `next`. */
  cursor: string;
}

/** The row as one JSON object (fixed columns, then `value` parsed from its stored text). */
export function rowJson(row: DataRow): string {
  const fields = row.fixed.map(([name, v]) => `${JSON.stringify(name)}:${JSON.stringify(v)}`);
  if (row.valueJson !== null) fields.push(`"value":${row.valueJson}`);
  return `{${fields.join(',')}}`;
}
