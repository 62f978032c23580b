// A hook's signing secret: made once, shown once (the PUT that created the
// hook), kept sealed under EASEL_SECRET_KEY when the instance has one (bound
// to its hook: a secret copied to another row does not open), else as is.
// Never read back out through the API: only the worker opens it, to sign.
import { randomBase62 } from '../ids.ts';
import { open, seal, sealedFromJson, sealedToJson } from '../secrets/sealed.ts';

const place = (hookId: string) => `easel-webhook:${hookId}`;

export const newSecret = (): string => `whsec_${randomBase62(32)}`;

export function storedSecret(key: Uint8Array | null, hookId: string, secret: string): string {
  return key ? sealedToJson(seal(key, place(hookId), secret)) : secret;
}

/** The secret, or null when it was sealed under another key (EASEL_SECRET_KEY changed or went). */
export function openSecret(key: Uint8Array | null, hookId: string, stored: string): string | null {
  if (!stored.startsWith('{')) return stored;
  let parsed: unknown;
  try {
    parsed = JSON.parse(stored);
  } catch {
    return null;
  }
  const sealed = sealedFromJson(parsed);
  if (!sealed || !key) return null;
  return open(key, place(hookId), sealed);
}
