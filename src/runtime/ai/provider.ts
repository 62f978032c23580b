import Anthropic, { APIConnectionError, APIError } from '@anthropic-ai/sdk';
import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import type { Stream } from '@anthropic-ai/sdk/streaming';
import type { Logger } from '../../log.ts';
import type { ProviderParams } from './prompt.ts';

export type ProviderEvent = RawMessageStreamEvent;

/** How the provider call failed: whether trying again may help, and how long it asked us to wait. */
export interface ProviderFailure {
  transient: boolean;
  retryAfterMs: number | null;
  /** Safe to show to the canvas: no key, no request content. */
  message: string;
}

/** Opens one streaming Messages call; the stream ends silently when `signal` aborts. */
export type OpenStream = (
  params: ProviderParams,
  apiKey: string,
  options: { signal: AbortSignal; timeoutMs: number },
) => Promise<AsyncIterable<ProviderEvent>>;

export const DEFAULT_BASE_URL = 'https://api.anthropic.com';

/**
 * The Anthropic client, through the official SDK. The SDK's own retries are
 * off: the chat runner retries itself, and only until a delta has been
 * sent. The key is read per call (admins can change it at runtime); a client
 * is kept per key so connections are reused.
 */
export function anthropicOpener(baseUrl: string | null, log: Logger): OpenStream {
  let cached: { key: string; client: Anthropic } | null = null;
  const clientFor = (apiKey: string) => {
    if (cached?.key !== apiKey) {
      cached = {
        key: apiKey,
        client: new Anthropic({
          apiKey,
          // Explicit, so ANTHROPIC_BASE_URL / ANTHROPIC_AUTH_TOKEN in the environment cannot redirect our calls.
          baseURL: baseUrl ?? DEFAULT_BASE_URL,
          authToken: null,
          maxRetries: 0,
          logLevel: 'warn',
          logger: sdkLogger(log),
        }),
      };
    }
    return cached.client;
  };
  // The low-level post rather than messages.create: create writes model-deprecation notices straight to
  // console.warn on every call, which would break our one-JSON-line-per-event log.
  return async (params, apiKey, { signal, timeoutMs }) =>
    clientFor(apiKey).post<Stream<ProviderEvent>>('/v1/messages', { body: params, stream: true, signal, timeout: timeoutMs });
}

/** Only the SDK's message text reaches our log (its extra arguments may carry request details). */
function sdkLogger(log: Logger) {
  const line = (level: 'debug' | 'info' | 'warn' | 'error') => (message: unknown) =>
    log[level]('anthropic sdk', { message: String(message) });
  return { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
}

/** Transient: connection trouble, 408, 409, 429, 5xx (529 overloaded included), an overloaded/api error event, a stall. */
export function classifyFailure(err: unknown): ProviderFailure {
  if (err instanceof APIConnectionError) {
    return { transient: true, retryAfterMs: null, message: 'could not reach the AI provider' };
  }
  if (err instanceof APIError) {
    const status = typeof err.status === 'number' ? err.status : null;
    const type = err.type ?? null;
    const transient =
      status !== null
        ? status === 408 || status === 409 || status === 429 || status >= 500
        : type === 'overloaded_error' || type === 'api_error' || type === 'rate_limit_error' || type === 'timeout_error';
    const detail = err.apiMessage ? `: ${err.apiMessage}` : '';
    const what = status !== null ? `HTTP ${status}` : (type ?? 'error');
    return { transient, retryAfterMs: retryAfterOf(err.headers), message: `the AI provider failed (${what})${detail}` };
  }
  if (err instanceof ProviderStall) return { transient: true, retryAfterMs: null, message: err.message };
  // A frame the SDK could not parse: asking again will not help.
  if (err instanceof SyntaxError) return { transient: false, retryAfterMs: null, message: 'the AI provider sent an unreadable answer' };
  // Reading the body is outside the SDK's error wrapping: a reset connection arrives as a plain error (ECONNRESET).
  return { transient: true, retryAfterMs: null, message: 'the connection to the AI provider broke' };
}

/** The provider went silent for too long, or ended its stream before the answer was complete. */
export class ProviderStall extends Error {}

function retryAfterOf(headers: Headers | undefined | null): number | null {
  if (!headers || typeof headers.get !== 'function') return null;
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const s = Number.parseFloat(headers.get('retry-after') ?? '');
  if (Number.isFinite(s) && s >= 0) return s * 1000;
  return null;
}
