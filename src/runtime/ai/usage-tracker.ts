import type { ChatUsage } from './model.ts';
import type { ProviderEvent } from './provider.ts';

/**
 * Follows the provider's events: the text, and the usage as the protocol
 * reports it (message_start: input and cache counts, message_delta: the
 * final output count). The provider's input_tokens is the uncached
 * remainder; ours is the total, both cache counts included.
 */
export class UsageTracker {
  private input = 0;
  private cacheCreation = 0;
  private cacheRead = 0;
  private output = 0;
  private chars = 0;
  /** message_delta brought the usage report. */
  final = false;
  /** The text is over (content_block_stop) and no block is open. */
  contentEnded = false;

  get awaitingUsage(): boolean {
    return this.contentEnded && !this.final;
  }

  /** Notes one event; returns the text to forward, if any. */
  take(ev: ProviderEvent): string | null {
    switch (ev.type) {
      case 'message_start': {
        const u = ev.message.usage;
        this.input = u.input_tokens ?? 0;
        this.cacheCreation = u.cache_creation_input_tokens ?? 0;
        this.cacheRead = u.cache_read_input_tokens ?? 0;
        this.output = u.output_tokens ?? 0;
        return null;
      }
      case 'content_block_start':
        this.contentEnded = false;
        return null;
      case 'content_block_delta':
        if (ev.delta.type !== 'text_delta' || !ev.delta.text) return null;
        this.chars += ev.delta.text.length;
        return ev.delta.text;
      case 'content_block_stop':
        this.contentEnded = true;
        return null;
      case 'message_delta': {
        const u = ev.usage as
          | {
              output_tokens?: number | null;
              input_tokens?: number | null;
              cache_creation_input_tokens?: number | null;
              cache_read_input_tokens?: number | null;
            }
          | null
          | undefined;
        if (u && typeof u.output_tokens === 'number') {
          this.output = u.output_tokens;
          // Newer API versions repeat the (cumulative) input counts here.
          if (typeof u.input_tokens === 'number') this.input = u.input_tokens;
          if (typeof u.cache_creation_input_tokens === 'number') this.cacheCreation = u.cache_creation_input_tokens;
          if (typeof u.cache_read_input_tokens === 'number') this.cacheRead = u.cache_read_input_tokens;
          this.final = true;
        }
        return null;
      }
      default:
        return null;
    }
  }

  usage(): ChatUsage {
    return {
      inputTokens: this.input + this.cacheCreation + this.cacheRead,
      outputTokens: this.output,
      cacheCreationInputTokens: this.cacheCreation,
      cacheReadInputTokens: this.cacheRead,
    };
  }

  /**
   * What an interrupted call cost as far as we know: the input reported at
   * the start, and for output the larger of the reported count and an
   * estimate from the text already streamed (about four characters a token),
   * so aborting before the usage report does not make output free.
   */
  partial(): ChatUsage {
    const u = this.usage();
    return this.final ? u : { ...u, outputTokens: Math.max(u.outputTokens, Math.ceil(this.chars / 4)) };
  }
}
