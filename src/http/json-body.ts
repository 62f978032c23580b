// JSON bodies for the management routes. Two things differ from Elysia's
// defaults on purpose:
// - Order: the caller is authenticated and authorized before the body is
//   looked at, so an anonymous caller gets 401 and a stranger 404 whatever
//   they send. Elysia parses and validates before any handler code, so the
//   routes take the raw text (capped) and check it themselves.
// - Strictness: Elysia's normalization silently drops unknown fields (and
//   turns `[]` into `{}`); here they are refused, so a typo never "succeeds".
import type { Static, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { AppError } from '../errors.ts';
import { readTextCapped } from './read-capped.ts';

/** Management bodies are small; anything larger is refused while reading. */
export const MANAGEMENT_BODY_MAX = 256 * 1024;

/** The body as text, never more than `maxBytes` (413 past it, chunked bodies included). */
async function readManagementText(request: Request, maxBytes = MANAGEMENT_BODY_MAX): Promise<string> {
  const text = await readTextCapped(request, maxBytes);
  if (text === null) throw tooLarge(maxBytes);
  return text;
}

function tooLarge(maxBytes: number): AppError {
  return new AppError('INVALID_BODY', `body: larger than ${maxBytes / 1024} KiB`, {}, { status: 413 });
}

/** What the parse hook hands over for an over-cap body (Elysia rewraps errors thrown while parsing). */
const TOO_LARGE = Symbol('too large');

/** Route option: hand the handler the raw (capped) body text instead of letting Elysia parse it. */
export const rawBody = {
  parse: ({ request }: { request: Request }) =>
    readManagementText(request).catch((err: unknown) => {
      if (err instanceof AppError && err.status === 413) return TOO_LARGE;
      throw err;
    }),
};

/**
 * Parses and checks a body the handler received through `rawBody`. An empty
 * body counts as `{}` only when `emptyAs` is given (routes whose fields are all optional).
 */
export function jsonBody<S extends TSchema>(schema: S, request: Request, raw: unknown, emptyAs?: Static<S>): Static<S> {
  if (raw === TOO_LARGE) throw tooLarge(MANAGEMENT_BODY_MAX);
  const text = typeof raw === 'string' ? raw : '';
  if (text.trim() === '' && emptyAs !== undefined) return emptyAs;
  const type = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
  // Also keeps HTML forms (sent without a preflight) away from cookie-authenticated routes.
  if (text.trim() !== '' && type !== 'application/json') throw new AppError('INVALID_BODY', 'body: content-type must be application/json');
  let value: unknown;
  try {
    value = text.trim() === '' ? undefined : JSON.parse(text);
  } catch {
    throw new AppError('INVALID_BODY', 'body: not valid JSON');
  }
  checkStrict(schema, value);
  return value;
}

/** Throws 400 INVALID_BODY naming the first offending path (dotted, e.g. `aiPrices.some-model.input`). */
export function checkStrict<S extends TSchema>(schema: S, value: unknown): asserts value is Static<S> {
  if (Value.Check(schema, value)) return;
  if (value === undefined) throw new AppError('INVALID_BODY', 'body: a JSON object is required');
  const first = deepest(Value.Errors(schema, value).First());
  const path = first?.path ? first.path.slice(1).replaceAll('/', '.') : 'body';
  const message =
    first?.message === 'Unexpected property' ? 'unknown field' : (first?.message ?? 'invalid').replace(/^Expected/, 'expected');
  throw new AppError('INVALID_BODY', `${path}: ${message}`);
}

interface ErrorLike {
  path: string;
  message: string;
  errors?: Iterable<ErrorLike>[];
}

/**
 * "Expected union value" says little: for `T | null` fields, report why the
 * value failed the non-null branch instead.
 */
function deepest(error: ErrorLike | undefined): ErrorLike | undefined {
  if (!error?.errors?.length) return error;
  for (const branch of error.errors) {
    const [inner] = branch;
    if (inner && inner.message !== 'Expected null') return deepest(inner);
  }
  return error;
}
