const LOWER36 = '0123456789abcdefghijklmnopqrstuvwxyz';
/** Bytes at or above this would make some characters likelier than others (256 % 36 = 4). */
const LIMIT = 252;
const ID_LENGTH = 20;

const CODES = Uint8Array.from(LOWER36, (c) => c.charCodeAt(0));
const ASCII = new TextDecoder('latin1');

/** Random base36 characters not handed out yet, and where the next id starts in them. */
let pool = '';
let at = 0;

/**
 * A request id in newId's shape (20 lowercase base36 characters, random),
 * made on every request. Random bytes are drawn 4 KB at a time and turned
 * into characters once (each byte under LIMIT gives `byte % 36`, as newId's
 * do); an id is then one slice of that string, where building it a character
 * at a time was a few percent of a page view's CPU time.
 */
export function newRequestId(): string {
  while (pool.length - at < ID_LENGTH) refill();
  const id = pool.slice(at, at + ID_LENGTH);
  at += ID_LENGTH;
  return id;
}

/** A fresh string of characters; what was left of the old one is dropped (every character is equally random). */
function refill(): void {
  const bytes = crypto.getRandomValues(new Uint8Array(4096));
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b < LIMIT) bytes[n++] = CODES[b % 36]!;
  }
  // About 4,032 of 4,096 bytes are kept; far fewer than 20 is not a draw that happens.
  pool = ASCII.decode(bytes.subarray(0, n));
  at = 0;
}
