// GET /openapi.json: an OpenAPI 3.1 description of every route the app
// mounts, built from the route listing and what each route declares of
// itself (src/http/declared-route.ts; doors and tags in doors.ts): paths in OpenAPI syntax, the request schemas the routes validate with, the
// success answer, and every refusal grouped by status with its codes and body
// shape (`{error}` for the Deploy API's own refusals, `{code, message, …}`
// for the rest, as the spec's Errors section has them).
import type { TSchema } from '@sinclair/typebox';
import type { Config } from '../config.ts';
import { ERROR_STATUS, type ErrorCode } from '../errors.ts';
import type { ListedRoute } from '../http/route-listing.ts';
import { isSchema, type RouteDeclaration } from '../http/declared-route.ts';
import { DOORS, TAGS } from './doors.ts';
import { CodedError, ShortError } from './schemas.ts';

/** What `ALL` stands for in the document (OpenAPI has no "any method"). */
const ALL_METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export const routeKey = (method: string, path: string) => `${method} ${path}`;

/** `/v1/c/:slug/*` → `/v1/c/{slug}/{path}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z]+)/g, '{$1}').replace(/\/\*$/, '/{path}');
}

/** TypeBox schemas are JSON Schema already; the symbols and $ids it adds are dropped. */
function plain(schema: TSchema): unknown {
  return JSON.parse(JSON.stringify(schema, (key, value) => (key === '$id' ? undefined : value)));
}

function errorResponses(codes: ErrorCode[]): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  // A key from another canvas is 403 in the {error} shape.
  if (codes.includes('unauthorized') && !byStatus.has(403)) byStatus.set(403, ['unauthorized']);
  const out: Record<string, unknown> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const short = list.filter((c) => c === c.toLowerCase());
    const coded = list.filter((c) => c !== c.toLowerCase());
    const shapes = [
      ...(short.length ? [{ allOf: [{ $ref: '#/components/schemas/ShortError' }], properties: { error: { enum: short } } }] : []),
      ...(coded.length ? [{ allOf: [{ $ref: '#/components/schemas/CodedError' }], properties: { code: { enum: coded } } }] : []),
    ];
    out[String(status)] = {
      description: list.join(', '),
      content: { 'application/json': { schema: shapes.length === 1 ? shapes[0] : { oneOf: shapes } } },
    };
  }
  return out;
}

/** Adds the HTML refusal pages to the JSON refusals, side by side where a status has both. */
function withPages(responses: Record<string, any>, pages: RouteDeclaration['pages'] = {}): Record<string, unknown> {
  for (const [status, description] of Object.entries(pages)) {
    const page = { 'text/html': { schema: { type: 'string' } } };
    const json = responses[status];
    responses[status] = json
      ? { description: `${json.description}; ${description}`, content: { ...json.content, ...page } }
      : { description, content: page };
  }
  return responses;
}

function queryParameters(query: RouteDeclaration['query']): Record<string, unknown>[] {
  if (!query) return [];
  const required = new Set<string>(query.required ?? []);
  return Object.entries<TSchema>(query.properties).map(([name, schema]) => {
    const { description, ...rest } = plain(schema) as { description?: string };
    return { name, in: 'query', required: required.has(name), ...(description ? { description } : {}), schema: rest };
  });
}

function operation(method: string, path: string, doc: RouteDeclaration): Record<string, unknown> {
  const door = DOORS[doc.door];
  const params = [...path.matchAll(/:([A-Za-z]+)/g)].map(([, name]) => ({
    name: name!,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  if (path.endsWith('/*')) params.push({ name: 'path', in: 'path', required: true, schema: { type: 'string' } });
  const query = queryParameters(doc.query);
  const op: Record<string, unknown> = {
    operationId: `${method.toLowerCase()}${openApiPath(path).replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    summary: doc.summary,
    tags: [doc.tag],
    security: door.security.map((name) => ({ [name]: [] })),
    parameters: [...params, ...query],
  };
  if (doc.authMode) op['x-easel-auth-mode'] = doc.authMode;
  if (doc.body) {
    op.requestBody = isSchema(doc.body)
      ? // Without emptyAs, readJson refuses an empty body.
        { required: doc.bodyOptions?.emptyAs === undefined, content: { 'application/json': { schema: plain(doc.body) } } }
      : {
          required: !doc.body.optional,
          description: doc.body.description,
          content: { [doc.body.contentType]: { schema: doc.body.schema ? plain(doc.body.schema) : {} } },
        };
  }
  const ok: Record<string, unknown> = isSchema(doc.answer)
    ? { [String(doc.status ?? 200)]: { description: 'OK', content: { 'application/json': { schema: plain(doc.answer) } } } }
    : doc.answer
      ? {
          [String(doc.answer.status ?? 200)]: {
            description: doc.answer.description,
            ...(doc.answer.contentType === 'none'
              ? {}
              : { content: { [doc.answer.contentType]: { schema: doc.answer.schema ? plain(doc.answer.schema) : {} } } }),
          },
        }
      : { '200': { description: 'OK' } };
  op.responses = withPages({ ...ok, ...errorResponses([...door.errors, ...(doc.errors ?? []), 'INTERNAL']) }, doc.pages);
  return op;
}

/** The document for the routes the app lists (the dispatcher for canvas hosts is described in words). */
export function openApiDocument(
  listing: ListedRoute[],
  config: Pick<Config, 'baseUrl' | 'apiBaseUrl'>,
  version: string,
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of listing) {
    if (route.path.startsWith('{')) continue;
    const doc = route.declaration;
    if (!doc) continue;
    const entry = (paths[openApiPath(route.path)] ??= {});
    const methods = route.method === 'ALL' ? ALL_METHODS : [route.method.toLowerCase()];
    for (const method of methods)
      entry[method] ??= operation(route.method === 'ALL' ? method.toUpperCase() : route.method, route.path, doc);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Easel',
      version,
      description:
        "Self-hosted canvas publishing: the Deploy API (a canvas key), the management API (a session or a personal access token), the runtime API canvas pages call (the viewer's session), and the service routes. In subdomain mode every canvas is also served at its own host, {slug}.EASEL_CANVAS_HOST, with its pages, /sdk/v1.js and /v1/c/{slug}/… there.",
    },
    servers: [{ url: config.apiBaseUrl }, ...(config.apiBaseUrl !== config.baseUrl ? [{ url: config.baseUrl }] : [])],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      securitySchemes: {
        session: { type: 'apiKey', in: 'cookie', name: 'easel_session' },
        personalToken: { type: 'http', scheme: 'bearer', description: 'easel_pat_… (management API and /mcp)' },
        canvasKey: { type: 'http', scheme: 'bearer', description: 'easel_sk_…, the canvas deploy key (Deploy API)' },
        metricsToken: { type: 'http', scheme: 'bearer', description: 'EASEL_METRICS_TOKEN' },
      },
      schemas: { ShortError: plain(ShortError), CodedError: plain(CodedError) },
    },
  };
}
