// The administration page's pickers: a canvas by its title or address and a
// person by name or email, typed with suggestions (a <datalist>), resolved to
// the id the API wants; an id pasted as is still works. Also the byte-sized
// settings, shown and typed in MB or GB instead of bytes.
// @ts-nocheck -- moved from plain JS; typed file by file next
export const easelAdminPickers = (() => {
  const $ = (id) => document.getElementById(id);
  /** Suggestion text → id, per list. */
  const lookups = { canvases: new Map(), people: new Map() };
  /** Canvas id → its title, for naming grants. */
  const titles = new Map();

  function fill(listId, map, entries) {
    map.clear();
    const list = $(listId);
    list.replaceChildren();
    for (const [label, id] of entries) {
      map.set(label, id);
      const o = document.createElement('option');
      o.value = label;
      list.append(o);
    }
  }

  const UNITS = { MB: 1024 * 1024, GB: 1024 * 1024 * 1024 };

  return {
    /** Canvases as "Title (slug)": the suggestions of every canvas field. */
    setCanvases(canvases) {
      titles.clear();
      for (const c of canvases) titles.set(c.id, c.title || c.slug);
      fill(
        'ad-canvas-options',
        lookups.canvases,
        canvases.map((c) => [`${c.title} (${c.slug})`, c.id]),
      );
    },
    /** People as "Name <email>". */
    setPeople(people) {
      fill(
        'ad-people-options',
        lookups.people,
        people.map((u) => [u.name ? `${u.name} <${u.email}>` : u.email, u.id]),
      );
    },
    /** The id a picker's text names: a suggestion, a bare email or slug of one, or the text itself (an id). */
    canvasId(text) {
      const t = text.trim();
      if (lookups.canvases.has(t)) return lookups.canvases.get(t);
      for (const [label, id] of lookups.canvases) if (label.endsWith(`(${t})`)) return id;
      return t;
    },
    personId(text) {
      const t = text.trim();
      if (lookups.people.has(t)) return lookups.people.get(t);
      for (const [label, id] of lookups.people) if (label === t || label.endsWith(`<${t}>`)) return id;
      return t;
    },
    /** A canvas as people know it: its title, or its id while unknown. */
    canvasName(id) {
      return titles.get(id) || id;
    },
    /** A setting in its field: a byte count in the field's unit (data-unit: MB or GB, at most two decimals), any other number as it is. */
    toField(input, value) {
      const unit = UNITS[input.dataset.unit];
      input.value = value === undefined ? '' : String(unit ? Math.round((value / unit) * 100) / 100 : value);
      input.dataset.shown = input.value;
    },
    fromField(input) {
      const unit = UNITS[input.dataset.unit];
      return unit ? Math.round(Number(input.value) * unit) : Number(input.value);
    },
  };
})();
