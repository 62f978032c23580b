// A route says everything about itself once: method, path, who may call (its
// door), the body and query it takes (TypeBox), the answer it gives and the
// refusals it adds to its door's. The router mounts it from that declaration,
// GET /openapi.json describes it from the same object (src/openapi/), and the
// test harness holds every refusal a suite sees to the declared list.
//
// The spec's order is kept: the door (an Elysia macro: 401, 403, 404, 429),
// then the route's check (the caller's right to what the path names), and
// only then are the query and the body read and checked here.
import { Kind, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { Elysia, type AnyElysia } from 'elysia';
import { AppError, type ErrorCode } from '../errors.ts';
import { plainWords } from './plain-words.ts';
import { readJson, type ReadJsonOptions } from './json-body.ts';
import { json } from './respond.ts';

/** Who may call, and with that the refusals every route behind the door can give (src/openapi/doors.ts). */
export type Door = 'public' | 'session' | 'admin' | 'deployKey' | 'runtime' | 'metrics';

export type Tag = 'Service' | 'Sign-in' | 'Tokens' | 'Management' | 'Admin' | 'Deploy' | 'Agents' | 'SDK and dashboard' | 'Runtime';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS' | 'ALL';

/** A body or answer that is not JSON, described in words for the document. */
export interface OtherContent {
  contentType: string;
  description: string;
  /** The success status, when not 200 (answers only). */
  status?: number;
  /** What the document shows as its schema, when the handler reads (or writes) the content itself but it is JSON of a known shape. */
  schema?: TSchema;
  /** A body the route does without (bodies only): the document marks it not required. */
  optional?: boolean;
}

export interface RouteDeclaration {
  method: Method;
  /** Router syntax: `:param`, a trailing `*`. */
  path: string;
  door: Door;
  tag: Tag;
  summary: string;
  /** A JSON body, read and checked after the door (readJson), or another kind of body the handler reads itself. */
  body?: TSchema | OtherContent;
  /** How the JSON body is read (size, empty body, content type, the route's own codes). */
  bodyOptions?: ReadJsonOptions<unknown>;
  /** The query parameters, each an optional string with its description; unknown ones are ignored. */
  query?: TObject;
  /** The success answer: a JSON schema the handler's value is typed by, or another content type. */
  answer?: TSchema | OtherContent;
  /** The success status of a JSON answer (default 200). */
  status?: number;
  /** What this route refuses beyond its door's refusals. */
  errors?: readonly ErrorCode[];
  /** Refusals a browser's route answers as an HTML page rather than a catalog code, by status. */
  pages?: Readonly<Record<number, string>>;
  /** Mounted only in this sign-in mode. */
  authMode?: 'oidc';
  /** Headers on every JSON answer of the route (a session door adds `cache-control: no-store`). */
  headers?: Readonly<Record<string, string>>;
  /** The door's macro option, when it takes one (a runtime capability, a deploy key mode). */
  doorOption?: unknown;
  /** The route checks its caller itself, more widely than the door's macro would (the SDK also admits a Public link's visitors). */
  ownDoor?: true;
}

/** `/a/:id/b/:key` → 'id' | 'key'. */
type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;

export type ParamsOf<P extends string> = { [K in ParamNames<P>]: string } & (P extends `${string}*` ? { '*': string } : unknown);

type Content = TSchema | OtherContent | undefined;

/** What a handler receives: the door's own values (`actor`, `canvas`, `caller`) and the checked input. */
export type RouteInput<P extends string, B extends Content, Q extends TObject | undefined, DoorValues> = DoorValues & {
  request: Request;
  params: ParamsOf<P>;
  query: Q extends TObject ? Static<Q> : Record<string, never>;
  body: B extends TSchema ? Static<B> : undefined;
};

/** A JSON answer is the answer schema's type; a handler may always answer with a Response of its own. */
export type RouteAnswer<A extends Content> = (A extends TSchema ? Static<A> : never) | Response;

export interface DeclaredRoute {
  declaration: RouteDeclaration;
  check?(input: Record<string, unknown>): Promise<void> | void;
  handle(input: Record<string, unknown>): Promise<unknown> | unknown;
}

/** The DECLARATION_KEY under which a mounted route keeps its declaration in Elysia's `detail` (read by the route listing). */
export const DECLARATION_KEY = 'x-easel-route';

type Handler<P extends string, B extends Content, Q extends TObject | undefined, A extends Content, DoorValues> = (
  input: RouteInput<P, B, Q, DoorValues>,
) => Promise<RouteAnswer<A>> | RouteAnswer<A>;

/**
 * A handler, or a handler with a check that runs after the door and before
 * the body is read: the caller's right to the resource in the path (404, 403
 * before 400, as the spec orders them).
 */
export type RouteWork<P extends string, B extends Content, Q extends TObject | undefined, A extends Content, DoorValues> =
  | Handler<P, B, Q, A, DoorValues>
  | {
      check: (input: Omit<RouteInput<P, B, Q, DoorValues>, 'body' | 'query'>) => Promise<void> | void;
      handle: Handler<P, B, Q, A, DoorValues>;
    };

/** What a route file writes: the declaration without its door (the builder's) and with its path, body, query and answer typed. */
export type Declaring<P extends string, B extends Content, Q extends TObject | undefined, A extends Content, Extra> = Omit<
  RouteDeclaration,
  'door' | 'path' | 'body' | 'query' | 'answer' | 'tag'
> &
  Extra & { path: P; body?: B; query?: Q; answer?: A; tag?: Tag };

/** The document's section for a door's routes, unless a route names another (sign-in pages, tokens, agents…). */
const DOOR_TAG: Record<Door, Tag> = {
  public: 'Service',
  session: 'Management',
  admin: 'Admin',
  deployKey: 'Deploy',
  runtime: 'Runtime',
  metrics: 'Service',
};

/**
 * A route builder for one door: the feature layer that owns the door's types
 * binds them (canvases: `actor`; deploy: `canvas`; runtime: `caller`).
 */
export function doorRoute<DoorValues, Extra extends Partial<RouteDeclaration> = Record<never, never>>(door: Door) {
  return <P extends string, B extends Content = undefined, Q extends TObject | undefined = undefined, A extends Content = undefined>(
    declaration: Declaring<P, B, Q, A, Extra>,
    work: RouteWork<P, B, Q, A, DoorValues>,
  ): DeclaredRoute => {
    const { check, handle } = typeof work === 'function' ? { check: undefined, handle: work } : work;
    return {
      declaration: { ...declaration, door, tag: declaration.tag ?? DOOR_TAG[door] },
      ...(check ? { check: check as DeclaredRoute['check'] } : {}),
      handle: handle as DeclaredRoute['handle'],
    };
  };
}

/** Routes anyone may call (health, sign-in pages, the SDK). */
export const publicRoute = doorRoute<unknown>('public');

/** The Elysia macro option each door mounts with (src/server/auth-kinds.ts defines the macros). */
function doorHook(d: RouteDeclaration): Record<string, unknown> {
  if (d.ownDoor) return {};
  switch (d.door) {
    case 'session':
      return { management: true };
    case 'admin':
      return { admin: true };
    case 'deployKey':
      return { deployKey: d.doorOption ?? true };
    case 'runtime':
      return { runtime: d.doorOption };
    default:
      return {};
  }
}

/** Management answers hold a person's data: never cached; runtime answers depend on who asks (as runtimeJson's). */
const DOOR_HEADERS: Partial<Record<Door, Record<string, string>>> = {
  session: { 'cache-control': 'no-store' },
  admin: { 'cache-control': 'no-store' },
  runtime: { 'cache-control': 'private, no-store' },
};

function checkedQuery(schema: TObject, raw: Record<string, unknown>): Record<string, unknown> {
  const query: Record<string, unknown> = {};
  for (const name of Object.keys(schema.properties)) if (raw[name] !== undefined) query[name] = raw[name];
  if (!Value.Check(schema, query)) {
    const first = Value.Errors(schema, query).First();
    throw new AppError('INVALID_REQUEST', `query: ${first ? `${first.path.slice(1)} ${plainWords(first)}` : 'not valid'}`);
  }
  return query;
}

/** A TypeBox schema, as against a body or answer described in words (OtherContent). */
export const isSchema = (v: unknown): v is TSchema => typeof v === 'object' && v !== null && Kind in v;

/** What the handler Elysia calls reads of its context: the request, the path, the query and what the doors resolve. */
interface MountContext {
  request: Request;
  params: unknown;
  query?: unknown;
  // What the doors resolve (src/server/auth-kinds.ts); undefined behind the others.
  actor?: unknown;
  canvas?: unknown;
  caller?: unknown;
}

/**
 * A route's work on one request. Without a check or a JSON body to read (the
 * KV writes, which read their own text) the handler is called at once and its
 * answer mapped without another async frame: these are the hot paths.
 */
function run(route: DeclaredRoute, context: MountContext): Promise<Response> | Response {
  const d = route.declaration;
  const input: Record<string, unknown> = {
    request: context.request,
    params: context.params,
    actor: context.actor,
    canvas: context.canvas,
    caller: context.caller,
  };
  if (route.check || isSchema(d.body)) return checkedRun(route, input, context.query);
  input.query = d.query ? checkedQuery(d.query, (context.query ?? {}) as Record<string, unknown>) : {};
  const answer = route.handle(input);
  return answer instanceof Promise ? answer.then((a: unknown) => respond(d, a)) : respond(d, answer);
}

/** The caller's right to what the path names comes before anything they sent (query, then body) is judged. */
async function checkedRun(route: DeclaredRoute, input: Record<string, unknown>, rawQuery: unknown): Promise<Response> {
  const d = route.declaration;
  if (route.check) await route.check(input);
  input.query = d.query ? checkedQuery(d.query, (rawQuery ?? {}) as Record<string, unknown>) : {};
  if (isSchema(d.body)) input.body = await readJson(input.request as Request, d.body, d.bodyOptions);
  return respond(d, await route.handle(input));
}

/** A Response the handler made itself, or its JSON value with the route's headers. */
function respond(d: RouteDeclaration, answer: unknown): Response {
  if (answer instanceof Response) return answer;
  return json(d.status ?? 200, answer, { ...DOOR_HEADERS[d.door], ...d.headers });
}

/** Elysia's context, as far as this file is concerned (its fields are typed by `MountContext` once read). */
type ElysiaContext = Record<string, any>;

/**
 * The function Elysia calls for a route. It names the context's fields in its
 * parameter: Elysia reads a handler's source to decide what to prepare for it
 * (its "sucrose"), and a context passed on whole makes it parse the query,
 * the cookies and the headers of every request: a quarter of a KV write's CPU
 * time (bench/in-process.ts, BENCH_ROUTE=kv-put). The query is named only
 * where the route declares one.
 */
function mounted(route: DeclaredRoute): (context: ElysiaContext) => Promise<Response> | Response {
  if (route.declaration.query)
    return ({ request, params, query, actor, canvas, caller }: ElysiaContext) =>
      run(route, { request, params, query, actor, canvas, caller });
  return ({ request, params, actor, canvas, caller }: ElysiaContext) => run(route, { request, params, actor, canvas, caller });
}

/**
 * One Elysia plugin mounting declared routes behind the auth macros (null for
 * routes behind no door that needs one), each keeping its declaration for the listing.
 */
export function declaredRoutes(name: string, auth: AnyElysia | null, routes: readonly DeclaredRoute[]): AnyElysia {
  const app: AnyElysia = auth ? new Elysia({ name }).use(auth) : new Elysia({ name });
  for (const route of routes) {
    const d = route.declaration;
    app.route(d.method, d.path, mounted(route), {
      ...doorHook(d),
      parse: 'none',
      detail: { [DECLARATION_KEY]: d },
    } as never);
  }
  return app;
}
