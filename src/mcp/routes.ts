import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { TObject } from '@sinclair/typebox';
import type { Actor } from '../canvases/authority.ts';
import { CANVAS_KEY_PREFIX } from '../canvases/keys.ts';
import { AppError } from '../errors.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { principalOf } from '../auth/guards.ts';
import { declaredRoutes, doorRoute } from '../http/declared-route.ts';
import { checkStrict } from '../http/json-body.ts';
import { managementActor } from '../canvases/guard.ts';
import type { Tool, ToolDeps } from './tools.ts';
import { checkedInput, easelTools } from './tools.ts';

/** deploy_canvas carries whole sites as JSON (base64 grows them by a third). */
const MCP_BODY_MAX = 64 * 1024 * 1024;

/**
 * POST /mcp: MCP over Streamable HTTP, stateless, JSON answers (CONTRACT §8).
 * A personal access token or a session (401 without either), then the
 * management door (a session only from the dashboard's origin), then a fresh server for this request whose tools act as that
 * user. GET and DELETE (server-sent streams, sessions) are not offered: 405.
 */
export function mcpRoutes(auth: AuthKinds, deps: ToolDeps) {
  const tools = easelTools(deps);
  const version = deps.ctx.version;
  // The door is the management door, checked here: no credential at all is 401 before the cross-site rule (403 to a script).
  const mcpRoute = doorRoute<unknown>('session');
  const declared = { tag: 'Agents', ownDoor: true } as const;
  const jsonRpc = (description: string) => ({ contentType: 'application/json', description });
  return declaredRoutes('mcp', auth, [
    mcpRoute(
      {
        method: 'POST',
        path: '/mcp',
        ...declared,
        summary: 'Model Context Protocol (streamable HTTP, stateless): the canvas tools',
        body: jsonRpc('a JSON-RPC request (initialize, tools/list, tools/call)'),
        answer: jsonRpc('the JSON-RPC answer; a refused tool call is a result with isError and `CODE: message`'),
      },
      async ({ request }) => {
        if ((await principalOf(deps.ctx, request)) === null) throw unauthorized(request);
        const actor = await managementActor(deps.ctx, request);
        const server = serverFor(actor, tools, version);
        const transport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
          maxRequestBodySize: MCP_BODY_MAX,
        });
        await server.connect(transport);
        try {
          return await transport.handleRequest(request);
        } finally {
          void server.close();
        }
      },
    ),
    mcpRoute(
      { method: 'GET', path: '/mcp', ...declared, summary: 'MCP: no server-sent stream (405)', answer: jsonRpc('405, a JSON-RPC error') },
      () => methodNotAllowed(),
    ),
    mcpRoute(
      { method: 'DELETE', path: '/mcp', ...declared, summary: 'MCP: no sessions to end (405)', answer: jsonRpc('405, a JSON-RPC error') },
      () => methodNotAllowed(),
    ),
  ]);
}

/**
 * 401 with the Bearer challenge MCP clients look for (RFC 6750); a canvas's
 * deploy key, the likeliest wrong credential, is told what to send instead.
 */
function unauthorized(request: Request): AppError {
  const canvasKey = (request.headers.get('authorization') ?? '').trim().slice('Bearer '.length).trim().startsWith(CANVAS_KEY_PREFIX);
  const hint = canvasKey
    ? {
        hint: "a canvas's deploy key publishes that canvas over the Deploy API; /mcp takes a personal access token (easel_pat_…, from the dashboard's Tokens page)",
      }
    : {};
  return new AppError('unauthorized', 'unauthorized', hint, { headers: { 'www-authenticate': 'Bearer realm="easel"' } });
}

function methodNotAllowed(): Response {
  return new Response(
    JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'this server is stateless: POST only' }, id: null }),
    {
      status: 405,
      headers: { 'content-type': 'application/json', allow: 'POST' },
    },
  );
}

/**
 * The SDK's low-level server: tools/list gives each tool's TypeBox input as
 * JSON Schema (TypeBox schemas are JSON Schema; JSON drops its symbols), and
 * tools/call checks the arguments with the HTTP bodies' checker, so a bad
 * argument answers the HTTP route's code and message.
 */
function serverFor(actor: Actor, tools: Tool[], version: string): Server {
  const server = new Server({ name: 'easel', version }, { capabilities: { tools: {} } });
  const byName = new Map(tools.map((t) => [t.name, { tool: t, checked: checkedInput(t.input) }]));
  const listed = tools.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: JSON.parse(JSON.stringify(t.input)) as { type: 'object' },
    annotations: annotationsOf(t),
  }));
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    try {
      const found = byName.get(request.params.name);
      if (!found) throw new AppError('NOT_FOUND', `no tool named ${JSON.stringify(request.params.name)}`);
      const { tool, checked } = found;
      const args = request.params.arguments ?? {};
      checkArgs(tool, checked, args);
      const result = await tool.run(actor, args);
      return { content: [{ type: 'text', text: JSON.stringify(result) }] };
    } catch (err) {
      return { isError: true, content: [{ type: 'text', text: failureText(err) }] };
    }
  });
  return server;
}

/** The MCP tool annotations of a tool's effect (a client may ask its person before a `replace`). */
function annotationsOf(tool: Tool) {
  const read = tool.effect === 'read';
  return {
    readOnlyHint: read,
    ...(read ? {} : { destructiveHint: tool.effect === 'replace', idempotentHint: tool.idempotent === true }),
    openWorldHint: false,
  };
}

/** The tool's arguments against its schema; a refusal carries the matching HTTP route's code. */
function checkArgs(tool: Tool, checked: TObject, args: Record<string, unknown>): void {
  try {
    checkStrict(checked, args);
  } catch (err) {
    if (tool.invalid && err instanceof AppError) throw new AppError(tool.invalid, err.message);
    throw err;
  }
}

/** `CODE: message`, then the `current` or `release` JSON where the refusal carries one (CONTRACT §9). */
export function failureText(err: unknown): string {
  if (!(err instanceof AppError)) return 'INTERNAL: the server failed (see its log)';
  const code = err.errorCode === err.errorCode.toLowerCase() ? err.errorCode.toUpperCase() : err.errorCode;
  const { current, release } = err.extra as { current?: unknown; release?: unknown };
  const extra = release !== undefined || current !== undefined ? `\n${JSON.stringify({ release, current })}` : '';
  // A model cannot read the header an HTTP client would: say how long to wait.
  const retryAfter = err.headers['retry-after'];
  const wait = retryAfter === undefined ? '' : ` (try again in ${retryAfter} s)`;
  return `${code}: ${err.message}${wait}${extra}`;
}
