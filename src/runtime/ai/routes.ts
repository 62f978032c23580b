import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { declaredRoutes } from '../../http/declared-route.ts';
import type { AuthKinds } from '../../server/auth-kinds.ts';
import { runtimeRoute } from '../door-routes.ts';
import type { RuntimeCaller } from '../pipeline.ts';
import { chatEvents, type StreamEvent } from './chat-run.ts';
import type { AiFeature } from './feature.ts';
import { AI_LIMITS, ChatBody, chatRequestOf } from './model.ts';

const encoder = new TextEncoder();
const frame = (event: StreamEvent) => encoder.encode(`data: ${JSON.stringify(event)}\n\n`);

/**
 * POST /v1/c/{slug}/ai/chat. The pipeline runs its steps 1–4 (ai rate
 * class); the capability gate is not run there because the AI list puts
 * CAPABILITY_DISABLED after the body, model, guest and quota checks
 * (CONTRACT §9), so the service runs it in that place.
 */
export function aiRoutes(ctx: Pick<AppContext, 'events' | 'log'>, auth: AuthKinds, ai: AiFeature) {
  const chat = async (request: Request, caller: RuntimeCaller, asked: ChatBody): Promise<Response> => {
    const admission = await ai.service.admit(caller, chatRequestOf(asked));

    // Our own signal: the client going away (request.signal) or the response stream being cancelled.
    const abort = new AbortController();
    // The run may be waiting at a yield for a reader who is gone (a delta queued, no pull under way): aborting
    // its provider call does not wake it, so it is closed too (after any next() in flight), and settles.
    // Shutdown stops a run the same way.
    const stopRun = () => {
      abort.abort();
      events.return(undefined).catch(() => {});
    };
    request.signal.addEventListener('abort', stopRun, { once: true });
    const finished = ai.track(stopRun);
    const events: AsyncGenerator<StreamEvent, void, void> = tracked(
      chatEvents({ service: ai.service, open: ai.open, tuning: ai.tuning, log: ctx.log }, admission, abort.signal),
      () => {
        finished();
        ctx.events.emit('ai.call-finished', { callId: admission.callId, canvasId: admission.canvasId });
      },
    );
    // Nothing is sent before the first delta: a provider that fails until then is a plain 502.
    let first: IteratorResult<StreamEvent, void>;
    try {
      first = await events.next();
    } catch (err) {
      request.signal.removeEventListener('abort', stopRun);
      throw err;
    }
    const close = (c: ReadableStreamDefaultController<Uint8Array>) => {
      request.signal.removeEventListener('abort', stopRun);
      c.close();
    };
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        if (first.done) close(c);
        else c.enqueue(frame(first.value));
      },
      async pull(c) {
        try {
          const next = await events.next();
          if (next.done) close(c);
          else c.enqueue(frame(next.value));
        } catch (err) {
          ctx.log.error('ai stream failed', { callId: admission.callId, error: err instanceof Error ? err.message : String(err) });
          c.error(err);
        }
      },
      cancel() {
        abort.abort();
        events.return(undefined).catch(() => {});
      },
    });
    return new Response(body, {
      status: 200,
      headers: { 'content-type': 'text/event-stream', 'cache-control': 'private, no-store', 'x-accel-buffering': 'no' },
    });
  };

  return declaredRoutes('runtime-ai', auth, [
    runtimeRoute(
      {
        method: 'POST',
        path: '/v1/c/:slug/ai/chat',
        doorOption: { capability: 'ai', rateClass: 'ai', skipCapability: true },
        summary: 'Stream an AI answer (server-sent events: delta, done, error)',
        body: ChatBody,
        bodyOptions: {
          maxBytes: AI_LIMITS.bodyBytes,
          jsonTypeOnly: false,
          tooLarge: () => new AppError('BODY_TOO_LARGE', 'the request body is over 256 KiB'),
        },
        answer: {
          contentType: 'text/event-stream',
          description: 'data: {"type":"delta","text":…} … data: {"type":"done","usage":…,"cost":…}',
        },
        errors: [
          'INVALID_BODY',
          'BODY_TOO_LARGE',
          'PERMISSION_DENIED',
          'MODEL_NOT_ALLOWED',
          'GUEST_AI_DISABLED',
          'GUEST_AI_CAP',
          'QUOTA_EXCEEDED',
          'AI_UPSTREAM_ERROR',
        ],
      },
      ({ caller, request, body }) => chat(request, caller, body),
    ),
  ]);
}

/** Passes the events through and reports when the run is over, however it ends. */
async function* tracked<T>(events: AsyncGenerator<T, void, void>, finished: () => void): AsyncGenerator<T, void, void> {
  try {
    yield* events;
  } finally {
    finished();
  }
}
