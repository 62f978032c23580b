/** The gate form is tiny; anything bigger is not a password form. */
export const MAX_FORM_BYTES = 8 * 1024;

/**
 * The form fields of a small urlencoded or multipart body, read with a cap
 * while streaming (chunked bodies included); null when it is too big or not a form.
 */
export async function readForm(request: Request): Promise<URLSearchParams | FormData | null> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > MAX_FORM_BYTES || !request.body) return null;
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_FORM_BYTES) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  const bytes = Buffer.concat(chunks);
  const type = request.headers.get('content-type') ?? '';
  try {
    // The boundary is case-sensitive: pass the header on as it came.
    if (type.toLowerCase().startsWith('multipart/form-data')) {
      return await new Response(bytes, { headers: { 'content-type': type } }).formData();
    }
    return new URLSearchParams(bytes.toString('utf8'));
  } catch {
    return null;
  }
}
