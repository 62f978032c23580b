// passes: embedded, cluster
// Hostile query strings on every GET route that declares query parameters,
// read from the server's own OpenAPI document (a new route is fuzzed from its
// first day): each parameter with hostile values (numbers past every bound,
// NUL, lone surrogates, long text, repeats), sometimes beside an unknown one.
// The path fuzzer sends random names; these are the names the routes read.
// Invariants: never a 5xx, a coded answer where the answer is JSON, and a
// refusal changes nothing. EASEL_FUZZ_RUNS scales the count (default 450:
// 150 queries per route); the seed is printed.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { databaseShape, fieldValue } from './hostile-json.ts';
import { credentialsFor, isCoded, listedOperations, type ListedOperation } from './listed-routes.ts';
import { StatusTally } from './tally.ts';
import type { TestApp } from '../harness.ts';
import { ADMIN_EMAIL, World, type WorldCanvas } from '../world.ts';

const RUNS = Math.max(1, Math.round(Number(process.env.EASEL_FUZZ_RUNS ?? 450) / 3));
const SEED = Number(process.env.EASEL_FUZZ_SEED ?? Date.now() % 2 ** 31);

let w: World;
let app: TestApp;
let canvas: WorldCanvas;
let routes: ListedOperation[] = [];
const outcomes = new Map<string, StatusTally>();

beforeAll(async () => {
  w = await new World({ reset: 'none', env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_AUTHORING: 'on' } }).start();
  app = w.app;
  canvas = await w.newCanvas({ files: { 'index.html': '<h1>query</h1>' }, capabilities: { authoring: true } });
  await w.capabilities({ expectedRuntimePolicy: null, runtimePolicy: { collections: { notes: { preset: 'collaborative' } } } }, canvas);
  await w.expectOk('POST', `/v1/c/${canvas.slug}/collections/notes`, 'owner', { n: 1 }, 201);
  await w.expectOk('PUT', `/v1/c/${canvas.slug}/kv/k`, 'owner', 'v');
  routes = (await listedOperations(app)).filter((op) => op.method === 'GET' && op.queryParams.length > 0);
  process.stdout.write(`fuzz seed ${SEED} (replay with EASEL_FUZZ_SEED=${SEED}), ${RUNS} queries per route\n`);
});
afterAll(async () => {
  for (const [name, seen] of outcomes) process.stdout.write(`  ${name}: ${seen}\n`);
  await w.close();
});

/** The route's address with its path parameters filled by real values. */
function address(path: string): string {
  return path.replace('{id}', canvas.id).replace('{slug}', canvas.slug).replace('{name}', 'notes').replace('{collection}', 'answers');
}

const EDGE = [
  '',
  ' ',
  '0',
  '-1',
  '1.5',
  '1e3',
  '0x10',
  '9007199254740993',
  '9223372036854775808',
  '99999999999999999999999',
  'NaN',
  'Infinity',
  '2026-13-45',
  '2026-11-29',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '../../etc/passwd',
  '%',
  'x'.repeat(5000),
];

function paramValue(): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...EDGE) },
    { weight: 2, arbitrary: fieldValue().map((v) => (typeof v === 'string' ? v : JSON.stringify(v))) },
    { weight: 1, arbitrary: fc.integer().map(String) },
  );
}

/** Pairs of the route's own names (a name may come twice) with hostile values, sometimes an unknown name beside them. */
function query(params: string[]): fc.Arbitrary<string> {
  const known = fc.array(fc.tuple(fc.constantFrom(...params), paramValue()), { minLength: 1, maxLength: params.length + 1 });
  const unknown = fc.option(fc.tuple(fc.constantFrom('x', 'callback', '__proto__', 'limit[]'), paramValue()), { nil: undefined });
  return fc.tuple(known, unknown).map(([pairs, extra]) => new URLSearchParams(extra ? [...pairs, extra] : pairs).toString());
}

describe('hostile query strings', () => {
  test('the OpenAPI document names the routes to fuzz', () => {
    expect(routes.length).toBeGreaterThanOrEqual(20);
  });

  test('every GET route with query parameters: no 5xx, a coded answer, nothing changed by a refusal', async () => {
    for (const route of routes) {
      await fc.assert(
        fc.asyncProperty(query(route.queryParams), async (q) => {
          const before = await databaseShape(app, [canvas.id]);
          const res = await app.request(`${address(route.path)}?${q}`, {
            ...credentialsFor(w, canvas.apiKey, route.path),
            redirect: 'manual',
          });
          const text = await res.text();
          const seen = outcomes.get(route.path) ?? new StatusTally();
          seen.add(res.status);
          outcomes.set(route.path, seen);
          if (res.status >= 500) throw new Error(`${res.status} for GET ${route.path}?${q}: ${text.slice(0, 300)}`);
          if (res.status < 400) return;
          if (res.headers.get('content-type')?.includes('json') && !isCoded(text)) throw new Error(`no code in ${text}`);
          const after = await databaseShape(app, [canvas.id]);
          if (after !== before) throw new Error(`a refused GET ${route.path}?${q} (${res.status} ${text}) changed the database`);
        }),
        { numRuns: RUNS, seed: SEED },
      );
    }
  }, 300_000);
});
