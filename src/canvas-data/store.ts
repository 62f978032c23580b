// What a canvas holds, in counts and bytes: no key, value, name or person.
// The per-viewer KV scope is summed over everyone (keys, bytes, how many
// people have any), never listed.
import type { Sql } from '../db/sql.ts';
import type { Canvas } from '../canvases/record.ts';
import { PRESETS } from '../policy/document.ts';
import { collectionPolicy } from '../policy/entries.ts';

export interface DataSummary {
  kv: { shared: { keys: number; bytes: number }; perViewer: { keys: number; bytes: number; people: number } };
  collections: Array<{ name: string; preset: string | null; records: number; bytes: number; updatedAt: number | null }>;
  submissions: Array<{ collection: string; count: number; bytes: number; updatedAt: number | null }>;
  files: { count: number; bytes: number; groups: Array<{ scope: string; group: string | null; count: number; bytes: number }> };
}

interface Sums {
  n: number;
  bytes: number | null;
}

export class CanvasDataStore {
  private readonly bytes: (column: string) => string;

  constructor(private readonly sql: Sql) {
    // Bytes of UTF-8 text on each engine (SQLite's length() counts characters).
    this.bytes = sql.engine === 'sqlite' ? (c) => `length(CAST(${c} AS BLOB))` : (c) => `octet_length(${c})`;
  }

  async summary(canvas: Canvas): Promise<DataSummary> {
    const b = this.bytes;
    const [shared, perViewer, collections, submissions, files] = await Promise.all([
      this.sql.get<Sums>(
        `SELECT COUNT(*) AS n, SUM(${b('key')} + ${b('value')}) AS bytes FROM kv WHERE canvas_id = ?1 AND scope = 'shared'`,
        canvas.id,
      ),
      this.sql.get<Sums & { people: number }>(
        `SELECT COUNT(*) AS n, SUM(${b('key')} + ${b('value')}) AS bytes, COUNT(DISTINCT owner_id) AS people FROM kv WHERE canvas_id = ?1 AND scope = 'user'`,
        canvas.id,
      ),
      this.sql.all<Sums & { name: string; updated: number | null }>(
        `SELECT collection AS name, COUNT(*) AS n, SUM(${b('value')}) AS bytes, MAX(updated_at) AS updated FROM collection_records WHERE canvas_id = ?1 GROUP BY collection ORDER BY collection`,
        canvas.id,
      ),
      this.sql.all<Sums & { name: string; updated: number | null }>(
        `SELECT collection AS name, COUNT(*) AS n, SUM(${b('value')}) AS bytes, MAX(updated_at) AS updated FROM submissions WHERE canvas_id = ?1 GROUP BY collection ORDER BY collection`,
        canvas.id,
      ),
      this.sql.all<Sums & { scope: string; grp: string | null }>(
        'SELECT scope, file_group AS grp, COUNT(*) AS n, SUM(size) AS bytes FROM files WHERE canvas_id = ?1 GROUP BY scope, file_group ORDER BY scope, file_group',
        canvas.id,
      ),
    ]);
    return {
      kv: {
        shared: { keys: Number(shared?.n ?? 0), bytes: Number(shared?.bytes ?? 0) },
        perViewer: { keys: Number(perViewer?.n ?? 0), bytes: Number(perViewer?.bytes ?? 0), people: Number(perViewer?.people ?? 0) },
      },
      collections: withConfigured(canvas, collections).map((c) => ({
        name: c.name,
        preset: collectionPolicy(canvas.runtimePolicy, c.name)?.preset ?? null,
        records: Number(c.n),
        bytes: Number(c.bytes ?? 0),
        updatedAt: c.updated === null ? null : Number(c.updated),
      })),
      submissions: submissions.map((s) => ({
        collection: s.name,
        count: Number(s.n),
        bytes: Number(s.bytes ?? 0),
        updatedAt: s.updated === null ? null : Number(s.updated),
      })),
      files: {
        count: files.reduce((n, f) => n + Number(f.n), 0),
        bytes: files.reduce((n, f) => n + Number(f.bytes ?? 0), 0),
        groups: files.map((f) => ({ scope: f.scope, group: f.grp, count: Number(f.n), bytes: Number(f.bytes ?? 0) })),
      },
    };
  }
}

/** The collections holding records, and the configured ones that hold none yet. */
function withConfigured<T extends { name: string; n: number; bytes: number | null; updated: number | null }>(canvas: Canvas, held: T[]) {
  const configured = configuredCollections(canvas.runtimePolicy);
  const names = new Set(held.map((c) => c.name));
  const empty = configured.filter((name) => !names.has(name)).map((name) => ({ name, n: 0, bytes: 0, updated: null }));
  return [...held, ...empty].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function configuredCollections(policy: unknown): string[] {
  if (typeof policy !== 'object' || policy === null) return [];
  const map = (policy as { collections?: unknown }).collections;
  if (typeof map !== 'object' || map === null) return [];
  return Object.keys(map).filter((name) =>
    (PRESETS as readonly string[]).includes((map as Record<string, { preset?: string }>)[name]?.preset ?? ''),
  );
}
