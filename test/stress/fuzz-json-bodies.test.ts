// passes: embedded, cluster
// Hostile JSON bodies against the routes that read them (issue 19 item 1, a
// first part): random JSON and structure-aware mutations of each route's own
// fields. Invariants: never a 5xx, always a JSON answer that carries a code
// (or the Deploy API's {error}), and a refused request changes nothing (row
// counts of every table and the canvas row stay as they were). Runs
// EASEL_FUZZ_RUNS inputs per route (default 450: ~6,800 per CI run, of the
// ~10,000 hostile inputs the stress suites send together);
// `EASEL_FUZZ_RUNS=5000 bun test test/stress` goes further. The seed is
// printed so a failure can be replayed with EASEL_FUZZ_SEED.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { databaseShape, fieldValue, hostileObject } from './hostile-json.ts';
import { StatusTally } from './tally.ts';
import { body, type TestApp } from '../harness.ts';
import { ADMIN_EMAIL, World, type WorldCanvas } from '../world.ts';

const RUNS = Number(process.env.EASEL_FUZZ_RUNS ?? 450);
const SEED = Number(process.env.EASEL_FUZZ_SEED ?? Date.now() % 2 ** 31);

let w: World;
let app: TestApp;
/** The runtime and Deploy API targets' canvas. */
let canvas: WorldCanvas;
/** The management targets' canvas: an accepted change (a slug, a password) must not move the others' ground. */
let managed: WorldCanvas;
/** Admin actions that would change the managed canvas's ground (disable, transfer) land here. */
let spare: WorldCanvas;
/** Listed and offered as a template: what "use template" copies. */
let template: WorldCanvas;
let token: string;
/** A numeric record of the runtime canvas's `notes` collection, for the increment target. */
let recordId: string;
let inputs = 0;
/** Answers by status per route, printed at the end: a fuzz run that only ever met one refusal tests little. */
const statuses = new Map<string, StatusTally>();

beforeAll(async () => {
  w = await new World({ reset: 'none', env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL } }).start();
  app = w.app;
  canvas = await w.newCanvas({ files: { 'index.html': '<h1>fuzz</h1>' }, capabilities: { authoring: false } });
  await w.capabilities({ expectedRuntimePolicy: null, runtimePolicy: { collections: { notes: { preset: 'collaborative' } } } }, canvas);
  managed = await w.newCanvas({ files: { 'index.html': '<h1>managed</h1>' } });
  spare = await w.newCanvas({ files: { 'index.html': '<h1>spare</h1>' } });
  template = await w.newCanvas({ files: { 'index.html': '<h1>template</h1>' } });
  token = (await body(await app.request('/api/tokens', { method: 'POST', cookie: w.cookie.owner, json: { name: 'fuzz' } }))).token;
  recordId = (await w.expectOk('POST', `/v1/c/${canvas.slug}/collections/notes`, 'owner', 0, 201)).id;
  await w.expectOk(
    'POST',
    '/api/admin/connections',
    'admin',
    { name: 'fuzzcon', origin: 'https://crm.example.com', methods: ['GET'] },
    201,
  );
  await w.expectOk('PUT', `/api/canvases/${template.id}/gallery`, 'owner', { listed: true, templatable: true });
  process.stdout.write(`fuzz seed ${SEED} (replay with EASEL_FUZZ_SEED=${SEED}), ${RUNS} inputs per route\n`);
});
afterAll(async () => {
  process.stdout.write(`fuzz: ${inputs} hostile bodies sent, no 5xx, every refusal left the database as it was\n`);
  for (const [name, seen] of statuses)
    process.stdout.write(`  ${name}: ${seen}
`);
  await w.close();
});

/** What a refused request must not change: every table's rows and the two canvases' own. */
const snapshot = () => databaseShape(app, [canvas.id, managed.id]);

