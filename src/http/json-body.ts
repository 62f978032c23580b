// The one way a route reads a JSON body. Elysia would parse and validate
// before any handler code, i.e. before the auth macros; the spec wants the
// caller checked first, so routes take no `body` schema and call readJson.
import type { Static, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { AppError, overCap } from '../errors.ts';
import { parseJsonText, TOO_DEEP_MESSAGE } from './json-text.ts';
import { nulTextPath } from './nul-text.ts';
import { plainWords, type CheckerError } from './plain-words.ts';
import { readTextCapped } from './read-capped.ts';

/** Bodies are small unless a route says otherwise; anything larger is refused while reading. */
export const JSON_BODY_MAX = 256 * 1024;

export interface ReadJsonOptions<T> {
  /** Largest body read (default 256 KiB); past it the `tooLarge` error, chunked bodies included. */
  maxBytes?: number;
  /** The value of an empty body (routes whose fields are all optional); without it an empty body is refused. */
  emptyAs?: T;
  /**
   * Require `Content-Type: application/json` (the default: it also keeps HTML
   * forms, sent without a preflight, away from cookie-authenticated routes).
   * The Deploy API reads JSON whatever the type.
   */
  jsonTypeOnly?: boolean;
  /** The route's body-validation error (default 400 INVALID_BODY with the message). */
  invalid?: (message: string) => AppError;
  /** The route's over-cap error (default 413 INVALID_BODY). */
  tooLarge?: (maxBytes: number) => AppError;
}

/**
 * Reads, parses and checks a JSON body against a TypeBox schema, after the
 * route's macro authenticated and authorized the caller (so a stranger gets
 * 401 or 404 whatever they send). Unknown fields are refused, not dropped
 * (Elysia's normalization would drop them and turn `[]` into `{}`): a typo
 * never "succeeds".
 */
export async function readJson<S extends TSchema>(
  request: Request,
  schema: S,
  options: ReadJsonOptions<Static<S>> = {},
): Promise<Static<S>> {
  const maxBytes = options.maxBytes ?? JSON_BODY_MAX;
  const invalid = options.invalid ?? ((message: string) => new AppError('INVALID_BODY', message));
  const text = await readTextCapped(request, maxBytes);
  if (text === null) throw (options.tooLarge ?? defaultTooLarge)(maxBytes);
  const empty = text.trim() === '';
  if (empty && options.emptyAs !== undefined) return options.emptyAs;
  if (!empty && (options.jsonTypeOnly ?? true)) {
    const type = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json') throw invalid('body: content-type must be application/json');
  }
  let value: unknown;
  if (!empty) {
    const parsed = parseJsonText(text);
    if (!parsed.ok) throw invalid(parsed.problem === 'too_deep' ? TOO_DEEP_MESSAGE : 'body: not valid JSON');
    value = parsed.value;
  }
  const problem = schemaProblem(schema, value);
  if (problem !== null) throw invalid(problem);
  return value as Static<S>;
}

function defaultTooLarge(maxBytes: number): AppError {
  return overCap('INVALID_BODY', `body: larger than ${maxBytes / 1024} KiB`);
}

/** Throws 400 INVALID_BODY naming the first offending path (for values that did not come from a request body). */
export function checkStrict<S extends TSchema>(schema: S, value: unknown): asserts value is Static<S> {
  const problem = schemaProblem(schema, value);
  if (problem !== null) throw new AppError('INVALID_BODY', problem);
}

/** Null when the value fits; otherwise the first offending path (dotted, e.g. `aiPrices.some-model.input`) and why. */
function schemaProblem(schema: TSchema, value: unknown): string | null {
  if (Value.Check(schema, value)) {
    const nul = nulTextPath(schema, value);
    return nul === null ? null : `${nul}: text may not hold a NUL character (U+0000)`;
  }
  if (value === undefined) return 'body: a JSON object is required';
  const top = Value.Errors(schema, value).First();
  const pathOf = (e: ErrorLike | undefined) => (e?.path ? e.path.slice(1).replaceAll('/', '.') : 'body');
  const choices = top ? choicesOf(top.schema) : null;
  if (choices) return `${pathOf(top)}: expected one of ${choices}`;
  const first = deepest(top);
  const path = pathOf(first);
  const message = plainWords(first);
  // A schema's description carries its unit ("epoch milliseconds"): the refusal names it.
  const unit = first?.schema?.description;
  return `${path}: ${message}${unit ? ` (${unit})` : ''}`;
}

/** Every allowed value of a union of literals (null included), or null for any other schema. */
function choicesOf(schema: TSchema | undefined): string | null {
  const options = schema?.anyOf as TSchema[] | undefined;
  if (!options || !options.every((o) => 'const' in o || o.type === 'null')) return null;
  const values = options.map((o) => ('const' in o ? JSON.stringify(o.const) : 'null'));
  return values.length === 1 ? values[0]! : `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;
}
interface ErrorLike extends CheckerError {
  path: string;
  errors?: Iterable<ErrorLike>[];
}

/**
 * "Expected union value" says little: for `T | null` fields, report why the
 * value failed the non-null branch instead.
 */
function deepest(error: ErrorLike | undefined): ErrorLike | undefined {
  if (!error?.errors?.length) return error;
  // Last branch first: Elysia's t.Integer and t.Number put their numeric-string form before the number itself.
  for (const branch of [...error.errors].reverse()) {
    const [inner] = branch;
    if (inner && inner.message !== 'Expected null') return deepest(inner);
  }
  return error;
}
