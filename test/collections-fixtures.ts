// Shared by the collections tests: the spec's Permission presets table in
// the spec's own words (author, participants, owners/editors), restated here
// rather than derived from the code's table, and the way a test sets a
// canvas's runtime policy (through the management API, with its revision).
import type { CanvasRole } from '../src/canvases/record.ts';
import type { Preset } from '../src/policy/presets.ts';
import type { World } from './world.ts';

export type SpecWho = 'author' | 'author+managers' | 'participants' | 'managers';

/** Permission presets: Read | Create | Update and delete (increment follows update). */
export const SPEC_PRESETS: Record<Preset, { read: SpecWho; create: SpecWho; update: SpecWho }> = {
  personal: { read: 'author', create: 'participants', update: 'author' },
  submissions: { read: 'author+managers', create: 'participants', update: 'author+managers' },
  contributions: { read: 'participants', create: 'participants', update: 'author+managers' },
  managed: { read: 'participants', create: 'managers', update: 'managers' },
  collaborative: { read: 'participants', create: 'participants', update: 'participants' },
};

export function specAdmits(who: SpecWho, role: CanvasRole, isAuthor: boolean): boolean {
  const manager = role !== 'viewer';
  if (who === 'author') return isAuthor;
  if (who === 'author+managers') return isAuthor || manager;
  if (who === 'managers') return manager;
  return true;
}

export interface SpecScoped {
  own: boolean;
  any: boolean;
}

/** The spec's answer: `own` on the caller's records, `any` on everyone's; update, delete and increment also need read. */
export function specRights(preset: Preset, role: CanvasRole): Record<'read' | 'create' | 'update' | 'delete' | 'increment', SpecScoped> {
  const row = SPEC_PRESETS[preset];
  const on = (who: SpecWho, isAuthor: boolean) => specAdmits(who, role, isAuthor);
  const changing = (isAuthor: boolean) => on(row.update, isAuthor) && on(row.read, isAuthor);
  const create = on(row.create, false);
  const change = { own: changing(true), any: changing(false) };
  return {
    read: { own: on(row.read, true), any: on(row.read, false) },
    create: { own: create, any: create },
    update: change,
    delete: change,
    increment: change,
  };
}

/** Replaces the canvas's runtime policy document (as its owner, with the revision read just before). */
export async function setPolicy(w: World, doc: Record<string, unknown> | null): Promise<void> {
  const view = await w.expectOk('GET', `/api/canvases/${w.canvas.id}`, 'owner');
  await w.capabilities({ expectedRuntimePolicy: view.runtimePolicyRevision, runtimePolicy: doc });
}

/** Sets `{collections}` only. */
export const setCollections = (w: World, collections: Record<string, unknown>) => setPolicy(w, { collections });
