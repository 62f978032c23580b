// Finds the canvas-key shape in a byte stream without holding it: each chunk
// is searched together with the tail of the previous one, so a key split
// across chunks is still seen.
import { CANVAS_KEY_PATTERN } from '../canvases/keys.ts';
import type { BlobStore } from '../blobs/store.ts';
import { isTextType } from './mime.ts';

/** A key is `easel_sk_` + 40 characters: a match never spans more than this. */
const KEY_LENGTH = 'easel_sk_'.length + 40;

/** Whether a whole file (in memory) of a text type holds the canvas-key shape. */
export function textMentionsKey(bytes: Uint8Array, mime: string): boolean {
  if (!isTextType(mime)) return false;
  // latin1 maps every byte to one character, so binary input cannot throw and ASCII stays ASCII.
  return CANVAS_KEY_PATTERN.test(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1'));
}

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

/** Whether a stored blob holds the canvas-key shape, read as a stream (stops at the first match). */
export async function blobMentionsKey(blobs: BlobStore, hash: string): Promise<boolean> {
  const scanner = new KeyScanner();
  if (!(await blobs.local(hash))) return false;
  for await (const chunk of blobs.file(hash).stream() as unknown as AsyncIterable<Uint8Array>) {
    scanner.push(chunk);
    if (scanner.found) return true;
  }
  return false;
}
