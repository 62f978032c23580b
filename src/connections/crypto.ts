// Protected header values at rest: AES-256-GCM under EASEL_SECRET_KEY, a
// fresh random 12-byte nonce per value. The associated data binds a value to
// its profile and header name, so a row copied elsewhere fails to open.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

export interface Sealed {
  keyId: string;
  nonce: Uint8Array;
  /** Ciphertext followed by the 16-byte GCM tag. */
  ciphertext: Uint8Array;
}

const TAG_BYTES = 16;

/** A short fingerprint of the key (not the key): tells which key sealed a value, so a changed key is noticed without decrypting. */
export function keyIdOf(key: Uint8Array): string {
  return createHash('sha256').update('easel-connections-key:').update(key).digest('hex').slice(0, 16);
}

function aad(profile: string, header: string): Buffer {
  return Buffer.from(`easel-connection:${profile}:${header}`, 'utf8');
}

export function seal(key: Uint8Array, profile: string, header: string, value: string): Sealed {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(aad(profile, header));
  const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return { keyId: keyIdOf(key), nonce, ciphertext: body };
}

/** The value, or null when it does not open under this key (another key, or tampered). */
export function open(key: Uint8Array, profile: string, header: string, sealed: Sealed): string | null {
  if (sealed.keyId !== keyIdOf(key) || sealed.ciphertext.length < TAG_BYTES) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.nonce);
    decipher.setAAD(aad(profile, header));
    const body = sealed.ciphertext.subarray(0, sealed.ciphertext.length - TAG_BYTES);
    decipher.setAuthTag(sealed.ciphertext.subarray(sealed.ciphertext.length - TAG_BYTES));
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
