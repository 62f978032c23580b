/**
 * Whether `err` is the database refusing a second row with the same
 * `table`.`column`: SQLite names the column ("UNIQUE constraint failed:
 * canvases.slug"), Postgres the index, named `<table>_<column>` in our
 * migrations, with SQLSTATE 23505.
 */
export function isUniqueViolation(err: unknown, table: string, column: string): boolean {
  if (!(err instanceof Error)) return false;
  if (err.message.includes(`UNIQUE constraint failed: ${table}.${column}`)) return true;
  const state = (err as { errno?: unknown; code?: unknown }).errno ?? (err as { code?: unknown }).code;
  return state === '23505' && err.message.includes(`"${table}_${column}"`);
}
