// passes: embedded — its own data directories of an earlier release, and a Postgres it starts
// `easel migrate` (issue 21 item 4, the part that stands alone): a data
// directory of an earlier release is brought to this schema and the command
// exits; a second run has nothing to do; a running server's directory is
// refused and left as it was.
import { afterAll, expect, test } from 'bun:test';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { schemaVersionAt } from '../src/backup/format.ts';
import { SCHEMA_VERSION } from '../src/db/migrate.ts';
import { MIGRATIONS } from '../src/db/migrations/index.ts';
import { runToExit, startEasel, stopEasel } from './spawn.ts';
import { createTestDatabase } from './support/postgres-server.ts';

const work = mkdtempSync(join(tmpdir(), 'easel-migrate-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const schemaOf = schemaVersionAt;

test('the schema-10 fixture is migrated and the command exits; again, nothing to apply', async () => {
  const dataDir = join(work, 'old');
  cpSync(join(import.meta.dir, 'fixtures/data-schema-10'), dataDir, { recursive: true });
  const first = await runToExit({ args: ['migrate', '--data-dir', dataDir] });
  expect(first).toEqual({
    code: 0,
    stdout: `${dataDir}: migrated from schema 10 to ${SCHEMA_VERSION} (${SCHEMA_VERSION - 10} applied)\n`,
    stderr: '',
  });
  expect(schemaOf(dataDir)).toBe(SCHEMA_VERSION);
  const again = await runToExit({ args: ['migrate', '--json'], env: { EASEL_DATA_DIR: dataDir } });
  expect(again.code).toBe(0);
  expect(JSON.parse(again.stdout)).toEqual({ dataDir, from: SCHEMA_VERSION, to: SCHEMA_VERSION, applied: 0 });
});

test('a directory a server runs on is refused, exit 1; stray arguments are a usage error, exit 2', async () => {
  const dataDir = join(work, 'busy');
  const easel = await startEasel({ env: { EASEL_DATA_DIR: dataDir } });
  try {
    const refused = await runToExit({ args: ['migrate', '--data-dir', dataDir] });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('stop it first');
    expect(refused.stdout).toBe('');
  } finally {
    await stopEasel(easel);
  }
  const usage = await runToExit({ args: ['migrate', 'now'] });
  expect(usage.code).toBe(2);
  expect(usage.stderr).toContain('Usage: easel migrate');
  // A directory with no database (a typo, EASEL_DATA_DIR unset in this shell) is named, not given a new empty one.
  const typo = join(work, 'no-such-instance');
  const missing = await runToExit({ args: ['migrate', '--data-dir', typo] });
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain(`${typo} holds no Easel database (easel.db): check EASEL_DATA_DIR or --data-dir`);
  expect(existsSync(typo)).toBe(false);
});

test('with EASEL_DATABASE_URL the Postgres database is migrated (each migration once); an unreachable one is named without its password', async () => {
  const url = await createTestDatabase();
  const first = await runToExit({ args: ['migrate'], env: { EASEL_DATABASE_URL: url } });
  const shown = `postgres://${new URL(url).host}${new URL(url).pathname}`;
  expect(first).toEqual({ code: 0, stdout: `${shown}: migrated to schema ${SCHEMA_VERSION} (${MIGRATIONS.length} applied)\n`, stderr: '' });
  const again = await runToExit({ args: ['migrate', '--json'], env: { EASEL_DATABASE_URL: url } });
  expect(JSON.parse(again.stdout)).toEqual({ database: shown, to: SCHEMA_VERSION, applied: 0 });
  const closed = await runToExit({ args: ['migrate'], env: { EASEL_DATABASE_URL: 'postgres://easel:hunter2@127.0.0.1:1/none' } });
  expect(closed.code).toBe(1);
  expect(closed.stderr).toContain('cannot use the database postgres://127.0.0.1:1/none');
  expect(closed.stderr).not.toContain('hunter2');
});
