// Issue 43: the configuration reference's table is generated from the
// variables src/config.ts reads, so the page cannot drift from the schema.
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { CONFIG_PAGE, configVariables, renderTable, withTable } from '../scripts/config-table.ts';

describe('docs/configuration.md', () => {
  test('its table is what scripts/config-table.ts generates from src/config.ts (run it after changing a setting)', () => {
    const page = readFileSync(CONFIG_PAGE, 'utf8');
    expect(page).toBe(withTable(page, renderTable(configVariables())));
  });

  test('the table has one row for every variable config.ts reads', () => {
    const table = renderTable(configVariables());
    const rows = [...table.matchAll(/^\| `(EASEL_[A-Z0-9_]+)` \|/gm)].map((m) => m[1]!);
    expect(rows.sort()).toEqual(configVariables().sort());
    expect(rows.length).toBeGreaterThan(50);
  });

  test('a setting config.ts reads without words in config-docs.ts fails the generation', () => {
    expect(() => renderTable([...configVariables(), 'EASEL_NEW_THING'])).toThrow('undocumented ["EASEL_NEW_THING"]');
  });

  test('words for a setting config.ts no longer reads fail the generation', () => {
    expect(() => renderTable(configVariables().filter((v) => v !== 'EASEL_PORT'))).toThrow('no longer read ["EASEL_PORT"]');
  });
});
