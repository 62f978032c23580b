import type { AiMessage, AiUsage } from '../../../sdk/wire.ts';
import { Type, type Static } from '@sinclair/typebox';
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
