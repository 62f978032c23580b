// The runtime policy as a form (issue 18 item 5): collections and file groups
// by preset (explained in words) with per-operation overrides and
// aggregateCount, channels by their four rights, connections by audience and
// methods, and defaultMode as the starting choice for anything added. The
// canvas page keeps the JSON beside it and saves with the revision check.
// Names and values are set as text, never as HTML.
// @ts-nocheck -- moved from plain JS; typed file by file next
const WHO = {
  none: 'nobody',
  own: 'the author',
  editors: 'owners and editors',
  own_and_editors: 'the author, owners and editors',
  viewers: 'everyone who can open it',
};
const PRESETS = {
  personal: 'Personal: each person sees and changes only what they added.',
  submissions: 'Submissions: everyone adds; each sees their own, owners and editors see everything.',
  contributions: 'Contributions: everyone reads and adds; people change and delete their own (owners and editors any).',
  managed: 'Managed: everyone reads; only owners and editors add, change or delete.',
  collaborative: 'Collaborative: everyone reads, adds, changes and deletes everything.',
};
const OPERATIONS = [
  ['read', 'see records'],
  ['create', 'add'],
  ['update', 'change'],
  ['delete', 'delete'],
  ['increment', 'count up numbers'],
];
const RIGHTS = ['none', 'own', 'editors', 'own_and_editors', 'viewers'];
/** The server names the author, so "own" makes no sense for adding. */
const CREATE_RIGHTS = ['none', 'editors', 'viewers'];
const AUDIENCE = ['none', 'editors', 'viewers'];
const CHANNEL_RIGHTS = [
  ['subscribe', 'receive messages'],
  ['publish', 'send messages'],
  ['seePresence', 'see who is here'],
  ['participatePresence', 'show up as present'],
];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** defaultMode's three values, said in the presets' words (one vocabulary on the page). */
const MODES = {
  participation: 'Contributions: everyone reads and adds, people change their own',
  read_only: 'Managed: everyone reads, owners and editors write',
  collaboration: 'Collaborative: everyone writes',
};
/** What a new entry starts as, by defaultMode (spec: only the dashboard's starting choice). */
const STARTS = {
  read_only: { preset: 'managed', publish: 'editors', audience: 'editors' },
  participation: { preset: 'contributions', publish: 'viewers', audience: 'viewers' },
  collaboration: { preset: 'collaborative', publish: 'viewers', audience: 'viewers' },
};
/**
 * With no defaultMode: collections and file groups start as Contributions,
 * which fits a poll or a sign-up sheet; channels and Connections start
 * closed to all but owners and editors (widening those is a choice).
 */
const UNSET_START = { preset: 'contributions', publish: 'editors', audience: 'editors' };
const KINDS = [
  ['collections', 'Collections', 'collection'],
  ['fileGroups', 'File groups', 'file group'],
  ['channels', 'Realtime channels', 'channel'],
  ['connections', 'Connections', 'connection'],
];

function el(tag, text) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  return e;
}

let ids = 0;
/** A label for `control` by id (so its accessible name is the label's words alone), both in one span. */
function labelled(text, control) {
  control.id = `pf-${++ids}`;
  const label = el('label', text + ' ');
  label.htmlFor = control.id;
  const wrap = el('span');
  wrap.className = 'field';
  wrap.append(label, control);
  return wrap;
}

/** A labelled <select> of [value, words] pairs that calls `onChange(value)`. */
function choice(label, options, value, onChange) {
  const select = el('select');
  for (const [v, words] of options) {
    const o = el('option', words);
    o.value = v;
    o.selected = v === value;
    select.append(o);
  }
  select.addEventListener('change', () => onChange(select.value));
  return labelled(label, select);
}

/**
 * Renders `state.doc` into `container`. `presets` (what each preset grants,
 * from the server) may be null until it arrives; `changed()` is called after
 * every edit.
 */
function render(container, state, presets, changed) {
  const doc = state.doc;
  const edit = (fn, redraw = false) => {
    fn();
    changed();
    if (redraw) render(container, state, presets, changed);
  };
  container.replaceChildren();
  container.append(
    choice('New entries start as', [['', 'Not set: Contributions'], ...Object.entries(MODES)], doc.defaultMode || '', (v) =>
      edit(() => {
        if (v) doc.defaultMode = v;
        else delete doc.defaultMode;
      }),
    ),
  );
  const start = STARTS[doc.defaultMode] || UNSET_START;
  for (const [kind, title, one] of KINDS) {
    const section = el('fieldset');
    section.className = 'policy-kind';
    section.dataset.kind = kind;
    section.append(el('legend', title));
    const entries = doc[kind] || {};
    for (const name of Object.keys(entries)) section.append(entry(kind, name, entries[name], presets, edit, doc));
    if (Object.keys(entries).length === 0) section.append(el('p', `No ${one} has a policy.`));
    const add = el('form');
    add.className = 'inline';
    const input = el('input');
    input.name = 'name';
    input.required = true;
    input.maxLength = 80;
    input.autocomplete = 'off';
    const button = el('button', 'Add');
    button.type = 'submit';
    add.append(labelled(`Add a ${one} named`, input), button);
    add.addEventListener('submit', (event) => {
      event.preventDefault();
      const name = input.value.trim();
      if (!name || (doc[kind] && Object.hasOwn(doc[kind], name))) return;
      edit(() => {
        doc[kind] = doc[kind] || {};
        doc[kind][name] = fresh(kind, start);
      }, true);
    });
    section.append(add);
    container.append(section);
  }
}

