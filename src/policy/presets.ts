// The spec's Permission presets table, as data. Pure: no IO.

export const PRESETS = ['personal', 'submissions', 'contributions', 'managed', 'collaborative'] as const;
export type Preset = (typeof PRESETS)[number];

export const OPERATIONS = ['read', 'create', 'update', 'delete', 'increment'] as const;
export type Operation = (typeof OPERATIONS)[number];

/** `own` = the record's author; `editors` = owners and editors; `viewers` = every participant. */
export const RIGHTS = ['none', 'own', 'editors', 'own_and_editors', 'viewers'] as const;
export type Right = (typeof RIGHTS)[number];

/** The server assigns authorship, so create cannot be scoped to "own". */
export const CREATE_RIGHTS = ['none', 'editors', 'viewers'] as const;
export type CreateRight = (typeof CREATE_RIGHTS)[number];

export interface Rights {
  read: Right;
  create: CreateRight;
  update: Right;
  delete: Right;
  increment: Right;
}

export type Overrides = Partial<Rights>;

type PresetRow = Omit<Rights, 'increment'>;

// Read | Create | Update and delete, translated: author → own, participants → viewers,
// "author and owners/editors" → own_and_editors, owners/editors → editors.
const TABLE: Record<Preset, PresetRow> = {
  personal: { read: 'own', create: 'viewers', update: 'own', delete: 'own' },
  submissions: { read: 'own_and_editors', create: 'viewers', update: 'own_and_editors', delete: 'own_and_editors' },
  contributions: { read: 'viewers', create: 'viewers', update: 'own_and_editors', delete: 'own_and_editors' },
  managed: { read: 'viewers', create: 'editors', update: 'editors', delete: 'editors' },
  collaborative: { read: 'viewers', create: 'viewers', update: 'viewers', delete: 'viewers' },
};

/**
 * The rights a preset grants after overrides. Increment follows the preset's
 * update right unless overridden itself (spec: "Increment initially follows
 * the preset's update right"), so overriding update alone leaves it as is.
 * Update, delete and increment additionally need read access; that is
 * checked where the rights are used.
 */
export function effectiveRights(preset: Preset, overrides: Overrides = {}): Rights {
  const row = TABLE[preset];
  return {
    read: overrides.read ?? row.read,
    create: overrides.create ?? row.create,
    update: overrides.update ?? row.update,
    delete: overrides.delete ?? row.delete,
    increment: overrides.increment ?? row.update,
  };
}
