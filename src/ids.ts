// Random identifiers and secrets. Everything here comes from crypto.getRandomValues.
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const LOWER36 = '0123456789abcdefghijklmnopqrstuvwxyz';

function randomFrom(alphabet: string, length: number): string {
  // Rejection sampling keeps every character equally likely.
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const b of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (b < limit) out += alphabet[b % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A record id: 20 lowercase base36 characters (~103 bits). */
export const newId = (): string => randomFrom(LOWER36, 20);
/** A base62 secret body of the given length. */
export const randomBase62 = (length: number): string => randomFrom(BASE62, length);
/** An opaque token (publication tokens, upload handles): 32 base62 characters (~190 bits). */
export const newToken = (): string => randomBase62(32);

/** Hex SHA-256 (text as UTF-8). Bun's one-shot hasher: a third of a CryptoHasher object's time for short inputs. */
export function sha256Hex(input: string | Uint8Array): string {
  return Bun.SHA256.hash(input, 'hex');
}
