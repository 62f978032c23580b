import { isUnstorableText, UNSTORABLE_TEXT } from '../db/unstorable-text.ts';
import type { Logger } from '../log.ts';
import { AppError } from '../errors.ts';
import { errorResponse, json } from './respond.ts';
import { metaOf } from './meta.ts';
import { methodHint } from './method-hint.ts';

/**
 * Status logged for a request whose client went away before its answer
 * (nginx's "client closed request"): nobody receives the response.
 */
export const CLIENT_CLOSED_REQUEST = 499;

/**
 * The one place an exception becomes a response. AppErrors render in their
 * spec shape (routes read bodies with readJson, which throws the route's own
 * code); a parse or validation failure of Elysia's own is INVALID_BODY,
 * never a 422; a client that went away mid-request (its body stream fails
 * with "The connection was closed.") is an aborted request, logged at info;
 * anything else is a 500 whose details go only to the log.
 */
export function renderError(
  ctx: { log: Logger },
  request: Request,
  error: unknown,
  code: unknown,
  methodsAt: (pathname: string) => string[] = () => [],
): Response {
  if (error instanceof AppError) return errorResponse(error);
  if (code === 'VALIDATION' || code === 'PARSE' || code === 'INVALID_FILE_TYPE' || code === 'INVALID_COOKIE_SIGNATURE') {
    return json(400, { code: 'INVALID_BODY', message: validationMessage(error) });
  }
  if (isUnstorableText(error)) {
    return json(400, { code: 'INVALID_BODY', message: UNSTORABLE_TEXT });
  }
  if (code === 'NOT_FOUND') {
    const pathname = new URL(request.url).pathname;
    const allowed = methodsAt(pathname);
    if (allowed.length === 0) return json(404, { code: 'NOT_FOUND', message: 'no such route' });
    const message = `${request.method} is not answered at ${pathname}: use ${allowed.join(', ')}.${methodHint(request.method, pathname)}`;
    return json(405, { code: 'METHOD_NOT_ALLOWED', message }, { allow: allowed.join(', ') });
  }
  const meta = metaOf(request);
  if (request.signal.aborted) {
    ctx.log.info('request aborted', {
      requestId: meta.id,
      method: request.method,
      path: new URL(request.url).pathname,
      error: error instanceof Error ? error.message : String(error),
    });
    return new Response(null, { status: CLIENT_CLOSED_REQUEST });
  }
  ctx.log.error('unhandled error', {
    requestId: meta.id,
    method: request.method,
    path: new URL(request.url).pathname,
    error: error instanceof Error ? error.message : String(error),
    stack: error instanceof Error ? error.stack : undefined,
  });
  return json(500, { code: 'INTERNAL', message: 'internal error', requestId: meta.id });
}

function validationMessage(error: unknown): string {
  const e = error as { all?: Array<{ path?: string; message?: string; summary?: string }>; message?: string };
  const first = Array.isArray(e.all) ? e.all[0] : undefined;
  if (first) return `${first.path || 'body'}: ${first.summary ?? first.message ?? 'invalid'}`.replace(/^\//, '');
  return 'invalid request body';
}
