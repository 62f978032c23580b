// The passes are declared by the suites (test/passes.ts): a suite that starts
// the app and says nothing would silently run in the embedded pass alone.
import { describe, expect, test } from 'bun:test';
import { declaredPasses, suites, suitesOf } from './passes.ts';

describe('test passes', () => {
  const all = suites();

  test('every suite that starts the app declares its passes', () => {
    const silent = all.filter((s) => s.startsApp && !s.passes).map((s) => s.path);
    expect(silent).toEqual([]);
  });

  test('a suite that sits out a pass says why', () => {
    const unexplained = all.filter((s) => s.passes?.length === 1 && !s.reason).map((s) => s.path);
    expect(unexplained).toEqual([]);
  });

  test('every suite runs in the embedded pass', () => {
    const missing = all.filter((s) => !suitesOf('embedded', all).includes(s.path)).map((s) => s.path);
    expect(missing).toEqual([]);
  });

  test('the harness counts as started through a fixture module', () => {
    // kv.test.ts imports harness.ts directly; the AI suites reach it through ai-fixtures.ts.
    const byPath = new Map(all.map((s) => [s.path, s]));
    expect(byPath.get('test/kv.test.ts')?.startsApp).toBe(true);
    expect(byPath.get('test/ai-chat.test.ts')?.startsApp).toBe(true);
    expect(byPath.get('test/lru.test.ts')?.startsApp).toBe(false);
  });

  test('the declaration line is read exactly', () => {
    expect(declaredPasses('// passes: embedded, s3, cluster\nimport …')).toEqual(['embedded', 's3', 'cluster']);
    expect(declaredPasses('// passes: embedded — one node only\n')).toEqual(['embedded']);
    expect(declaredPasses('// no declaration\n')).toBeNull();
    expect(() => declaredPasses('// passes: embedded, postgres\n')).toThrow('unknown pass "postgres"');
  });
});
