import { currentSignInUrl } from './sign-in.ts';

// The SDK's error classes (spec: Errors, "SDK classes"; CONTRACT §6). Each is
// an Error whose `name` is its class name (written out: minifiers rename
// classes), with the server's `code` and the HTTP `status` (0 when no HTTP
// answer arrived).

/** Every SDK failure. `status` is the HTTP status, 0 when no answer arrived (NETWORK_ERROR). */
export class EaselError extends Error {
  readonly code: string;
  readonly status: number;
  constructor(code: string, status: number, message?: string) {
    super(message || code);
    this.name = 'EaselError';
    this.code = code;
    this.status = status;
  }
}

/** QUOTA_EXCEEDED, GUEST_AI_CAP and BODY_TOO_LARGE. The HTTP `scope` is not carried. */
export class QuotaExceededError extends EaselError {
  constructor(code: string, status: number, message?: string) {
    super(code, status, message);
    this.name = 'QuotaExceededError';
  }
}

export interface CapabilityDetails {
  capability?: string | null;
  reason?: string | null;
  hint?: string | null;
}

/** CAPABILITY_DISABLED: which capability, why (`backend_off`, `feature_off`, `operator_disabled`), and what would turn it on. */
export class CapabilityDisabledError extends EaselError {
  readonly capability: string | null;
  readonly reason: string | null;
  readonly hint: string | null;
  constructor(code: string, status: number, message?: string, details: CapabilityDetails = {}) {
    super(code, status, message);
    this.name = 'CapabilityDisabledError';
    this.capability = details.capability ?? null;
    this.reason = details.reason ?? null;
    this.hint = details.hint ?? null;
  }
}

/** PERMISSION_DENIED: the caller's role may not do this. */
export class PermissionDeniedError extends EaselError {
  constructor(code: string, status: number, message?: string) {
    super(code, status, message);
    this.name = 'PermissionDeniedError';
  }
}

/**
 * UNAUTHORIZED: the visitor is not signed in (any more). `signInUrl` is where
 * to sign in and come back to this page; `easel.signIn()` goes there.
 */
export class UnauthorizedError extends EaselError {
  readonly signInUrl: string | null;
  constructor(code: string, status: number, message?: string) {
    super(code, status, message);
    this.name = 'UnauthorizedError';
    this.signInUrl = currentSignInUrl();
  }
}

const QUOTA_CODES = new Set(['QUOTA_EXCEEDED', 'GUEST_AI_CAP', 'BODY_TOO_LARGE']);
/** What the server says to a caller without a session: one class, one code for the page. */
const SIGNED_OUT_CODES = new Set(['UNAUTHORIZED', 'UNAUTHENTICATED']);

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** The class for a code; `body` may carry the capability details. */
export function errorFor(code: string, status: number, message?: string, body: Record<string, unknown> = {}): EaselError {
  if (code === 'CAPABILITY_DISABLED') {
    return new CapabilityDisabledError(code, status, message, {
      capability: str(body.capability),
      reason: str(body.reason),
      hint: str(body.hint),
    });
  }
  if (code === 'PERMISSION_DENIED') return new PermissionDeniedError(code, status, message);
  if (SIGNED_OUT_CODES.has(code)) return new UnauthorizedError('UNAUTHORIZED', status, message);
  if (QUOTA_CODES.has(code)) return new QuotaExceededError(code, status, message);
  return new EaselError(code, status, message);
}

/**
 * The error of a non-2xx answer: `{code, message, …}` keeps its code,
 * `{error: "unauthorized"}` becomes UNAUTHORIZED; anything else is HTTP_ERROR.
 */
export async function errorFromResponse(res: Response): Promise<EaselError> {
  let body: unknown = null;
  try {
    body = await res.json();
  } catch {
    // Not JSON (a proxy's HTML page, an empty 503).
  }
  const b = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  // A page cannot always read Retry-After (CORS exposes it only when asked): the message says how long to wait.
  const wait = res.status === 429 ? res.headers.get('retry-after') : null;
  const message = str(b.message) === null ? undefined : `${str(b.message)}${wait && /^\d+$/.test(wait) ? ` (try again in ${wait} s)` : ''}`;
  if (typeof b.code === 'string' && b.code) return errorFor(b.code, res.status, message, b);
  if (typeof b.error === 'string' && b.error) return errorFor(b.error.toUpperCase(), res.status, message ?? b.error, b);
  return new EaselError('HTTP_ERROR', res.status, `the server answered ${res.status}`);
}

export function networkError(cause?: unknown): EaselError {
  const detail = cause instanceof Error && cause.message ? `: ${cause.message}` : '';
  return new EaselError('NETWORK_ERROR', 0, `the request did not reach the server${detail}`);
}
