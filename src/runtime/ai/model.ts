import type { AiMessage, AiUsage } from '../../../sdk/wire.ts';
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

const FIELDS = new Set(['model', 'messages', 'system', 'maxTokens']);

const invalid = (message: string) => new AppError('INVALID_BODY', message);

/**
 * Parses and validates the JSON body. Unknown top-level fields are refused
 * (a caller asking for temperature or tools must not think it got them);
 * extra fields on a message are ignored, so an app can pass its own chat
 * history objects through.
 */
export function parseChatRequest(text: string): ChatRequest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw invalid('the body must be a JSON object');
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalid('the body must be a JSON object');
  const body = raw as Record<string, unknown>;
  for (const key of Object.keys(body)) {
    if (!FIELDS.has(key)) throw invalid(`unknown field "${key}": only model, messages, system and maxTokens are accepted`);
  }
  if (typeof body.model !== 'string' || body.model.trim() === '') throw invalid('model is required (a string)');
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw invalid('messages must be a non-empty array');
  const messages = body.messages.map((m, i) => messageOf(m, i));
  if (messages.every((m) => isBlank(m.content))) throw invalid('at least one message must have content (not only whitespace)');
  if (body.system !== undefined && body.system !== null && typeof body.system !== 'string') throw invalid('system must be a string');
  return {
    model: body.model,
    messages,
    system: typeof body.system === 'string' ? body.system : '',
    maxTokens: maxTokensOf(body.maxTokens),
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

function messageOf(m: unknown, i: number): ChatMessage {
  if (typeof m !== 'object' || m === null || Array.isArray(m)) throw invalid(`messages[${i}] must be an object {role, content}`);
  const { role, content } = m as Record<string, unknown>;
  if (role !== 'user' && role !== 'assistant') throw invalid(`messages[${i}].role must be "user" or "assistant"`);
  if (typeof content !== 'string') throw invalid(`messages[${i}].content must be a string`);
  return { role, content };
}

function maxTokensOf(v: unknown): number {
  if (v === undefined || v === null) return AI_LIMITS.defaultMaxTokens;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw invalid('maxTokens must be a positive integer');
  return Math.min(v, AI_LIMITS.maxTokensCap);
}
