// Parsing JSON text from a request. JSON.parse takes any depth, but the
// value then goes through JSON.stringify, TypeBox and the store, which
// recurse and overflow the stack on values nested some thousands deep (a
// 500 for a few kilobytes of `[[[[…`). Nothing a canvas stores needs more
// than a few levels, so every body is held to MAX_JSON_DEPTH before parsing.

/** How deeply arrays and objects may nest in any JSON body. */
export const MAX_JSON_DEPTH = 64;

export type JsonTextProblem = 'not_json' | 'too_deep';

/** The parsed value, or why not: too deep (checked first, without parsing) or not JSON at all. */
export function parseJsonText(
  text: string,
  maxDepth = MAX_JSON_DEPTH,
): { ok: true; value: unknown } | { ok: false; problem: JsonTextProblem } {
  if (nestsDeeperThan(text, maxDepth)) return { ok: false, problem: 'too_deep' };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, problem: 'not_json' };
  }
}

/** The message for a body nested too deeply. */
export const TOO_DEEP_MESSAGE = `body: nested more than ${MAX_JSON_DEPTH} levels deep`;

/** One pass over the text counting open brackets outside strings; malformed text is left to JSON.parse. */
function nestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      // A backslash escapes the next character (an escaped quote does not end the string).
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
