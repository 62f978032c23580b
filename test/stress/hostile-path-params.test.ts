// passes: embedded, cluster
// Every path parameter of every route the OpenAPI document lists, in turn
// given each hostile segment (NUL, bytes that are not UTF-8, dot segments, an
// encoded slash, a long one) while the others hold real values, sent with the
// route's method. The random path fuzzer reaches an id position with a NUL
// about once in ten thousand requests; this table reaches all of them (a NUL
// canvas id was an undeclared refusal on Postgres). Invariants: never a 5xx,
// a coded answer where it is JSON, and (the harness's ledger, at close) only
// codes the route declares.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { credentialsFor, isCoded, listedOperations, type ListedOperation } from './listed-routes.ts';
import { StatusTally } from './tally.ts';
import type { TestApp } from '../harness.ts';
import { ADMIN_EMAIL, World, type WorldCanvas } from '../world.ts';

const HOSTILE = ['%00', 'a%00b', '%ff%fe', '%ed%a0%80', '..', '%2e%2e', 'a%2Fb', 'x'.repeat(600)];

let w: World;
let app: TestApp;
let canvas: WorldCanvas;
let operations: ListedOperation[] = [];

beforeAll(async () => {
  w = await new World({ reset: 'none', env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_AUTHORING: 'on' } }).start();
  app = w.app;
  canvas = await w.newCanvas({ files: { 'index.html': '<h1>params</h1>' }, capabilities: { authoring: true } });
  operations = (await listedOperations(app)).filter((op) => op.pathParams.length > 0);
});
afterAll(() => w.close());

/** A real value for each parameter, so the hostile one is what the route meets. */
const REAL: Record<string, () => string> = {
  id: () => canvas.id,
  slug: () => canvas.slug,
  name: () => 'notes',
  collection: () => 'answers',
  key: () => 'k',
  path: () => 'index.html',
};

describe('hostile path parameters', () => {
  test('every parameter of every listed route: no 5xx, a coded answer where it is JSON', async () => {
    expect(operations.length).toBeGreaterThanOrEqual(50);
    const statuses = new StatusTally();
    for (const op of operations) {
      for (const hostile of op.pathParams) {
        for (const segment of HOSTILE) {
          const address = op.pathParams.reduce(
            (path, p) => path.replace(`{${p}}`, p === hostile ? segment : (REAL[p]?.() ?? 'x1')),
            op.path,
          );
          const withBody = op.method !== 'GET' && op.method !== 'DELETE' && op.method !== 'HEAD';
          const res = await app.request(address, {
            method: op.method,
            ...credentialsFor(w, canvas.apiKey, op.path),
            body: withBody ? '{}' : undefined,
          });
          statuses.add(res.status);
          const text = await res.text();
          if (res.status >= 500) throw new Error(`${res.status} on ${op.method} ${address}: ${text.slice(0, 300)}`);
          if (res.status >= 400 && res.headers.get('content-type')?.startsWith('application/json') && !isCoded(text))
            throw new Error(`no code on ${op.method} ${address}: ${text}`);
        }
      }
    }
    process.stdout.write(`hostile path parameters: ${operations.length} operations, ${statuses}\n`);
    expect((await app.request('/healthz')).status).toBe(200);
  }, 300_000);
});
