/** Headers whose value is a comma-separated list: adding to them keeps what the response already says. */
const LIST_HEADERS = new Set(['vary', 'access-control-expose-headers']);

/**
 * Adds headers to a response a handler built (the runtime pipeline's CORS headers): list headers (Vary,
 * Access-Control-Expose-Headers) are merged with the response's own, any
 * other header is set.
 */
export function addHeaders(target: Headers, extra: Record<string, string>): void {
  for (const [name, value] of Object.entries(extra)) {
    const current = LIST_HEADERS.has(name) ? target.get(name) : null;
    target.set(name, current ? mergeList(current, value) : value);
  }
}

function mergeList(current: string, extra: string): string {
  const items = current
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const seen = new Set(items.map((s) => s.toLowerCase()));
  if (seen.has('*')) return current;
  for (const item of extra.split(',').map((s) => s.trim())) {
    if (item !== '' && !seen.has(item.toLowerCase())) {
      seen.add(item.toLowerCase());
      items.push(item);
    }
  }
  return items.join(', ');
}
