// Finds the canvas-key shape in a byte stream without holding it: each chunk
// is searched together with the tail of the previous one, so a key split
// across chunks is still seen.
import { CANVAS_KEY_PATTERN } from '../canvases/keys.ts';

/** A key is `easel_sk_` + 40 characters: a match never spans more than this. */
const KEY_LENGTH = 'easel_sk_'.length + 40;

export class KeyScanner {
  private tail = '';
  found = false;

  push(chunk: Uint8Array): void {
    if (this.found) return;
    // latin1 maps every byte to one character, so binary input cannot throw and ASCII stays ASCII.
    const text = this.tail + Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
    if (CANVAS_KEY_PATTERN.test(text)) this.found = true;
    this.tail = text.slice(-(KEY_LENGTH - 1));
  }
}
