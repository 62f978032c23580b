// Canvas secret keys (CONTRACT §1): `easel_sk_` + 40 base62 characters,
// shown once; only the SHA-256 is stored (canvases.key_hash).
import { randomBase62, sha256Hex } from '../ids.ts';

export const CANVAS_KEY_PREFIX = 'easel_sk_';
/** The key shape the deploy lint looks for (unanchored, so it finds keys inside text). */
export const CANVAS_KEY_PATTERN = /easel_sk_[0-9A-Za-z]{40}/;

export function hashCanvasKey(key: string): string {
  return sha256Hex(key);
}

/** A fresh key and the hash to store. The key itself must never be stored or logged. */
export function newCanvasKey(): { key: string; hash: string } {
  const key = CANVAS_KEY_PREFIX + randomBase62(40);
  return { key, hash: hashCanvasKey(key) };
}