/** A JSON text: random values, or the route's own fields with random values, or not JSON at all. */
function bodies(fields: string[]): fc.Arbitrary<string> {
  const value = fieldValue();
  const structured = hostileObject(fields).map((obj) => JSON.stringify(obj));
  const broken = fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.constantFrom('', '{', '[', 'null', '{"a":', '\u0000', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}', '1e999', '-0'),
    fc.string({ unit: 'binary', maxLength: 100 }),
  );
  return fc.oneof(
    { weight: 3, arbitrary: structured },
    { weight: 2, arbitrary: value.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: broken },
  );
}

interface Target {
  name: string;
  method: string;
  path: () => string;
  fields: string[];
  who: () => Record<string, string>;
  /** MCP answers refusals in JSON-RPC's own shape: `{jsonrpc, error: {code: number, message}}`. */
  jsonRpc?: boolean;
}

const asOwner = () => ({ cookie: w.cookie.owner });
const asAdmin = () => ({ cookie: w.cookie.admin });
const withKey = () => ({ authorization: `Bearer ${canvas.apiKey}` });

const TARGETS: Target[] = [
  {
    name: 'PATCH canvas',
    method: 'PATCH',
    path: () => `/api/canvases/${managed.id}`,
    fields: ['title', 'slug', 'accessMode', 'password', 'expiresAt', 'serviceWorkers'],
    who: asOwner,
  },
  {
    name: 'PATCH capabilities',
    method: 'PATCH',
    path: () => `/api/canvases/${managed.id}/capabilities`,
    fields: ['backend', 'kv', 'files', 'ai', 'aiAudience', 'guestAiMonthlyUsd', 'expectedRuntimePolicy', 'runtimePolicy'],
    who: asOwner,
  },
  { name: 'PUT member', method: 'PUT', path: () => `/api/canvases/${managed.id}/members`, fields: ['email', 'role'], who: asOwner },
  {
    name: 'POST guest invite',
    method: 'POST',
    path: () => `/api/canvases/${managed.id}/guest-invites`,
    fields: ['name', 'expiresInDays'],
    who: asOwner,
  },
  {
    name: 'PUT gallery',
    method: 'PUT',
    path: () => `/api/canvases/${managed.id}/gallery`,
    fields: ['listed', 'templatable'],
    who: asOwner,
  },
  { name: 'POST token', method: 'POST', path: () => '/api/tokens', fields: ['name', 'expiresAt'], who: asOwner },
  {
    name: 'PATCH admin settings',
    method: 'PATCH',
    path: () => '/api/admin/settings',
    fields: ['aiModels', 'aiPrices', 'aiUserDailyUsd', 'publicLinks', 'filesBytesFile', 'userCanvases'],
    who: asAdmin,
  },
  {
    name: 'PATCH admin user',
    method: 'PATCH',
    path: () => `/api/admin/users/${w.ids.viewer2}`,
    fields: ['active', 'canPublishPublic', 'orgId'],
    who: asAdmin,
  },
  { name: 'POST draft revert', method: 'POST', path: () => `/api/canvases/${managed.id}/draft/revert`, fields: ['path'], who: asOwner },
  {
    name: 'POST draft publish',
    method: 'POST',
    path: () => `/api/canvases/${managed.id}/draft/publish`,
    fields: ['expectedPublicationToken'],
    who: asOwner,
  },
  { name: 'POST Deploy API rollback', method: 'POST', path: () => `/v1/canvases/${canvas.id}/rollback`, fields: ['version'], who: withKey },
  {
    name: 'POST staged begin',
    method: 'POST',
    path: () => `/v1/canvases/${canvas.id}/uploads`,
    fields: ['manifest', 'releaseId', 'expectedPublicationToken'],
    who: withKey,
  },
  { name: 'POST KV increment', method: 'POST', path: () => `/v1/c/${canvas.slug}/kv/counter/increment`, fields: ['by'], who: asOwner },
  {
    name: 'POST collection record',
    method: 'POST',
    path: () => `/v1/c/${canvas.slug}/collections/notes`,
    fields: ['title', 'n', 'tags'],
    who: asOwner,
  },
  { name: 'POST canvas', method: 'POST', path: () => '/api/canvases', fields: ['title', 'slug'], who: asOwner },
  { name: 'PUT owner', method: 'PUT', path: () => `/api/canvases/${spare.id}/owner`, fields: ['email'], who: asOwner },
  { name: 'POST admin disable', method: 'POST', path: () => `/api/admin/canvases/${spare.id}/disable`, fields: ['reason'], who: asAdmin },
  {
    name: 'POST admin Connection',
    method: 'POST',
    path: () => '/api/admin/connections',
    fields: ['name', 'origin', 'methods', 'protectedHeaders', 'enabled'],
    who: asAdmin,
  },
  {
    name: 'PATCH admin Connection',
    method: 'PATCH',
    path: () => '/api/admin/connections/fuzzcon',
    fields: ['origin', 'methods', 'protectedHeaders', 'enabled'],
    who: asAdmin,
  },
  {
    name: 'PUT notification preferences',
    method: 'PUT',
    path: () => '/api/me/notifications',
    fields: ['shared_with_me', 'ai_cap', 'submissions'],
    who: asOwner,
  },
  { name: 'POST use template', method: 'POST', path: () => `/api/gallery/${template.id}/use`, fields: ['title'], who: asOwner },
  { name: 'PUT KV value', method: 'PUT', path: () => `/v1/c/${canvas.slug}/kv/fuzzed`, fields: ['a', 'b'], who: asOwner },
  {
    name: 'PUT submission',
    method: 'PUT',
    path: () => `/v1/c/${canvas.slug}/submissions/answers/mine`,
    fields: ['answer', 'score'],
    who: asOwner,
  },
  {
    name: 'POST collection increment',
    method: 'POST',
    path: () => `/v1/c/${canvas.slug}/collections/notes/${recordId}/increment`,
    fields: ['by'],
    who: asOwner,
  },
  { name: 'POST CLI token exchange', method: 'POST', path: () => '/auth/cli/token', fields: ['code', 'verifier'], who: () => ({}) },
  { name: 'POST dev sign-in', method: 'POST', path: () => '/auth/dev/login', fields: ['email', 'name'], who: () => ({}) },
  {
    name: 'POST MCP',
    method: 'POST',
    path: () => '/mcp',
    fields: ['jsonrpc', 'id', 'method', 'params'],
    who: () => ({ authorization: `Bearer ${token}` }),
    jsonRpc: true,
  },
];

