// Small request bodies read with a cap while streaming. Every route with a
// body limit reads through here, so Content-Length is checked first and
// chunked bodies are counted as they arrive; the read stops at the cap
// (src/streams/capped.ts does the counting).
import { readCapped, StreamLimitError } from '../streams/capped.ts';

/** The body's bytes (empty when there is none), or null once the declared length or the bytes sent pass `maxBytes`. */
export async function readBytesCapped(request: Request, maxBytes: number): Promise<Uint8Array | null> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) return null;
  try {
    return await readCapped(request.body, maxBytes);
  } catch (err) {
    if (err instanceof StreamLimitError) return null;
    throw err;
  }
}

/** The body as UTF-8 text, or null past `maxBytes` (see readBytesCapped). */
export async function readTextCapped(request: Request, maxBytes: number): Promise<string | null> {
  const bytes = await readBytesCapped(request, maxBytes);
  return bytes === null ? null : new TextDecoder().decode(bytes);
}
