/**
 * Whether `err` is Postgres refusing text it cannot hold: a NUL character
 * (U+0000), which SQLite stores and Postgres's text type never does
 * (SQLSTATE 22021, "invalid byte sequence for encoding"; 22P05,
 * "untranslatable character"). Such input is the caller's, never a fault of
 * the server.
 */
export function isUnstorableText(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const state = (err as { errno?: unknown }).errno ?? (err as { code?: unknown }).code;
  return state === '22021' || state === '22P05';
}

/**
 * Whether a lookup by `text` can match nothing stored: no stored text holds a
 * NUL (Postgres cannot, and the schema check refuses one on SQLite too), and
 * Postgres refuses to even compare one, so such a search or lookup answers
 * empty on both engines without asking the database. A path parameter that
 * is not UTF-8 arrives as null (Elysia's decoding), whatever its type says:
 * it names nothing either. An absent filter (undefined) narrows nothing.
 */
export function findsNothing(...texts: Array<string | null | undefined>): boolean {
  return texts.some((t) => t === null || (t !== undefined && t.includes('\0')));
}

/** What the caller is told when the database refused such text (a field the schema leaves free, a path). */
export const UNSTORABLE_TEXT = 'text with a NUL character (U+0000) cannot be stored';