describe('hostile JSON bodies', () => {
  for (const target of TARGETS) {
    test(`${target.name}: no 5xx, a coded answer, nothing changed by a refusal`, async () => {
      await fc.assert(
        fc.asyncProperty(bodies(target.fields), async (raw) => {
          inputs++;
          const before = await snapshot();
          const { cookie, ...headers } = target.who();
          const res = await app.request(target.path(), {
            method: target.method,
            cookie,
            body: raw,
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
          });
          const text = await res.text();
          const seen = statuses.get(target.name) ?? new StatusTally();
          seen.add(res.status);
          statuses.set(target.name, seen);
          if (res.status >= 500) throw new Error(`${res.status} for ${JSON.stringify(raw)}: ${text}`);
          if (res.status >= 400) {
            const parsed = JSON.parse(text);
            const coded = target.jsonRpc
              ? parsed.jsonrpc === '2.0' && typeof parsed.error?.code === 'number'
              : typeof parsed.code === 'string' || typeof parsed.error === 'string';
            if (!coded) throw new Error(`no code in ${text}`);
            const after = await snapshot();
            if (after !== before) throw new Error(`a refused ${target.name} (${res.status} ${text}) changed the database`);
          }
        }),
        { numRuns: RUNS, seed: SEED },
      );
    }, 120_000);
  }

  test('the canvas still answers after all of it', async () => {
    const res = await app.request(`/v1/canvases/${canvas.id}`, { headers: withKey() });
    expect(res.status === 200 || res.status === 401).toBe(true);
    expect((await body(await app.request('/healthz'))).ok).toBe(true);
  });
});
