// What the JSON fuzzers share: values shaped like hostile fields, and the
// database's shape that a refused request must leave as it was.
import fc from 'fast-check';
import type { TestApp } from '../harness.ts';

/**
 * Besides any JSON, what a field most often holds, and numbers at the edges where storage changes: past a Date,
 * past a double's exact integers, past a 64-bit column (2^63 as a JSON number was a 500 on Postgres).
 */
export function fieldValue(): fc.Arbitrary<unknown> {
  const edgeNumber = fc.constantFrom(8.64e15, 8.64e15 + 1, 2 ** 53, 2 ** 63, -(2 ** 63), 1e308, -1, 0.5, 2 ** 31);
  return fc.oneof(
    { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 1, arbitrary: edgeNumber },
    { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 40 }) },
    // Any code point, NUL included, and lone surrogates: SQLite keeps text that Postgres's refuses.
    { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }) },
    { weight: 1, arbitrary: fc.constantFrom('\u0000', 'a\u0000b', '\ud800', 'x\udc00y', 'a@b.c\u0000') },
    { weight: 1, arbitrary: fc.emailAddress() },
  );
}

/**
 * An object of some of `fields`, each with a hostile value. `special` gives a field real values too (drawn half the
 * time, or three times in four for a field `always` present): calls then get past "no such canvas" to the rules behind.
 */
export function hostileObject(
  fields: string[],
  special: Record<string, fc.Arbitrary<unknown>> = {},
  always: string[] = [],
): fc.Arbitrary<Record<string, unknown>> {
  const value = fieldValue();
  const valueOf = (name: string) => {
    const own = special[name];
    if (!own) return value;
    return always.includes(name) ? fc.oneof({ weight: 3, arbitrary: own }, { weight: 1, arbitrary: value }) : fc.oneof(own, value);
  };
  const entry = fc.constantFrom(...fields).chain((name) => valueOf(name).map((v) => [name, v] as const));
  const kept = always.filter((name) => fields.includes(name));
  const fixed = fc.tuple(...kept.map((name) => valueOf(name).map((v) => [name, v] as const)));
  return fc.tuple(fixed, fc.array(entry, { maxLength: fields.length })).map(([first, rest]) => Object.fromEntries([...rest, ...first]));
}

// Written on reads too (sessions' last use, rate windows, token use, the audit of reads, node heartbeats), or by the
// insights flush of earlier calls' counts on its own timer (a cluster run caught one landing mid-case): not state a refusal may change.
const MOVING = new Set([
  'sessions',
  'audit_log',
  'usage_daily',
  'canvas_host_sessions',
  'personal_tokens',
  'nodes',
  'insight_days',
  'insight_paths',
  'insight_visitors',
]);

/** Row counts of every table, and the named canvases' rows: what a refused request must not change (on either engine). */
export async function databaseShape(app: TestApp, canvasIds: string[]): Promise<string> {
  const sql = app.ctx.sql;
  const names =
    sql.engine === 'sqlite'
      ? "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
      : "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name";
  const tables = (await sql.all<{ name: string }>(names)).map((r) => r.name).filter((t) => !MOVING.has(t));
  const counts: string[] = [];
  for (const t of tables) counts.push(`${t}=${Number((await sql.get<{ n: number | bigint }>(`SELECT count(*) AS n FROM "${t}"`))!.n)}`);
  const rows = [];
  for (const id of [...canvasIds].sort()) rows.push(await sql.get('SELECT * FROM canvases WHERE id = ?1', id));
  return JSON.stringify({ counts, rows });
}
