// passes: embedded — tools/list and argument checks do not touch storage
// One declaration per fact (issue 37): each MCP tool's input schema is built
// from the TypeBox model its HTTP route validates with, and a bad argument is
// refused with the HTTP route's code and message.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TObject } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { BrowseQuery } from '../src/canvas-data/browse.ts';
import { ExportQuery } from '../src/canvas-data/model.ts';
import { CapabilitiesBody, CreateCanvasBody, PatchCanvasBody } from '../src/canvases/model.ts';
import { BeginUploadBody, FinalizeBody, RollbackBody } from '../src/deploy/model.ts';
import { body, startTestApp, type TestApp } from './harness.ts';
import { World } from './world.ts';

let app: TestApp;
let w: World;
let client: Client;
let schemas: Map<string, any>;

beforeAll(async () => {
  app = await startTestApp({ listen: true, env: { EASEL_RATELIMIT_ENABLED: 'false' } });
  w = await new World().attach(app);
  const token = (await body(await w.request('owner', '/api/tokens', { method: 'POST', json: { name: 'agent' } }))).token as string;
  client = new Client({ name: 'easel-test', version: '1' });
  const requestInit = { headers: { authorization: `Bearer ${token}` } };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${app.base}/mcp`), { requestInit }));
  schemas = new Map((await client.listTools()).tools.map((t) => [t.name, t.inputSchema]));
});
afterAll(async () => {
  await client.close().catch(() => {});
  await app.close();
});

/** A schema as JSON, without the words (the tools describe fields for agents; the bounds and types must match). */
function shape(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema, (key, value) => (key === 'description' || key === '$id' ? undefined : value)));
}

/** Each tool and the HTTP body or query model its route validates with; `except` names fields the tool carries differently. */
const SHARED: Array<{ tool: string; model: TObject; except?: string[] }> = [
  { tool: 'create_canvas', model: CreateCanvasBody },
  { tool: 'update_canvas', model: PatchCanvasBody },
  { tool: 'set_capabilities', model: CapabilitiesBody },
  { tool: 'rollback_canvas', model: RollbackBody },
  { tool: 'begin_deploy', model: BeginUploadBody },
  { tool: 'finalize_deploy', model: FinalizeBody },
  { tool: 'deploy_canvas', model: FinalizeBody },
  { tool: 'export_canvas_data', model: ExportQuery },
  // limit is a number for an agent and digits in a query string.
  { tool: 'browse_canvas_data', model: BrowseQuery, except: ['limit'] },
];

describe('MCP input schemas come from the HTTP models', () => {
  test.each(SHARED.map((s) => [s.tool, s] as const))(
    '%s: every field of its route body, the same schema',
    (_, { tool, model, except = [] }) => {
      const input = schemas.get(tool);
      expect(input).toBeDefined();
      expect(input.additionalProperties).toBe(false);
      for (const [field, schema] of Object.entries(model.properties)) {
        if (except.includes(field)) continue;
        expect({ field, schema: shape(input.properties[field]) }).toEqual({ field, schema: shape(schema) });
        expect(input.required?.includes(field) ?? false).toBe(model.required?.includes(field) ?? false);
        expect(typeof input.properties[field].description).toBe('string');
      }
    },
  );

  test('every field of every tool is described for agents', () => {
    for (const [tool, input] of schemas)
      for (const [field, schema] of Object.entries(input.properties ?? {}))
        expect({
          tool,
          field,
          described: typeof (schema as any).description === 'string' && (schema as any).description.length > 0,
        }).toEqual({
          tool,
          field,
          described: true,
        });
  });

  test('a title is at most 200 characters in both', () => {
    expect(schemas.get('create_canvas').properties.title.maxLength).toBe(200);
    expect(schemas.get('update_canvas').properties.title.maxLength).toBe(200);
    expect(CreateCanvasBody.properties.title.maxLength).toBe(200);
  });

  test("a refused argument answers the HTTP route's code and message", async () => {
    const refusal = async (name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ text: string }> };
      expect(result.isError).toBe(true);
      return result.content[0]!.text;
    };
    const http = async (json: unknown) => {
      const res = await w.request('owner', '/api/canvases', { method: 'POST', json });
      expect(res.status).toBe(400);
      const err = (await res.json()) as { code: string; message: string };
      return `${err.code}: ${err.message}`;
    };
    for (const args of [{ title: 'x'.repeat(201) }, { title: 'ok', colour: 'red' }, { title: 5 }, {}]) {
      expect(await refusal('create_canvas', args)).toBe(await http(args));
    }
    // The staged-upload routes answer their own codes for a bad manifest and a bad finalize body.
    expect(await refusal('begin_deploy', { canvasId: w.canvas.id, manifest: 'no' })).toStartWith('INVALID_MANIFEST: ');
    expect(await refusal('finalize_deploy', { canvasId: w.canvas.id, uploadId: 'u', preview: 'yes' })).toStartWith('INVALID_REQUEST: ');
    expect(await refusal('no_such_tool', {})).toStartWith('NOT_FOUND: ');
  });
});
