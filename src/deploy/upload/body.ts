// JSON bodies of the staged-upload routes. They are read by hand (routes use
// `parse: 'none'`) so the key is checked before the body, and so a bad body
// answers the spec's codes (INVALID_MANIFEST at begin, INVALID_REQUEST at
// finalize) instead of Elysia's generic parse error.
import { AppError, type ErrorCode, overCap } from '../../errors.ts';
import { readTextCapped } from '../../http/read-capped.ts';
import { BeginUploadBody, FinalizeBody } from '../model.ts';

/** A 2000-entry manifest with long paths stays well under this. */
export const BEGIN_BODY_MAX = 4 * 1024 * 1024;
/** Spec Limits: finalize body. */
export const FINALIZE_BODY_MAX = 16 * 1024;

// The field names come from the TypeBox models (the OpenAPI document and the MCP tools describe the same);
// the values are checked by the service, which answers the spec's codes.
const BEGIN_FIELDS = new Set(Object.keys(BeginUploadBody.properties));
const FINALIZE_FIELDS = new Set(Object.keys(FinalizeBody.properties));

function parseObject(text: string, code: ErrorCode, what: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new AppError(code, `${what} must be a JSON object`);
  return value as Record<string, unknown>;
}

/** An unknown field is refused rather than ignored: a typo in `expectedPublicationToken` must not skip the check. */
function rejectUnknown(body: Record<string, unknown>, allowed: Set<string>): void {
  const extra = Object.keys(body).find((k) => !allowed.has(k));
  if (extra !== undefined) throw new AppError('INVALID_REQUEST', `unknown field ${JSON.stringify(extra)}`);
}

/** `{manifest, releaseId?, expectedPublicationToken?, preview?}`. */
export async function readBeginBody(request: Request): Promise<Record<string, unknown>> {
  const text = await readTextCapped(request, BEGIN_BODY_MAX);
  if (text === null) throw overCap('INVALID_MANIFEST', `the begin body is larger than ${BEGIN_BODY_MAX / 1024 / 1024} MB`);
  const body = parseObject(text, 'INVALID_MANIFEST', 'the body');
  if (body === undefined) throw new AppError('INVALID_MANIFEST', 'the body is not valid JSON');
  rejectUnknown(body, BEGIN_FIELDS);
  return body;
}

/** Optional `{expectedPublicationToken?, releaseId?, preview?}`; an empty body is `{}`. */
export async function readFinalizeBody(request: Request): Promise<Record<string, unknown>> {
  const text = await readTextCapped(request, FINALIZE_BODY_MAX);
  if (text === null) throw overCap('INVALID_REQUEST', 'the finalize body is larger than 16 KB');
  if (text.trim() === '') return {};
  const body = parseObject(text, 'INVALID_REQUEST', 'the finalize body');
  if (body === undefined) throw new AppError('INVALID_REQUEST', 'the finalize body is not valid JSON');
  rejectUnknown(body, FINALIZE_FIELDS);
  return body;
}

/** A blob's declared length, when it is a plain number. */
export function contentLengthOf(request: Request): number | null {
  const length = request.headers.get('content-length');
  return length !== null && /^\d+$/.test(length) ? Number(length) : null;
}
