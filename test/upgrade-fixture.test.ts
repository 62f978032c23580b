// passes: embedded — a SQLite data directory written by an earlier release
// Issue 20 item 4: a data directory written by an earlier release starts on
// this one. test/fixtures/data-schema-10 was made by the release at schema 10
// (a published canvas and a KV value); every later release must open a copy
// of it, migrate it forward, and serve what it held.
import { afterAll, expect, test } from 'bun:test';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { schemaVersionAt } from '../src/backup/format.ts';
import { SCHEMA_VERSION } from '../src/db/migrate.ts';
import { body, startTestApp } from './harness.ts';

const FIXTURE = join(import.meta.dir, 'fixtures/data-schema-10');
const work = mkdtempSync(join(tmpdir(), 'easel-upgrade-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const schemaOf = schemaVersionAt;

test('the schema-10 data directory migrates forward and serves its canvas and its KV', async () => {
  // Only a copy is ever opened: the fixture stays exactly as that release wrote it.
  const dataDir = join(work, 'data');
  cpSync(FIXTURE, dataDir, { recursive: true });
  expect(schemaOf(dataDir)).toBe(10);
  const app = await startTestApp({ dataDir });
  try {
    expect(schemaOf(dataDir)).toBe(SCHEMA_VERSION);
    const owner = await app.signIn('fixture-owner@example.com');
    const page = await app.request('/c/fixture/', { cookie: owner });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('from schema 10');
    expect(await body(await app.request('/v1/c/fixture/kv/kept', { cookie: owner }))).toEqual({ value: { written: 'by schema 10' } });
    const list = await body(await app.request('/api/canvases', { cookie: owner }));
    expect(list.canvases.map((c: { slug: string }) => c.slug)).toEqual(['fixture']);
  } finally {
    await app.close();
  }
});
