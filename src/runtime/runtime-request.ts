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

/** The path below `/v1/c/{slug}/{feature}` as raw (still percent-encoded) segments. */
export function rawSegments(request: Request, feature: string): { slug: string; rest: string } {
  const url = request.url;
  const pathStart = url.indexOf('/', url.indexOf('//') + 2);
  const q = url.indexOf('?', pathStart);
  const path = q < 0 ? url.slice(pathStart) : url.slice(pathStart, q);
  // path = /v1/c/{slug}/{feature}[/{rest}]
  const afterPrefix = path.slice('/v1/c/'.length);
  const slash = afterPrefix.indexOf('/');
  const slug = slash < 0 ? afterPrefix : afterPrefix.slice(0, slash);
  const tail = slash < 0 ? '' : afterPrefix.slice(slash + 1);
  const rest = tail === feature ? '' : tail.startsWith(feature + '/') ? tail.slice(feature.length + 1) : tail;
  return { slug: safeDecode(slug) ?? slug, rest };
}

export function safeDecode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
