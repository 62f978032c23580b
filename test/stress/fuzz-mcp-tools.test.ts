// passes: embedded, cluster
// Hostile arguments to every MCP tool, sent as an agent sends them (JSON-RPC
// tools/call over POST /mcp with a personal token). The JSON body fuzzer
// rarely gets past JSON-RPC's own checks; this one always reaches the tool.
// Arguments are the tool's own fields (from tools/list) with hostile values,
// a real canvas id three times in four. Invariants: never a 5xx, never an INTERNAL
// tool failure, and a refused call changes nothing. EASEL_FUZZ_RUNS scales
// the count (default 450: 150 calls per tool); the seed is printed.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { databaseShape, hostileObject } from './hostile-json.ts';
import { StatusTally } from './tally.ts';
import { body, type TestApp } from '../harness.ts';
import { World, type WorldCanvas } from '../world.ts';

const RUNS = Math.max(1, Math.round(Number(process.env.EASEL_FUZZ_RUNS ?? 450) / 3));
const SEED = Number(process.env.EASEL_FUZZ_SEED ?? Date.now() % 2 ** 31);

/** Every tool of tools/list; a test checks that none is missing, so a new tool is fuzzed from its first day. */
const TOOLS = [
  'list_canvases',
  'create_canvas',
  'regenerate_deploy_key',
  'get_canvas',
  'get_canvas_file',
  'set_capabilities',
  'update_canvas',
  'deploy_canvas',
  'begin_deploy',
  'add_files',
  'finalize_deploy',
  'list_versions',
  'rollback_canvas',
  'export_canvas_data',
  'browse_canvas_data',
  'delete_canvas_data_item',
  'unpublish_canvas',
];

let w: World;
let app: TestApp;
let canvas: WorldCanvas;
let other: WorldCanvas;
let token: string;
let fields: Map<string, string[]>;
const outcomes = new Map<string, StatusTally>();

async function rpc(method: string, params: unknown): Promise<{ status: number; text: string }> {
  const res = await app.request('/mcp', {
    method: 'POST',
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
  });
  return { status: res.status, text: await res.text() };
}

beforeAll(async () => {
  w = await new World({ reset: 'none' }).start();
  app = w.app;
  canvas = await w.newCanvas({ files: { 'index.html': '<h1>tools</h1>' } });
  await w.capabilities({ expectedRuntimePolicy: null, runtimePolicy: { collections: { notes: { preset: 'collaborative' } } } }, canvas);
  await w.expectOk('POST', `/v1/c/${canvas.slug}/collections/notes`, 'owner', { n: 1 }, 201);
  await w.expectOk('PUT', `/v1/c/${canvas.slug}/kv/k`, 'owner', 'v');
  other = await w.newCanvas({ files: { 'index.html': '<h1>other</h1>' } });
  token = (await body(await w.request('owner', '/api/tokens', { method: 'POST', json: { name: 'agent' } }))).token;
  const listed = JSON.parse((await rpc('tools/list', {})).text).result.tools as Array<{
    name: string;
    inputSchema: { properties?: object };
  }>;
  fields = new Map(listed.map((t) => [t.name, Object.keys(t.inputSchema.properties ?? {})]));
  process.stdout.write(`fuzz seed ${SEED} (replay with EASEL_FUZZ_SEED=${SEED}), ${RUNS} calls per tool\n`);
});
afterAll(async () => {
  for (const [name, seen] of outcomes) process.stdout.write(`  ${name}: ${seen}\n`);
  await w.close();
});

/** Real values for the fields that name things, so calls get past "no such canvas" to the tool's own rules. */
const special = (): Record<string, fc.Arbitrary<unknown>> => ({
  canvasId: fc.constantFrom(canvas.id, other.id),
  kind: fc.constantFrom('kv', 'collection', 'submissions', 'files'),
  name: fc.constantFrom('notes', 'answers'),
  path: fc.constantFrom('index.html', 'missing.html', '../etc/passwd'),
  format: fc.constantFrom('json', 'ndjson', 'csv'),
  version: fc.constantFrom(1, 2, 0),
  files: fc.constant([{ path: 'index.html', content: '<h1>again</h1>', encoding: 'utf8' }]),
});

describe('hostile MCP tool arguments', () => {
  test('every tool is fuzzed', () => {
    expect([...fields.keys()].sort()).toEqual([...TOOLS].sort());
  });

  for (const tool of TOOLS) {
    test(`${tool}: no 5xx, no INTERNAL, nothing changed by a refusal`, async () => {
      const names = fields.get(tool) ?? [];
      const args = names.length ? hostileObject(names, special(), ['canvasId', 'kind', 'name', 'files']) : fc.constant({});
      await fc.assert(
        fc.asyncProperty(args, async (a) => {
          const before = await databaseShape(app, [canvas.id, other.id]);
          const { status, text } = await rpc('tools/call', { name: tool, arguments: a });
          if (status >= 500) throw new Error(`${status} for ${JSON.stringify(a)}: ${text}`);
          const answer = JSON.parse(text);
          const result = answer.result as { isError?: boolean; content: Array<{ text: string }> } | undefined;
          const seen = outcomes.get(tool) ?? new StatusTally();
          seen.add(answer.error ? -answer.error.code : result?.isError ? 400 : 200);
          outcomes.set(tool, seen);
          if (!result) {
            if (typeof answer.error?.code !== 'number') throw new Error(`neither a result nor a JSON-RPC error: ${text}`);
            return;
          }
          const first = result.content[0]?.text ?? '';
          if (result.isError) {
            if (first.startsWith('INTERNAL')) throw new Error(`INTERNAL for ${JSON.stringify(a)}: ${first}`);
            if (!/^[A-Z_]+: /.test(first)) throw new Error(`a refusal without its code: ${first}`);
            const after = await databaseShape(app, [canvas.id, other.id]);
            if (after !== before) throw new Error(`a refused ${tool} (${first}) changed the database: ${before} became ${after}`);
          }
        }),
        { numRuns: RUNS, seed: SEED },
      );
    }, 120_000);
  }
});
