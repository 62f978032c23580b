import type { AiMessage, AiUsage } from '../../../sdk/wire.ts';
import { Type, type Static, type TProperties, type TSchema } from '@sinclair/typebox';
import { AppError } from '../../errors.ts';

/** The spec's AI limits. */
export const AI_LIMITS = {
  /** Request body cap (256 KiB): 413 BODY_TOO_LARGE. */
  bodyBytes: 256 * 1024,
  defaultMaxTokens: 1024,
  /** Larger requests are clamped, not refused. */
  maxTokensCap: 8192,
} as const;

export type ChatMessage = AiMessage;
export type ChatRole = ChatMessage['role'];

/** A validated /ai/chat request (maxTokens already defaulted and clamped). */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  system: string;
  maxTokens: number;
}

/** The usage reported on `done` and recorded per call. inputTokens is the total input, both cache counts included. */
export type ChatUsage = AiUsage;

export const ZERO_USAGE: ChatUsage = { inputTokens: 0, outputTokens: 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 };

/**
 * The /ai/chat body. Unknown top-level fields are refused (a caller asking
 * for temperature or tools must not think it got them); extra fields on a
 * message are allowed and dropped, so an app can pass its own chat history
 * objects through.
 */
export const ChatBody = Type.Object(
  {
    model: Type.String({ minLength: 1 }),
    messages: Type.Array(Type.Object({ role: Type.Union([Type.Literal('user'), Type.Literal('assistant')]), content: Type.String() }), {
      minItems: 1,
    }),
    system: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    maxTokens: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type ChatBody = Static<typeof ChatBody>;

/** The checks a schema cannot say, and the defaults: a request ready for the service. */
export function chatRequestOf(body: ChatBody): ChatRequest {
  if (body.model.trim() === '') throw new AppError('INVALID_BODY', 'model: expected a non-blank string');
  const messages = body.messages.map(({ role, content }) => ({ role, content }));
  if (messages.every((m) => isBlank(m.content)))
    throw new AppError('INVALID_BODY', 'at least one message must have content (not only whitespace)');
  return {
    model: body.model,
    messages,
    system: body.system ?? '',
    maxTokens: Math.min(body.maxTokens ?? AI_LIMITS.defaultMaxTokens, AI_LIMITS.maxTokensCap),
  };
}

/**
 * Text with nothing but whitespace counts as empty: such a message is not
 * sent (the provider refuses whitespace-only text blocks), gets no cache
 * breakpoint, and a blank system prompt is left out.
 */
export function isBlank(text: string): boolean {
  return text.trim() === '';
}

// The AI spend reports (GET /api/canvases/:id/ai-usage, GET /api/admin/ai-usage): usage-report.ts builds them.

const SpendTotals = {
  calls: Type.Integer(),
  inputTokens: Type.Integer(),
  outputTokens: Type.Integer(),
  cacheCreationInputTokens: Type.Integer(),
  cacheReadInputTokens: Type.Integer(),
  costUsd: Type.Number(),
};

const nullable = <S extends TSchema>(schema: S) => Type.Union([schema, Type.Null()]);

/** `from`/`to`: inclusive UTC days; the default is the current month so far. */
export const UsageRangeQuery = Type.Object({
  from: Type.Optional(Type.String({ description: 'first UTC day, yyyy-mm-dd (default: the first of this month)' })),
  to: Type.Optional(Type.String({ description: 'last UTC day, yyyy-mm-dd (default: today)' })),
});

const usageReport = <Extra extends TProperties>(userExtra: Extra) => ({
  from: Type.String(),
  to: Type.String(),
  totals: Type.Object(SpendTotals),
  byDay: Type.Array(Type.Object({ day: Type.String(), ...SpendTotals })),
  byModel: Type.Array(Type.Object({ model: Type.String(), ...SpendTotals })),
  byUser: Type.Array(
    Type.Object({
      actorId: Type.String(),
      actorKind: Type.Union([Type.Literal('member'), Type.Literal('guest')]),
      name: nullable(Type.String()),
      ...userExtra,
      ...SpendTotals,
    }),
  ),
  inFlight: Type.Object(
    { calls: Type.Integer(), reservedUsd: Type.Number() },
    { description: 'calls still running: their reservations count against the caps until they settle' },
  ),
});

export const CanvasAiUsage = Type.Object({
  canvasId: Type.String(),
  ...usageReport({}),
  budget: Type.Object(
    {
      month: Type.String(),
      capUsd: Type.Number(),
      spentUsd: Type.Number(),
      guestCapUsd: Type.Number({ description: '0: no guest cap' }),
      guestSpentUsd: Type.Number(),
    },
    { description: 'this month against the caps, settled plus running' },
  ),
});

export const InstanceAiUsage = Type.Object({
  ...usageReport({ email: Type.Optional(nullable(Type.String({ description: "a member's email (null for a guest)" }))) }),
  byCanvas: Type.Array(
    Type.Object({ canvasId: Type.String(), slug: nullable(Type.String()), title: nullable(Type.String()), ...SpendTotals }),
  ),
  caps: Type.Object({ userDailyUsd: Type.Number(), canvasMonthlyUsd: Type.Number() }),
});
