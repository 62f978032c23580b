import { SCHEMA_VERSION, NewerSchemaError } from './migrate.ts';
import { POSTGRES_MIGRATIONS } from './postgres-migrations.ts';
import type { PostgresSql } from './postgres-sql.ts';

// Any fixed number: every node migrating the same database takes the same lock.
const MIGRATION_LOCK = 7_310_221_004;

/**
 * Applies the Postgres migrations not yet recorded, each in its own
 * transaction with its record (Postgres DDL is transactional). Each one takes
 * an advisory lock and looks again, so nodes that start together apply each
 * migration once. Returns the versions it applied.
 */
export async function migratePostgres(pg: PostgresSql): Promise<number[]> {
  await pg.native(async (run) => {
    await run('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await run('CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)');
  });
  const ran: number[] = [];
  for (const m of POSTGRES_MIGRATIONS) {
    const applied = await pg.native(async (run) => {
      await run('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      const [row] = await run(
        'SELECT coalesce(max(version), 0)::int AS v, count(*) FILTER (WHERE version = $1)::int AS here FROM schema_migrations',
        [m.version],
      );
      const newest = Number(row!.v);
      if (newest > SCHEMA_VERSION) throw new NewerSchemaError(newest, SCHEMA_VERSION);
      if (Number(row!.here) > 0) return false;
      await run(m.sql);
      await run('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [m.version, m.name, Date.now()]);
      return true;
    });
    if (applied) ran.push(m.version);
  }
  return ran;
}
