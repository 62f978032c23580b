// Effective rights on the records of a policy-governed resource (spec:
// Permission presets; CONTRACT §9 Collections). Pure: the caller passes the
// entry of the live policy document and the caller's live role, so a policy
// change or a role change applies to the next request, on existing records
// too. No IO, nothing cached: it is a handful of comparisons.
import type { CanvasRole } from '../canvases/record.ts';
import { effectiveRights, OPERATIONS, type Operation, type Overrides, type Preset, type Right } from './presets.ts';
import type { AudienceRight } from './document.ts';

/** `own`: on records the caller authored; `any`: on everyone's. `any` implies `own`. */
export interface Scoped {
  own: boolean;
  any: boolean;
}

export type RecordRights = Record<Operation, Scoped>;

const NONE: Scoped = { own: false, any: false };
const ALL: Scoped = { own: true, any: true };
const OWN: Scoped = { own: true, any: false };

const isManager = (role: CanvasRole) => role === 'owner' || role === 'editor';

/** One right value for one role. Owners and editors get no more than the value says (a personal record stays its author's). */
export function scopedFor(right: Right, role: CanvasRole): Scoped {
  switch (right) {
    case 'none':
      return NONE;
    case 'own':
      return OWN;
    case 'editors':
      return isManager(role) ? ALL : NONE;
    case 'own_and_editors':
      return isManager(role) ? ALL : OWN;
    case 'viewers':
      return ALL;
  }
}

/**
 * The caller's rights on a resource's records. Update, delete and increment
 * also need read, so each is intersected with read; create has no author yet,
 * so it is all or nothing (`own` = `any` = allowed).
 */
export function recordRights(preset: Preset, overrides: Overrides | undefined, role: CanvasRole): RecordRights {
  const rights = effectiveRights(preset, overrides);
  const read = scopedFor(rights.read, role);
  const out = { read } as RecordRights;
  for (const op of OPERATIONS) {
    if (op === 'read') continue;
    const granted = scopedFor(rights[op], role);
    out[op] = op === 'create' ? granted : { own: granted.own && read.own, any: granted.any && read.any };
  }
  return out;
}

/** Whether `rights` allow the operation on a record: by its author (`own`) or by anyone (`any`). */
export function allows(scoped: Scoped, isAuthor: boolean): boolean {
  return scoped.any || (isAuthor && scoped.own);
}

/** Whether the caller has the right on at least some records (else the operation is refused outright). */
export function hasAny(scoped: Scoped): boolean {
  return scoped.own || scoped.any;
}

/** An audience right (`aggregateCount`): absent and `none` admit nobody, `editors` owners and editors, `viewers` everyone admitted. */
export function admitsAudience(audience: AudienceRight | undefined, role: CanvasRole): boolean {
  if (audience === 'viewers') return true;
  if (audience === 'editors') return isManager(role);
  return false;
}
