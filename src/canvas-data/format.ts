// Streams exported rows as JSON (one array), NDJSON (a line per row) or CSV
// (a header row, then a record per row). CSV reads the rows twice: once for
// the columns (the top-level fields of every value seen), once to write, so
// memory holds the column names, never the rows.
import { csvRow } from './csv.ts';
import { rowJson, type DataRow, type ExportFormat } from './rows.ts';

/** Past this many value columns, the remaining fields of a value go into one column as JSON. */
export const MAX_VALUE_COLUMNS = 200;
const OTHER_COLUMN = 'other fields';
/** A value that is not an object (a number, a string, an array) fills this column. */
const PLAIN_COLUMN = 'value';
const FLUSH_BYTES = 64 * 1024;
const UTF8_BOM = '\ufeff';

export type RowSource = () => AsyncIterable<DataRow>;

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  json: 'application/json; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
  csv: 'text/csv; charset=utf-8; header=present',
};

/** `fixedNames`: the names of the rows' fixed columns, in order (the CSV header has them even with no rows). */
export function exportStream(format: ExportFormat, fixedNames: readonly string[], source: RowSource): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let chunks: AsyncIterator<string> | null = null;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        chunks ??= batched(format === 'csv' ? csvText(fixedNames, source) : jsonText(format, source))[Symbol.asyncIterator]();
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      },
      async cancel() {
        await chunks?.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}

async function* batched(pieces: AsyncIterable<string>): AsyncIterable<string> {
  let buffer = '';
  for await (const piece of pieces) {
    buffer += piece;
    if (buffer.length >= FLUSH_BYTES) {
      yield buffer;
      buffer = '';
    }
  }
  if (buffer !== '') yield buffer;
}

async function* jsonText(format: 'json' | 'ndjson', source: RowSource): AsyncIterable<string> {
  let first = true;
  if (format === 'json') yield '[';
  for await (const row of source()) {
    if (format === 'json') yield (first ? '\n' : ',\n') + rowJson(row);
    else yield `${rowJson(row)}\n`;
    first = false;
  }
  if (format === 'json') yield first ? ']\n' : '\n]\n';
}

async function* csvText(fixedNames: readonly string[], source: RowSource): AsyncIterable<string> {
  const { valueColumns, plain, other } = await columnsOf(source);
  const header = [...fixedNames, ...valueColumns, ...(plain ? [PLAIN_COLUMN] : []), ...(other ? [OTHER_COLUMN] : [])];
  // A byte order mark first: Excel reads a CSV without one in the system's code page, so "Café"
  // opened from the dashboard's CSV link showed as "CafÃ©". UTF-8 decoders (fetch's text(),
  // Python's utf-8-sig, LibreOffice, Sheets) drop it.
  yield UTF8_BOM + csvRow(header);
  const columnSet = new Set(valueColumns);
  for await (const row of source()) {
    const cells = row.fixed.map(([, v]) => (v === null ? '' : String(v)));
    const value = row.valueJson === null ? undefined : (JSON.parse(row.valueJson) as unknown);
    const fields = isRecord(value) ? value : null;
    for (const column of valueColumns) cells.push(fields ? cellOf(fields[column]) : '');
    if (plain) cells.push(fields || value === undefined ? '' : cellOf(value));
    if (other) {
      const rest = fields ? Object.entries(fields).filter(([k]) => !columnSet.has(k)) : [];
      cells.push(rest.length === 0 ? '' : JSON.stringify(Object.fromEntries(rest)));
    }
    yield csvRow(cells);
  }
}

async function columnsOf(source: RowSource) {
  const valueColumns: string[] = [];
  const seen = new Set<string>();
  let plain = false;
  let other = false;
  for await (const row of source()) {
    if (row.valueJson === null) continue;
    const value = JSON.parse(row.valueJson) as unknown;
    if (!isRecord(value)) {
      if (value !== null) plain = true;
      continue;
    }
    for (const key of Object.keys(value)) {
      if (seen.has(key)) continue;
      if (valueColumns.length >= MAX_VALUE_COLUMNS) {
        other = true;
        continue;
      }
      seen.add(key);
      valueColumns.push(key);
    }
  }
  return { valueColumns, plain, other };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Text as itself, numbers and booleans as written, nested values as JSON text, null and missing as empty. */
function cellOf(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}
