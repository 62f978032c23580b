import { SQL } from 'bun';
import { WATCHED_TABLES } from './change-signal.ts';
import { PostgresChanges } from './postgres-changes.ts';
import { driveAsync, refuseLock, type Sql, type SqlValue, type Step, type TxBody } from './sql.ts';

/** Type OIDs Bun hands back as text that we store as JavaScript numbers (int8, numeric: counts, sums, milliseconds, bytes). */
const NUMERIC_TYPES = new Set([20, 1700]);

type Runner = Pick<SQL, 'unsafe'>;

/** A statement that writes a watched table (the change signal's own triggers see it too, once it commits). */
const WRITES_WATCHED = new RegExp(`\\b(?:INSERT\\s+INTO|UPDATE|DELETE\\s+FROM)\\s+(?:${WATCHED_TABLES.join('|')})\\b`, 'i');

interface PgResult extends Array<Record<string, unknown>> {
  columns?: { name: string; type: number }[];
  affectedRows?: number;
  count: number;
}

/**
 * The Postgres adapter, through Bun's built-in client (a pool). Transaction
 * bodies run on one connection between BEGIN and COMMIT; their `lock` steps
 * are transaction-scoped advisory locks, so read-modify-write steps on the
 * same thing wait for each other instead of losing an update.
 */
export class PostgresSql implements Sql {
  readonly engine = 'postgres' as const;
  private readonly client: SQL;
  private listener: PostgresChanges | null = null;

  constructor(
    url: string,
    private readonly options: { max?: number; onListenError?: (err: unknown) => void } = {},
  ) {
    this.client = new SQL({ url, max: options.max ?? 10, bigint: false });
  }

  /** Listens from first use: a process that caches nothing holds no listening connection. */
  get changes(): PostgresChanges {
    this.listener ??= new PostgresChanges(this.client, this.options.onListenError ?? (() => {}));
    return this.listener;
  }

  all<R>(text: string, ...params: SqlValue[]): Promise<R[]> {
    return this.committed(text, query<R>(this.client, text, params)).then((r) => r.rows);
  }

  get<R>(text: string, ...params: SqlValue[]): Promise<R | undefined> {
    return this.committed(text, query<R>(this.client, text, params)).then((r) => r.rows[0]);
  }

  run(text: string, ...params: SqlValue[]): Promise<number> {
    return this.committed(text, query(this.client, text, params)).then((r) => r.changes);
  }

  write<T>(body: TxBody<T>): Promise<T> {
    let watched = false;
    const done = this.client.begin((t) =>
      driveAsync(body, (step) => {
        if (step.kind !== 'lock' && WRITES_WATCHED.test(step.text)) watched = true;
        return answer(t, step);
      }),
    ) as Promise<T>;
    return done.then((result) => {
      if (watched) this.listener?.committedHere();
      return result;
    });
  }

  autocommit<T>(body: TxBody<T>): Promise<T> {
    return driveAsync(body, (step) => {
      refuseLock(step);
      return step.kind === 'lock' ? answer(this.client, step) : this.committed(step.text, answer(this.client, step));
    });
  }

  /** A statement run on its own has committed when it answers: a write to a watched table moves this node's signal then. */
  private committed<T>(text: string, answered: Promise<T>): Promise<T> {
    if (!WRITES_WATCHED.test(text)) return answered;
    return answered.then((result) => {
      this.listener?.committedHere();
      return result;
    });
  }

  /**
   * A transaction for what the shared SQL cannot say (migrations: several
   * statements in one text, Postgres's own functions); `$n` placeholders.
   */
  native<T>(fn: (run: (text: string, params?: SqlValue[]) => Promise<Record<string, unknown>[]>) => Promise<T>): Promise<T> {
    return this.client.begin((t) => fn((text, params) => t.unsafe(text, params))) as Promise<T>;
  }

  async close(): Promise<void> {
    await this.listener?.close();
    await this.client.close({ timeout: 5 });
  }
}

async function answer(runner: Runner, step: Step): Promise<unknown> {
  switch (step.kind) {
    case 'all':
      return (await query(runner, step.text, step.params)).rows;
    case 'get':
      return (await query(runner, step.text, step.params)).rows[0];
    case 'run':
      return (await query(runner, step.text, step.params)).changes;
    case 'lock':
      await runner.unsafe('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [JSON.stringify(step.parts)]);
      return undefined;
  }
}

async function query<R>(runner: Runner, text: string, params: readonly SqlValue[]): Promise<{ rows: R[]; changes: number }> {
  const result = (await runner.unsafe(postgresText(text), params as SqlValue[])) as unknown as PgResult;
  const numeric = (result.columns ?? []).filter((c) => NUMERIC_TYPES.has(c.type)).map((c) => c.name);
  if (numeric.length > 0) {
    for (const row of result) {
      for (const name of numeric) if (typeof row[name] === 'string') row[name] = Number(row[name]);
    }
  }
  return { rows: Array.from(result) as R[], changes: result.affectedRows ?? result.count };
}

const translated = new Map<string, string>();

/**
 * `?1` → `$1`, outside quoted text. A bare `?` is refused: the shared SQL
 * numbers its placeholders so both engines bind them the same way.
 */
export function postgresText(text: string): string {
  const cached = translated.get(text);
  if (cached !== undefined) return cached;
  let out = '';
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      out += c;
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') {
      quote = c;
      out += c;
    } else if (c === '?') {
      const digits = /^\d+/.exec(text.slice(i + 1))?.[0];
      if (!digits) throw new Error(`unnumbered placeholder in: ${text}`);
      out += `$${digits}`;
      i += digits.length;
    } else {
      out += c;
    }
  }
  if (translated.size < 2000) translated.set(text, out);
  return out;
}
