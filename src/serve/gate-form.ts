import { readBytesCapped } from '../http/read-capped.ts';

/** The gate form is tiny; anything bigger is not a password form. */
export const MAX_FORM_BYTES = 8 * 1024;

/**
 * The form fields of a small urlencoded or multipart body, read with a cap
 * while streaming (chunked bodies included); null when it is too big or not a form.
 */
export async function readForm(request: Request): Promise<URLSearchParams | FormData | null> {
  if (!request.body) return null;
  const read = await readBytesCapped(request, MAX_FORM_BYTES);
  if (read === null) return null;
  const bytes = Buffer.from(read);
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
