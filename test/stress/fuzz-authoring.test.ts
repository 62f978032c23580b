// passes: embedded, cluster
// Hostile authoring metadata (a canvas's page publishing canvases for its
// visitor): the multipart `metadata` field of POST and PUT /authoring holds
// the method's own fields with hostile values, or text that is not JSON at
// all, beside a valid bundle. Invariants: never a 5xx (but the spec's 502
// UPDATE_PARTIAL), a coded answer, and a refusal changes nothing.
// EASEL_FUZZ_RUNS scales the count (default 450: 150 calls per method).
import { afterAll, beforeAll, describe, test } from 'bun:test';
import fc from 'fast-check';
import { zipOf } from '../deploy-fixtures.ts';
import { databaseShape, hostileObject } from './hostile-json.ts';
import { StatusTally } from './tally.ts';
import { body, type TestApp } from '../harness.ts';
import { World, type WorldCanvas } from '../world.ts';
import { CreateMetadata, UpdateMetadata } from '../../src/authoring/model.ts';

const RUNS = Math.max(1, Math.round(Number(process.env.EASEL_FUZZ_RUNS ?? 450) / 3));
const SEED = Number(process.env.EASEL_FUZZ_SEED ?? Date.now() % 2 ** 31);
const BUNDLE = zipOf({ 'index.html': '<h1>made by a page</h1>' });

let w: World;
let app: TestApp;
let studio: WorldCanvas;
/** A canvas the studio published, for PUT. */
let made: string;
const outcomes = new Map<string, StatusTally>();

beforeAll(async () => {
  w = await new World({
    reset: 'none',
    env: { EASEL_AUTHORING: 'on', EASEL_AUTHORING_USER_DAILY_MAX: '100000', EASEL_AUTHORING_USER_TOTAL_MAX: '100000' },
  }).start();
  app = w.app;
  studio = await w.newCanvas({ capabilities: { authoring: true }, files: { 'index.html': 'studio' } });
  const res = await send('POST', '', JSON.stringify({ title: 'made' }), true);
  made = (await body(res)).id;
  process.stdout.write(`fuzz seed ${SEED} (replay with EASEL_FUZZ_SEED=${SEED}), ${RUNS} calls per method\n`);
});
afterAll(async () => {
  for (const [name, seen] of outcomes) process.stdout.write(`  ${name}: ${seen}\n`);
  await w.close();
});

function send(method: string, path: string, metadata: string, withBundle: boolean): Promise<Response> {
  const form = new FormData();
  form.append('metadata', metadata);
  if (withBundle) form.append('bundle', new Blob([BUNDLE as Uint8Array<ArrayBuffer>], { type: 'application/zip' }), 'site.zip');
  return app.request(`/v1/c/${studio.slug}/authoring${path}`, { method, cookie: w.cookie.viewer, body: form });
}

/** Real values beside the hostile ones, so calls get past the schema to the rules behind it. */
const special = (): Record<string, fc.Arbitrary<unknown>> => ({
  title: fc.string({ minLength: 1, maxLength: 30 }),
  access: fc.constantFrom('private', 'specific_people', 'whole_org', 'public_link', 'password'),
  tags: fc.array(fc.string({ minLength: 1, maxLength: 10 }), { maxLength: 4 }),
  password: fc.string({ minLength: 1, maxLength: 20 }),
  expiresAt: fc.integer({ min: -86_400_000, max: 400 * 86_400_000 }).map((d) => Date.now() + d),
  metadata: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
  slug: fc.stringMatching(/^[a-z0-9-]{1,12}$/),
});

function metadataText(fields: string[], always: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: hostileObject(fields, special(), always).map((m) => JSON.stringify(m)) },
    { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 100 }), fc.constantFrom('', '{', 'null', '[]', '"x"', '{"title":')) },
  );
}

const METHODS = [
  { name: 'POST', path: () => '', fields: Object.keys(CreateMetadata.properties), always: ['title'] },
  { name: 'PUT', path: () => `/${made}`, fields: Object.keys(UpdateMetadata.properties), always: [] },
];

describe('hostile authoring metadata', () => {
  for (const method of METHODS) {
    test(`${method.name} /authoring: no 5xx, a coded answer, nothing changed by a refusal`, async () => {
      await fc.assert(
        fc.asyncProperty(metadataText(method.fields, method.always), fc.boolean(), async (metadata, withBundle) => {
          const before = await databaseShape(app, [studio.id, made]);
          const res = await send(method.name, method.path(), metadata, method.name === 'POST' || withBundle);
          const text = await res.text();
          const seen = outcomes.get(method.name) ?? new StatusTally();
          seen.add(res.status);
          outcomes.set(method.name, seen);
          const code = res.status >= 400 ? (JSON.parse(text) as { code?: unknown }).code : null;
          if (res.status >= 500 && code !== 'UPDATE_PARTIAL') throw new Error(`${res.status} for ${metadata}: ${text}`);
          if (res.status < 400) return;
          if (typeof code !== 'string') throw new Error(`no code in ${text}`);
          if (code === 'UPDATE_PARTIAL') return; // the spec's own partial answer: settings saved, the deploy failed
          const after = await databaseShape(app, [studio.id, made]);
          if (after !== before) throw new Error(`a refused ${method.name} (${res.status} ${text}) changed the database`);
        }),
        { numRuns: RUNS, seed: SEED },
      );
    }, 120_000);
  }
});
