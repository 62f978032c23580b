// How long a request body may take. Bun 1.4's idleTimeout is not reset by
// body bytes: measured, any body still arriving after the idle timeout is
// cut, at 10 KB/s or at 20 MB/s alike, so a 100 MB deploy over a link slower
// than ~1.7 MB/s failed at 60 s. A request with a body is therefore taken off
// Bun's timer and held to a stall rule instead: it may take as long as it
// needs while bytes keep coming, and is cut when none arrive for
// `stallMs` (a slow-loris body then holds a connection that long at most).
import type { Server } from 'bun';
import { AppError } from '../errors.ts';

/** A body that sends nothing for this long is cut (documented in the README's "Timeouts"). */
export const BODY_STALL_MS = 30_000;

/**
 * After the answer: a body the handler left unread (an early refusal) is
 * drained for this long at most, so the client, which may be streaming it
 * without waiting for `100 Continue`, reads the refusal before the connection
 * closes; then the connection goes.
 */
export const UNREAD_BODY_DRAIN_S = 4;

export interface PacedRequest {
  request: Request;
  /** Call once the answer is made: an unread body puts the connection back on a short timer. */
  settle(): void;
}

/**
 * `request` with its body read under the stall rule (headers, method, URL and
 * signal are the original's), or `request` itself when it has no body.
 */
export function pacedRequest(request: Request, server: Server<unknown>, stallMs: number, onStall: () => void): PacedRequest {
  const source = request.body;
  if (source === null) return { request, settle() {} };
  server.timeout(request, 0);
  let finished = false;
  const reader = source.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let timer: Timer | undefined;
      const stalled = new Promise<'stalled'>((resolve) => (timer = setTimeout(() => resolve('stalled'), stallMs)));
      try {
        const next = await Promise.race([reader.read(), stalled]);
        if (next === 'stalled') {
          finished = true;
          onStall();
          // The connection goes too: Bun's timer, armed again, closes it within its next tick.
          server.timeout(request, 1);
          void reader.cancel().catch(() => {});
          controller.error(new AppError('REQUEST_TIMEOUT', `the request body stalled: no bytes for ${Math.round(stallMs / 1000)} s`));
          return;
        }
        if (next.done) {
          finished = true;
          controller.close();
        } else controller.enqueue(next.value);
      } catch (err) {
        finished = true;
        controller.error(err);
      } finally {
        clearTimeout(timer);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return {
    request: new Request(request, { body, duplex: 'half' } as RequestInit),
    settle() {
      if (!finished) server.timeout(request, UNREAD_BODY_DRAIN_S);
    },
  };
}
