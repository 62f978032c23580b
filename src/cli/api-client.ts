// The Deploy API as the CLI calls it: Bearer key, JSON answers, and retries
// for what is worth retrying (429 after Retry-After; network errors, 5xx and
// a finalize still in progress with exponential backoff), five tries at most.

export const MAX_TRIES = 5;
const BACKOFF_BASE_MS = 250;
/** Never sleep longer than this on one Retry-After, whatever the server says. */
const RETRY_AFTER_MAX_S = 120;

/** A refusal from the server (or the network), with the code clients branch on. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly body: Record<string, unknown> | null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ApiReply {
  status: number;
  body: Record<string, unknown> | null;
  /** Retry-After in ms (capped), when the server sent one. */
  retryAfterMs: number | null;
}

export interface SendOptions {
  method: string;
  path: string;
  /** Called once per try: a fresh body each time (a Bun.file can be sent again). */
  body?: () => BodyInit | null;
  contentType?: string;
  /** Told about every retry, for the progress output. */
  onRetry?: (why: string, waitMs: number) => void;
}

export class DeployApi {
  constructor(
    readonly base: string,
    private readonly key: string,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => Bun.sleep(ms),
  ) {}

  /** Sends with retries; resolves with a 2xx reply, rejects with ApiError. */
  async send(opts: SendOptions): Promise<ApiReply> {
    for (let attempt = 1; ; attempt++) {
      let reply: ApiReply;
      try {
        reply = await this.once(opts);
      } catch (err) {
        const why = `network error: ${err instanceof Error ? err.message : String(err)}`;
        if (attempt >= MAX_TRIES) throw new ApiError('NETWORK_ERROR', `cannot reach ${this.base} (${why})`, 0, null);
        await this.wait(opts, why, backoff(attempt));
        continue;
      }
      if (reply.status < 300) return reply;
      const error = toApiError(reply);
      const retryAfter = reply.status === 429 ? (reply.retryAfterMs ?? 1000) : null;
      const transient = reply.status >= 500 || error.code === 'UPLOAD_IN_PROGRESS';
      if (attempt >= MAX_TRIES || (retryAfter === null && !transient)) throw error;
      await this.wait(opts, `${reply.status} ${error.code}`, retryAfter ?? backoff(attempt));
    }
  }

  private async once(opts: SendOptions): Promise<ApiReply> {
    // No credential at all for the sign-in exchange (it carries its own proof).
    const headers: Record<string, string> = this.key ? { authorization: `Bearer ${this.key}` } : {};
    if (opts.contentType) headers['content-type'] = opts.contentType;
    const res = await fetch(this.base + opts.path, { method: opts.method, headers, body: opts.body?.() ?? null, redirect: 'manual' });
    const body = objectBody(await res.text());
    const after = res.headers.get('retry-after')?.trim();
    const retryAfterMs = after && /^\d+$/.test(after) ? Math.min(Number(after), RETRY_AFTER_MAX_S) * 1000 : null;
    return { status: res.status, body, retryAfterMs };
  }

  private async wait(opts: SendOptions, why: string, ms: number): Promise<void> {
    opts.onRetry?.(why, ms);
    await this.sleep(ms);
  }
}

/** A JSON object answer, or null for anything else (empty, not JSON, an array). */
export function objectBody(text: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = text === '' ? null : JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function backoff(attempt: number): number {
  // 250 ms, 500 ms, 1 s, 2 s, with a little jitter so parallel uploads do not retry in lockstep.
  return BACKOFF_BASE_MS * 2 ** (attempt - 1) * (0.8 + Math.random() * 0.4);
}

/** `{code, message}` and `{error}` bodies both become an ApiError; anything else names the status. */
export function toApiError(reply: ApiReply): ApiError {
  const b = reply.body;
  if (b && typeof b.code === 'string') return new ApiError(b.code, typeof b.message === 'string' ? b.message : b.code, reply.status, b);
  if (b && typeof b.error === 'string') return new ApiError(b.error, describeError(b.error), reply.status, b);
  return new ApiError(`HTTP_${reply.status}`, `unexpected answer ${reply.status} from the server`, reply.status, b);
}

function describeError(error: string): string {
  if (error === 'unauthorized')
    return 'the credential was refused (check EASEL_CANVAS_KEY and --canvas, or sign in again with easel login)';
  if (error === 'rate_limited') return 'too many deploys for this canvas; try again in a minute';
  if (error === 'invalid_body') return 'the server refused the request body';
  return error;
}
