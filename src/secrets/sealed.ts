// Secrets at rest (Connection protected headers, the admin-set AI provider
// key): AES-256-GCM under EASEL_SECRET_KEY, a fresh random 12-byte nonce per
// value. The associated data binds a value to where it belongs (a profile
// and header name, a setting), so a row copied elsewhere fails to open.
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

/** What a Connection protected header is bound to. */
export const headerPlace = (profile: string, header: string) => `easel-connection:${profile}:${header}`;
/** What an instance setting is bound to. */
export const settingPlace = (key: string) => `easel-setting:${key}`;

export function seal(key: Uint8Array, place: string, value: string): Sealed {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(place, 'utf8'));
  const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return { keyId: keyIdOf(key), nonce, ciphertext: body };
}

/** The value, or null when it does not open under this key (another key, or tampered). */
export function open(key: Uint8Array, place: string, sealed: Sealed): string | null {
  if (sealed.keyId !== keyIdOf(key) || sealed.ciphertext.length < TAG_BYTES) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.nonce);
    decipher.setAAD(Buffer.from(place, 'utf8'));
    const body = sealed.ciphertext.subarray(0, sealed.ciphertext.length - TAG_BYTES);
    decipher.setAuthTag(sealed.ciphertext.subarray(sealed.ciphertext.length - TAG_BYTES));
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

/** A sealed value as JSON text (the settings table). */
export function sealedToJson(s: Sealed): string {
  return JSON.stringify({
    sealed: { keyId: s.keyId, nonce: Buffer.from(s.nonce).toString('base64'), ciphertext: Buffer.from(s.ciphertext).toString('base64') },
  });
}

/** The sealed value in stored JSON, or null when the JSON is something else (a plaintext value written before sealing). */
export function sealedFromJson(value: unknown): Sealed | null {
  if (typeof value !== 'object' || value === null || !('sealed' in value)) return null;
  const s = (value as { sealed: { keyId?: unknown; nonce?: unknown; ciphertext?: unknown } }).sealed;
  if (typeof s?.keyId !== 'string' || typeof s.nonce !== 'string' || typeof s.ciphertext !== 'string') return null;
  return { keyId: s.keyId, nonce: Buffer.from(s.nonce, 'base64'), ciphertext: Buffer.from(s.ciphertext, 'base64') };
}
