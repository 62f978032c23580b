/**
 * A stored JSON value that is a number, as a number; null for anything else
 * (null, strings, objects, bad JSON). KV keys and collection records are
 * incremented through this.
 */
export function storedNumber(text: string): number | null {
  if (!/^\s*-?\d/.test(text)) return null; // not a number: no need to parse a large object
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'number' ? value : null;
  } catch {
    return null;
  }
}
