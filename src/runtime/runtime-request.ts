/** A runtime JSON answer: never cached (it depends on who asks). */
export function runtimeJson(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return runtimeRaw(status, JSON.stringify(body), headers);
}

/** A JSON body already serialized (KV values are stored as JSON text and sent as is). */
export function runtimeRaw(status: number, jsonText: string, headers: Record<string, string> = {}): Response {
  return new Response(jsonText, {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'private, no-store', ...headers },
  });
}

/** A percent-encoded path segment decoded, or null when its escapes are malformed. */
export function safeDecode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
