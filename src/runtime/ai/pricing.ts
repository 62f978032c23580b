import type { ModelPrice } from '../../settings/service.ts';
import type { ChatRequest, ChatUsage } from './model.ts';

const PER_TOKEN = 1 / 1_000_000;
/** Cache writes cost 1.25 times the input rate, cache reads 0.1 times (the spec's AI rule 4). */
export const CACHE_WRITE_FACTOR = 1.25;
export const CACHE_READ_FACTOR = 0.1;

/** A price entry usable for billing: both rates finite and not negative. */
export function validPrice(price: ModelPrice | undefined): price is ModelPrice {
  return (
    price !== undefined &&
    typeof price.input === 'number' &&
    typeof price.output === 'number' &&
    Number.isFinite(price.input) &&
    Number.isFinite(price.output) &&
    price.input >= 0 &&
    price.output >= 0
  );
}

/**
 * USD for one call. `usage.inputTokens` is the total input, so the uncached
 * remainder is what is left after both cache counts. Rounded to a billionth
 * of a dollar so sums compare cleanly against caps.
 */
export function costOf(usage: ChatUsage, price: ModelPrice): number {
  const cached = usage.cacheCreationInputTokens + usage.cacheReadInputTokens;
  const plain = Math.max(0, usage.inputTokens - cached);
  const usd =
    plain * price.input * PER_TOKEN +
    usage.cacheCreationInputTokens * CACHE_WRITE_FACTOR * price.input * PER_TOKEN +
    usage.cacheReadInputTokens * CACHE_READ_FACTOR * price.input * PER_TOKEN +
    usage.outputTokens * price.output * PER_TOKEN;
  return roundUsd(usd);
}

export function roundUsd(usd: number): number {
  return Math.round(usd * 1e9) / 1e9;
}

/**
 * An upper bound of what a call can cost, held against the caps while it
 * runs so concurrent calls cannot all start on the same remaining budget.
 * Input: at most one token per two UTF-8 bytes (real text averages about
 * four), all of it priced as a cache write; output: every allowed token.
 */
export function reservationOf(request: ChatRequest, price: ModelPrice): number {
  let bytes = Buffer.byteLength(request.system);
  for (const m of request.messages) bytes += Buffer.byteLength(m.content) + 8;
  const inputTokens = Math.ceil(bytes / 2) + 16;
  return roundUsd(inputTokens * CACHE_WRITE_FACTOR * price.input * PER_TOKEN + request.maxTokens * price.output * PER_TOKEN);
}
