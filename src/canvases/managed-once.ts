// A declared route checks the caller's right to the canvas before its body
// is read (its `check`), and its handler needs the same canvas: this finds it
// once per request, so the handler acts on what the check saw.
import type { Core } from '../foundation.ts';
import { managedCanvas, type Actor, type Managed, type Need } from './authority.ts';

export function managedOnce(ctx: Pick<Core, 'canvases'>, need: Need = 'manage') {
  const found = new WeakMap<Request, Promise<Managed>>();
  return (actor: Actor, id: string, request: Request): Promise<Managed> => {
    let managed = found.get(request);
    if (!managed) found.set(request, (managed = managedCanvas(ctx, actor, id, need)));
    return managed;
  };
}