function fresh(kind, start) {
  if (kind === 'channels') return { subscribe: 'viewers', publish: start.publish, seePresence: 'viewers', participatePresence: 'viewers' };
  if (kind === 'connections') return { audience: start.audience };
  return { preset: start.preset };
}

function entry(kind, name, policy, presets, edit, doc) {
  const box = el('fieldset');
  box.className = 'policy-entry';
  box.dataset.name = name;
  box.append(el('legend', name));
  const remove = el('button', `Remove ${name}`);
  remove.type = 'button';
  remove.addEventListener('click', () =>
    edit(() => {
      delete doc[kind][name];
      if (Object.keys(doc[kind]).length === 0) delete doc[kind];
    }, true),
  );
  if (kind === 'channels') {
    for (const [right, verb] of CHANNEL_RIGHTS)
      box.append(
        choice(
          `Who may ${verb}`,
          AUDIENCE.map((a) => [a, WHO[a]]),
          policy[right],
          (v) => edit(() => (policy[right] = v)),
        ),
      );
  } else if (kind === 'connections') {
    box.append(
      choice(
        'Who may call it',
        [
          ['editors', WHO.editors],
          ['viewers', WHO.viewers],
        ],
        policy.audience,
        (v) => edit(() => (policy.audience = v)),
      ),
    );
    const methods = el('p', 'Methods (none ticked: every method the grant allows): ');
    for (const m of METHODS) {
      const label = el('label', ` ${m}`);
      label.className = 'row';
      const tick = el('input');
      tick.type = 'checkbox';
      tick.checked = Boolean(policy.methods && policy.methods.includes(m));
      tick.addEventListener('change', () =>
        edit(() => {
          const set = new Set(policy.methods || []);
          if (tick.checked) set.add(m);
          else set.delete(m);
          const list = METHODS.filter((x) => set.has(x));
          if (list.length) policy.methods = list;
          else delete policy.methods;
        }),
      );
      label.prepend(tick);
      methods.append(label);
    }
    box.append(methods);
  } else {
    presetControls(box, kind, policy, presets, edit);
  }
  box.append(remove);
  return box;
}

function presetControls(box, kind, policy, presets, edit) {
  const why = el('p', PRESETS[policy.preset] || '');
  why.className = 'muted';
  const summary = el('p');
  summary.className = 'policy-summary';
  const showSummary = () => {
    const base = presets && presets[policy.preset];
    if (!base) return;
    const rights = { ...base, ...(policy.overrides || {}) };
    summary.textContent = 'In effect: ' + OPERATIONS.map(([op, verb]) => `${verb}: ${WHO[rights[op]]}`).join('; ') + '.';
  };
  box.append(
    choice(
      'Preset',
      Object.keys(PRESETS).map((p) => [p, p]),
      policy.preset,
      (v) =>
        edit(() => {
          policy.preset = v;
          why.textContent = PRESETS[v];
          for (const [op] of OPERATIONS) {
            const first = box.querySelector(`select[data-op="${op}"] option`);
            if (first && presets && presets[v]) first.textContent = `as the preset: ${WHO[presets[v][op]]}`;
          }
          showSummary();
        }),
    ),
    why,
  );
  const overrides = el('div');
  overrides.className = 'policy-overrides';
  for (const [op, verb] of OPERATIONS) {
    const inherited = presets && presets[policy.preset] ? `as the preset: ${WHO[presets[policy.preset][op]]}` : 'as the preset';
    const allowed = op === 'create' ? CREATE_RIGHTS : RIGHTS;
    const control = choice(
      `Who may ${verb}`,
      [['', inherited], ...allowed.map((r) => [r, WHO[r]])],
      (policy.overrides && policy.overrides[op]) || '',
      (v) =>
        edit(() => {
          const o = { ...(policy.overrides || {}) };
          if (v) o[op] = v;
          else delete o[op];
          if (Object.keys(o).length) policy.overrides = o;
          else delete policy.overrides;
          showSummary();
        }),
    );
    control.querySelector('select').dataset.op = op;
    overrides.append(control);
  }
  box.append(overrides);
  if (kind === 'collections') {
    box.append(
      choice(
        'Who may count records they cannot see',
        [
          ['', 'nobody'],
          ['editors', WHO.editors],
          ['viewers', WHO.viewers],
        ],
        policy.aggregateCount === 'none' ? '' : policy.aggregateCount || '',
        (v) =>
          edit(() => {
            if (v) policy.aggregateCount = v;
            else delete policy.aggregateCount;
          }),
      ),
    );
  }
  box.append(summary);
  showSummary();
}

export const easelPolicyForm = { render };
