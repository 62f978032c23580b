// What the OpenAPI-driven hostile suites share: the operations the server's
// own /openapi.json lists (so a new route is covered from its first day), the
// credentials each route family takes, and what a coded refusal looks like.
import { body, type TestApp } from '../harness.ts';
import type { World } from '../world.ts';

export interface ListedOperation {
  method: string;
  /** The documented template, e.g. `/api/canvases/{id}/members`. */
  path: string;
  pathParams: string[];
  queryParams: string[];
  /** The top-level fields of its JSON body; null when it takes none. */
  bodyFields: string[] | null;
}

type DocOperation = {
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: { content?: Record<string, { schema?: { $ref?: string; properties?: object } }> };
};

export async function listedOperations(app: TestApp): Promise<ListedOperation[]> {
  const doc = await body(await app.request('/openapi.json'));
  const resolve = (schema: { $ref?: string; properties?: object }) =>
    (schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()!] : schema) as { properties?: object };
  const out: ListedOperation[] = [];
  for (const [path, methods] of Object.entries<Record<string, DocOperation>>(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const json = op.requestBody?.content?.['application/json']?.schema;
      out.push({
        method: method.toUpperCase(),
        path,
        pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
        queryParams: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        bodyFields: json ? Object.keys(resolve(json).properties ?? {}) : null,
      });
    }
  }
  return out;
}

/** The Deploy API takes the canvas's key; administration the admin's session; the rest its owner's. */
export function credentialsFor(w: World, apiKey: string, path: string): RequestInit & { cookie?: string } {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (path.startsWith('/v1/canvases/')) return { headers: { ...headers, authorization: `Bearer ${apiKey}` } };
  return { cookie: path.startsWith('/api/admin') ? w.cookie.admin : w.cookie.owner, headers };
}

/** A JSON refusal carries its code: `{code}`, the Deploy API's `{error}`, or JSON-RPC's own shape at /mcp. */
export function isCoded(text: string): boolean {
  const parsed = JSON.parse(text) as { code?: unknown; error?: { code?: unknown } | string; jsonrpc?: unknown };
  const rpc = parsed.jsonrpc === '2.0' && typeof parsed.error === 'object' && typeof parsed.error.code === 'number';
  return typeof parsed.code === 'string' || typeof parsed.error === 'string' || rpc;
}
