// easel.me(): who the server says the viewer is on this canvas.
import type { Transport } from './request.ts';
import type { Identity } from './wire.ts';
export type { Identity } from './wire.ts';

export function createMe(t: Transport): () => Promise<Identity> {
  return () => t.request<Identity>('GET', '/me');
}
