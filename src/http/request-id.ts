const LOWER36 = '0123456789abcdefghijklmnopqrstuvwxyz';
/** Bytes at or above this would make some characters likelier than others (256 % 36 = 4). */
const LIMIT = 252;

let pool = new Uint8Array(0);
let at = 0;

/**
 * A request id in newId's shape (20 lowercase base36 characters, random),
 * made on every request: random bytes are drawn 4 KB at a time and indexed,
 * where newId asks the CSPRNG per id and walks the bytes with an iterator
 * (a tenth of a page view's CPU time when measured).
 */
export function newRequestId(): string {
  let out = '';
  while (out.length < 20) {
    if (at >= pool.length) {
      pool = crypto.getRandomValues(new Uint8Array(4096));
      at = 0;
    }
    const b = pool[at++]!;
    if (b < LIMIT) out += LOWER36[b % 36];
  }
  return out;
}
