import type { ChatRequest } from './model.ts';

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
 * will send again). Empty messages are left out: the provider refuses empty
 * text blocks.
 */
export function providerParams(request: ChatRequest): ProviderParams {
  const newestUser = request.messages.findLastIndex((m) => m.role === 'user');
  let breakpoint = -1;
  for (let i = newestUser - 1; i >= 0; i--) {
    if (request.messages[i]!.content !== '') {
      breakpoint = i;
      break;
    }
  }
  const messages: ProviderParams['messages'] = [];
  request.messages.forEach((m, i) => {
    if (m.content === '') return;
    messages.push(i === breakpoint ? { role: m.role, content: [{ type: 'text', text: m.content, cache_control: EPHEMERAL }] } : { role: m.role, content: m.content });
  });
  return {
    model: request.model,
    max_tokens: request.maxTokens,
    ...(request.system !== '' ? { system: [{ type: 'text', text: request.system, cache_control: EPHEMERAL }] } : {}),
    messages,
    stream: true,
  };
}
