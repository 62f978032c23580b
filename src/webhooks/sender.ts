// One delivery attempt: the signed JSON POST to the hook's URL, under the
// Connections egress rules (src/connections/upstream.ts: names resolved and
// checked by us, private addresses refused unless pinned with
// EASEL_CONNECTIONS_RESOLVE, TLS checked against the URL's host name), no
// redirect followed, a deadline, and the answer's body read under a small cap.
import { createHmac } from 'node:crypto';
import { AppError } from '../errors.ts';
import { sendUpstream, type EgressDeps } from '../connections/upstream.ts';

/** A receiver has this long to answer. */
export const DELIVERY_TIMEOUT_MS = 10_000;
const MAX_ANSWER_BYTES = 64 * 1024;

export interface SignedRequest {
  body: string;
  headers: Headers;
}

/** `sha256=<hex HMAC-SHA256(secret, "{timestamp}.{body}")>` (CONTRACT §9, tranche 3). */
export function signature(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export function signedRequest(secret: string, deliveryId: string, event: string, body: string, nowMs: number): SignedRequest {
  const timestamp = Math.floor(nowMs / 1000);
  const headers = new Headers({
    'content-type': 'application/json',
    'user-agent': 'Easel-Webhooks/1',
    'x-easel-event': event,
    'x-easel-delivery': deliveryId,
    'x-easel-timestamp': String(timestamp),
    'x-easel-signature': signature(secret, timestamp, body),
  });
  return { body, headers };
}

export type AttemptOutcome =
  { ok: true; httpStatus: number; durationMs: number } | { ok: false; httpStatus: number | null; durationMs: number; error: string };

/** `durationMs` is measured on the monotonic clock (the app's may be a test's, standing still). */
export async function attempt(egress: EgressDeps, url: string, request: SignedRequest): Promise<AttemptOutcome> {
  const target = new URL(url);
  const started = performance.now();
  const signal = AbortSignal.timeout(DELIVERY_TIMEOUT_MS);
  try {
    const answer = await sendUpstream(
      egress,
      {
        origin: target.origin,
        method: 'POST',
        target: target.pathname + target.search,
        headers: request.headers,
        body: new TextEncoder().encode(request.body),
      },
      // A redirect is a failure, never followed: the receiver is the URL the owner gave.
      { maxRedirects: 0, maxResponseBytes: MAX_ANSWER_BYTES },
      signal,
    );
    const durationMs = Math.round(performance.now() - started);
    if (answer.status >= 200 && answer.status < 300) return { ok: true, httpStatus: answer.status, durationMs };
    return { ok: false, httpStatus: answer.status, durationMs, error: `the receiver answered ${answer.status}` };
  } catch (err) {
    const durationMs = Math.round(performance.now() - started);
    if (signal.aborted)
      return { ok: false, httpStatus: null, durationMs, error: `the receiver did not answer within ${DELIVERY_TIMEOUT_MS / 1000} s` };
    const error = err instanceof AppError ? `${err.errorCode}: ${err.message}` : 'the delivery failed';
    return { ok: false, httpStatus: null, durationMs, error };
  }
}
