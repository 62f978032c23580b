// passes: embedded, cluster
// Every field of every JSON body the OpenAPI document lists, in turn given
// each hostile value (NUL, a lone surrogate, numbers past a Date, a double
// and a 64-bit column, empty and long text, the wrong shapes), alone in an
// otherwise empty body; and each body whole as the wrong JSON. The random
// fuzzers draw from hand-kept route lists; this table covers every declared
// body (a new route from its first day). Invariants: never a 5xx, a coded
// answer, and (the harness's ledger, at close) only codes the route declares.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { credentialsFor, isCoded, listedOperations, type ListedOperation } from './listed-routes.ts';
import { StatusTally } from './tally.ts';
import type { TestApp } from '../harness.ts';
import { ADMIN_EMAIL, World, type WorldCanvas } from '../world.ts';

const VALUES: unknown[] = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  2 ** 63,
  -(2 ** 63),
  8.64e15 + 1,
  1e308,
  -1,
  0,
  0.5,
  '',
  'x'.repeat(10_000),
  [],
  {},
  null,
  true,
  [null],
  { __proto__: null, constructor: 1 },
];
const WHOLE = ['[]', '"x"', 'null', '1e999', '{"a":'];

let w: World;
let app: TestApp;
let canvas: WorldCanvas;
let recordId: string;
let operations: ListedOperation[] = [];

beforeAll(async () => {
  w = await new World({ reset: 'none', env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL } }).start();
  app = w.app;
  canvas = await w.newCanvas({ files: { 'index.html': '<h1>fields</h1>' } });
  await w.capabilities({ expectedRuntimePolicy: null, runtimePolicy: { collections: { notes: { preset: 'collaborative' } } } }, canvas);
  recordId = (await w.expectOk('POST', `/v1/c/${canvas.slug}/collections/notes`, 'owner', 0, 201)).id;
  await w.expectOk('POST', '/api/admin/connections', 'admin', { name: 'notes', origin: 'https://crm.example.com', methods: ['GET'] }, 201);
  operations = (await listedOperations(app)).filter((op) => op.bodyFields !== null);
});
afterAll(() => w.close());

/** Real values for the path's parameters, so the body is what the route meets. */
function address(path: string): string {
  return path
    .replace('/api/admin/users/{id}', `/api/admin/users/${w.ids.viewer2}`)
    .replace('{id}/increment', `${recordId}/increment`)
    .replace(/collections\/\{name\}\/\{id\}/, `collections/notes/${recordId}`)
    .replace('{id}', canvas.id)
    .replace('{slug}', canvas.slug)
    .replace('{name}', 'notes')
    .replace('{collection}', 'answers')
    .replace('{key}', 'k')
    .replace('{uploadId}', 'x1');
}

describe('hostile JSON fields', () => {
  test('every field of every listed JSON body: no 5xx, a coded answer', async () => {
    expect(operations.length).toBeGreaterThanOrEqual(30);
    const statuses = new StatusTally();
    for (const op of operations) {
      const texts = [...op.bodyFields!.flatMap((field) => VALUES.map((value) => JSON.stringify({ [field]: value }))), ...WHOLE];
      for (const text of texts) {
        const res = await app.request(address(op.path), { method: op.method, ...credentialsFor(w, canvas.apiKey, op.path), body: text });
        statuses.add(res.status);
        const answer = await res.text();
        if (res.status >= 500)
          throw new Error(`${res.status} on ${op.method} ${op.path} with ${text.slice(0, 100)}: ${answer.slice(0, 300)}`);
        if (res.status >= 400 && res.headers.get('content-type')?.startsWith('application/json') && !isCoded(answer))
          throw new Error(`no code on ${op.method} ${op.path} with ${text.slice(0, 100)}: ${answer}`);
      }
    }
    process.stdout.write(`hostile JSON fields: ${operations.length} bodies, ${statuses}\n`);
    expect((await app.request('/healthz')).status).toBe(200);
  }, 300_000);
});
