import { isBlank, type ChatRequest } from './model.ts';

type CacheControl = { type: 'ephemeral' };
type TextBlock = { type: 'text'; text: string; cache_control?: CacheControl };

/** The Messages API request body (streaming) for one chat request. */
export interface ProviderParams {
  model: string;
  max_tokens: number;
  system?: TextBlock[];
  messages: Array<{ role: 'user' | 'assistant'; content: string | TextBlock[] }>;
  stream: true;
}

const EPHEMERAL: CacheControl = { type: 'ephemeral' };

/**
 * Builds the provider request with the spec's prompt-cache breakpoints: on
 * the system prompt when it is non-empty, and on the last non-empty message
 * before the newest user turn (the conversation so far, which the next turn
 * will send again). Empty and whitespace-only messages are left out (the
 * provider refuses blank text blocks), so they neither count as the newest
 * user turn nor carry a breakpoint; a blank system prompt is not sent.
 */
export function providerParams(request: ChatRequest): ProviderParams {
  const newestUser = request.messages.findLastIndex((m) => m.role === 'user' && !isBlank(m.content));
  let breakpoint = -1;
  for (let i = newestUser - 1; i >= 0; i--) {
    if (!isBlank(request.messages[i]!.content)) {
      breakpoint = i;
      break;
    }
  }
  const messages: ProviderParams['messages'] = [];
  request.messages.forEach((m, i) => {
    if (isBlank(m.content)) return;
    messages.push(
      i === breakpoint
        ? { role: m.role, content: [{ type: 'text', text: m.content, cache_control: EPHEMERAL }] }
        : { role: m.role, content: m.content },
    );
  });
  return {
    model: request.model,
    max_tokens: request.maxTokens,
    ...(!isBlank(request.system) ? { system: [{ type: 'text', text: request.system, cache_control: EPHEMERAL }] } : {}),
    messages,
    stream: true,
  };
}
