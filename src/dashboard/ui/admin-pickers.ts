// The administration page's pickers: a canvas by its title or address and a
// person by name or email, typed with suggestions (a <datalist>), resolved to
// the id the API wants; an id pasted as is still works. Also the byte-sized
// settings, shown and typed in MB or GB instead of bytes.
import { byId } from './elements.ts';

/** Suggestion text → id, per list. */
const lookups = { canvases: new Map<string, string>(), people: new Map<string, string>() };
/** Canvas id → its title, for naming grants. */
const titles = new Map<string, string>();

function fill(listId: string, map: Map<string, string>, entries: [label: string, id: string][]): void {
  map.clear();
  const list = byId(listId);
  list.replaceChildren();
  for (const [label, id] of entries) {
    map.set(label, id);
    const o = document.createElement('option');
    o.value = label;
    list.append(o);
  }
}

const UNITS = new Map([
  ['MB', 1024 * 1024],
  ['GB', 1024 * 1024 * 1024],
]);
const unitOf = (input: HTMLInputElement) => (input.dataset.unit ? UNITS.get(input.dataset.unit) : undefined);

/** Canvases as "Title (slug)": the suggestions of every canvas field. */
export function setCanvases(canvases: readonly { id: string; title: string; slug: string }[]): void {
  titles.clear();
  for (const c of canvases) titles.set(c.id, c.title || c.slug);
  fill(
    'ad-canvas-options',
    lookups.canvases,
    canvases.map((c) => [`${c.title} (${c.slug})`, c.id]),
  );
}

/** People as "Name <email>". */
export function setPeople(people: readonly { id: string; name: string | null; email: string }[]): void {
  fill(
    'ad-people-options',
    lookups.people,
    people.map((u) => [u.name ? `${u.name} <${u.email}>` : u.email, u.id]),
  );
}

/** The id a picker's text names: a suggestion, a bare email or slug of one, or the text itself (an id). */
export function canvasId(text: string): string {
  const t = text.trim();
  const found = lookups.canvases.get(t);
  if (found !== undefined) return found;
  for (const [label, id] of lookups.canvases) if (label.endsWith(`(${t})`)) return id;
  return t;
}

export function personId(text: string): string {
  const t = text.trim();
  const found = lookups.people.get(t);
  if (found !== undefined) return found;
  for (const [label, id] of lookups.people) if (label.endsWith(`<${t}>`)) return id;
  return t;
}

/** A canvas as people know it: its title, or its id while unknown. */
export function canvasName(id: string): string {
  return titles.get(id) || id;
}

/** A setting in its field: a byte count in the field's unit (data-unit: MB or GB, at most two decimals), any other number as it is. */
export function toField(input: HTMLInputElement, value: number | undefined): void {
  const unit = unitOf(input);
  input.value = value === undefined ? '' : String(unit ? Math.round((value / unit) * 100) / 100 : value);
  input.dataset.shown = input.value;
}

export function fromField(input: HTMLInputElement): number {
  const unit = unitOf(input);
  return unit ? Math.round(Number(input.value) * unit) : Number(input.value);
}
