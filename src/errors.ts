// The error catalog: every code of the spec's Errors section with its usual
// HTTP status, and AppError, the one thing services throw. Rendering into the
// spec's three body shapes happens in src/http/respond.ts (errorResponse),
// reached through src/http/on-error.ts.

export const ERROR_STATUS = {
  // Deploy API {error} shape (values are the lowercase wire strings)
  unauthorized: 401,
  invalid_body: 400,
  rate_limited: 429,
  // PUT deploy
  EMPTY_DEPLOY: 400,
  INVALID_ZIP: 400,
  ZIP_SLIP_REJECTED: 400,
  ZIP_BOMB_REJECTED: 400,
  TOO_MANY_FILES: 400,
  CANVAS_TOO_LARGE: 400,
  // Coordination
  PUBLICATION_CHANGED: 409,
  RELEASE_NOT_CURRENT: 409,
  INVALID_RELEASE_ID: 400,
  RELEASE_ID_MISMATCH: 400,
  INVALID_REQUEST: 400,
  // Staged upload
  INVALID_MANIFEST: 400,
  INVALID_PATH: 400,
  FILE_TOO_LARGE: 413,
  UPLOAD_HANDLE_INVALID: 404,
  UPLOAD_EXPIRED: 400,
  UPLOAD_UNEXPECTED_BLOB: 400,
  BLOB_HASH_MISMATCH: 400,
  UPLOAD_MISSING_BLOB: 400,
  UPLOAD_IN_PROGRESS: 409,
  UPLOAD_ALREADY_FINALIZED: 409,
  // Other Deploy API routes
  VERSION_UNAVAILABLE: 409,
  CANNOT_UNPUBLISH: 409,
  NOT_PUBLISHED: 404,
  NOT_FOUND: 404,
  // Runtime pipeline
  RATE_LIMITED: 429,
  ARCHIVED: 404,
  DISABLED: 403,
  NOT_INVITED: 404,
  OWNER_ONLY: 404,
  SHARE_EXPIRED: 404,
  PASSWORD_REQUIRED: 403,
  STATIC_ONLY: 403,
  CROSS_CANVAS_FORBIDDEN: 403,
  CROSS_SITE_FORBIDDEN: 403,
  CAPABILITY_DISABLED: 403,
  PERMISSION_DENIED: 403,
  // Runtime primitives
  INVALID_BODY: 400,
  NOT_NUMERIC: 409,
  // Easel's own: the disk is nearly full (deploys, uploads, files).
  INSUFFICIENT_STORAGE: 507,
  KEY_TOO_LARGE: 413,
  VALUE_TOO_LARGE: 413,
  KEY_LIMIT: 409,
  QUOTA_EXCEEDED: 409,
  COLLECTION_NOT_CONFIGURED: 404,
  // AI
  BODY_TOO_LARGE: 413,
  MODEL_NOT_ALLOWED: 403,
  GUEST_AI_DISABLED: 403,
  GUEST_AI_CAP: 429,
  AI_UPSTREAM_ERROR: 502,
  AI_STREAM_TRUNCATED: 502,
  MALFORMED_FRAME: 502,
  // Authoring
  NOT_AUTHENTICATED: 401,
  ORG_REQUIRED: 409,
  PUBLIC_LINKS_DISABLED: 403,
  PUBLIC_NOT_ALLOWED: 403,
  PUBLIC_LINK_OWNER_GATED: 403,
  SLUG_TAKEN: 409,
  SHARE_REVOKED: 409,
  SHARE_CONFLICT: 409,
  PUBLISH_FAILED: 502,
  UPDATE_PARTIAL: 502,
  // Policy
  POLICY_CONFLICT: 409,
  // MCP only
  INVALID_ENCODING: 400,
  // Connections: admin API, caller-side refusals, then platform failures (never an upstream answer)
  CONNECTION_EXISTS: 409,
  SECRET_KEY_MISSING: 409,
  CONNECTION_PATH_INVALID: 400,
  CONNECTION_URL_TOO_LONG: 414,
  CONNECTION_HEADERS_TOO_LARGE: 431,
  CONNECTION_DNS_FAILED: 502,
  CONNECTION_ADDRESS_REFUSED: 502,
  CONNECTION_UPSTREAM_UNREACHABLE: 502,
  CONNECTION_TLS_FAILED: 502,
  CONNECTION_TIMEOUT: 504,
  CONNECTION_REDIRECT_REFUSED: 502,
  CONNECTION_TOO_MANY_REDIRECTS: 502,
  CONNECTION_ENCODING_REFUSED: 502,
  CONNECTION_RESPONSE_TOO_LARGE: 502,
  // Easel's own
  INTERNAL: 500,
  /** A request body sent nothing for too long (src/http/body-pace.ts). */
  REQUEST_TIMEOUT: 408,
  /** Browser drafts: a deploy went live while the draft had edits; rebase or discard before publishing. */
  DRAFT_STALE: 409,
  /** The shared blob store (EASEL_BLOB_URL) did not answer or refused: the write failed whole, or the read could not be served. */
  STORAGE_UNAVAILABLE: 503,
  UNAUTHENTICATED: 401,
  /** Managing personal access tokens needs the person's own session: a token can list and revoke only itself. */
  SESSION_REQUIRED: 403,
  /** A plain request to the realtime WebSocket route. */
  UPGRADE_REQUIRED: 426,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** `error`: the Deploy API's `{error}` body; `code`: `{code, message, ...extra}`. */
export type ErrorShape = 'error' | 'code';

export class AppError extends Error {
  readonly status: number;
  readonly shape: ErrorShape;
  constructor(
    readonly errorCode: ErrorCode,
    message: string = defaultMessage(errorCode),
    readonly extra: Record<string, unknown> = {},
    options: { status?: number; shape?: ErrorShape; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.status = options.status ?? ERROR_STATUS[errorCode];
    this.shape = options.shape ?? (errorCode === errorCode.toLowerCase() ? 'error' : 'code');
    this.headers = options.headers ?? {};
  }
  readonly headers: Record<string, string>;

  /** The JSON body in the spec's shape for this error. */
  body(): Record<string, unknown> {
    // The Deploy API's `{error}` body; a few refusals add why (e.g. `reason: "owner_deactivated"`).
    if (this.shape === 'error') return { error: this.errorCode.toLowerCase(), ...this.extra };
    return { code: this.errorCode, message: this.message, ...this.extra };
  }
}

function defaultMessage(code: ErrorCode): string {
  return code.toLowerCase().replaceAll('_', ' ');
}

export const notFound = (message = 'not found') => new AppError('NOT_FOUND', message);
export const invalidBody = (message: string, extra: Record<string, unknown> = {}) => new AppError('INVALID_BODY', message, extra);

// Codes the spec answers with a status other than their usual one, named for
// the situation so no throw site overrides a status by hand.

/** A size cap, answered 413 whatever the code's usual status (the staged upload's INVALID_MANIFEST, INVALID_REQUEST…). */
export const overCap = (code: ErrorCode, message: string, extra: Record<string, unknown> = {}) =>
  new AppError(code, message, extra, { status: 413 });
/**
 * A budget that resets with time: QUOTA_EXCEEDED answered 429 with the
 * `scope` that ran out, not QUOTA_EXCEEDED's usual 409 (storage quotas stay
 * full until something is deleted). AI and authoring, per the spec's table.
 */
const budgetSpent = (message: string, scope: string) => new AppError('QUOTA_EXCEEDED', message, { scope }, { status: 429 });
export const aiBudgetSpent = (message: string, scope: 'user_daily' | 'canvas_monthly') => budgetSpent(message, scope);
/** The authoring quota (spec Limits / Authoring). */
export const authoringQuotaSpent = (scope: 'user_daily' | 'user_total', max: number) =>
  budgetSpent(`authoring quota reached: ${max} ${scope === 'user_daily' ? 'canvases a day' : 'canvases in all'}`, scope);
/** Authoring on an admin-disabled canvas: 409 here, 403 in the shared pipeline (spec Errors / Authoring). */
export const disabledShare = () => new AppError('DISABLED', 'this canvas was disabled by an administrator', {}, { status: 409 });
/** A valid canvas key used on another canvas's route. */
export const keyOfAnotherCanvas = () => new AppError('unauthorized', 'key belongs to another canvas', {}, { status: 403 });
/** OIDC sign-in: a browser without a session is sent to sign in rather than refused. */
export const signInFirst = () => new AppError('unauthorized', 'sign in first', {}, { status: 302, headers: { location: '/auth/login' } });
/** Rollback to a version that is not kept (or never was): the path names nothing. */
export const noSuchVersion = (message: string) => new AppError('INVALID_PATH', message, {}, { status: 404 });
/** A GET on the realtime route that asks to upgrade but is not a well-formed handshake. */
export const malformedHandshake = () => new AppError('UPGRADE_REQUIRED', 'the WebSocket handshake is malformed', {}, { status: 400 });
