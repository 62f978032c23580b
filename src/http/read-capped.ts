// Small request bodies read with a cap while streaming. Every route with a
// body limit reads through here, so Content-Length is checked first and
// chunked bodies are counted as they arrive; the read stops at the cap.

/** The body's bytes (empty when there is none), or null once the declared length or the bytes sent pass `maxBytes`. */
export async function readBytesCapped(request: Request, maxBytes: number): Promise<Uint8Array | null> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) return null;
  if (!request.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? chunks[0]! : new Uint8Array(Buffer.concat(chunks));
}

/** The body as UTF-8 text, or null past `maxBytes` (see readBytesCapped). */
export async function readTextCapped(request: Request, maxBytes: number): Promise<string | null> {
  const bytes = await readBytesCapped(request, maxBytes);
  return bytes === null ? null : new TextDecoder().decode(bytes);
}
