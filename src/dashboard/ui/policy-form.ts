// The runtime policy as a form (issue 18 item 5): collections and file groups
// by preset (explained in words) with per-operation overrides and
// aggregateCount, channels by their four rights, connections by audience and
// methods, and defaultMode as the starting choice for anything added. The
// canvas page keeps the JSON beside it and saves with the revision check.
// Names and values are set as text, never as HTML.
import type { Rights } from '../../policy/presets.ts';

/**
 * One entry of the policy as the form edits it. The document is what the
 * person typed or the server holds (the server validates it on save), so
 * every field is optional and read as words.
 */
interface EntryPolicy {
  preset?: string;
  overrides?: Partial<Record<string, string>>;
  aggregateCount?: string;
  subscribe?: string;
  publish?: string;
  seePresence?: string;
  participatePresence?: string;
  audience?: string;
  methods?: string[];
}

type KindName = 'collections' | 'fileGroups' | 'channels' | 'connections';

/** The runtime policy document (src/policy/document.ts), as loosely as the JSON beside the form. */
export type PolicyDoc = { defaultMode?: string } & Partial<Record<KindName, Record<string, EntryPolicy>>>;

/** The document being edited: the form and the JSON show the same one. */
export interface PolicyState {
  doc: PolicyDoc;
}

/** What each preset grants before overrides (GET …/capabilities `presets`). */
export type PresetRights = Partial<Record<string, Rights>>;

type Edit = (fn: () => void, redraw?: boolean) => void;

const WHO: Partial<Record<string, string>> = {
  none: 'nobody',
  own: 'the author',
  editors: 'owners and editors',
  own_and_editors: 'the author, owners and editors',
  viewers: 'everyone who can open it',
};
const PRESETS: Partial<Record<string, string>> = {
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
] as const;
const RIGHTS = ['none', 'own', 'editors', 'own_and_editors', 'viewers'];
/** The server names the author, so "own" makes no sense for adding. */
const CREATE_RIGHTS = ['none', 'editors', 'viewers'];
const AUDIENCE = ['none', 'editors', 'viewers'];
const CHANNEL_RIGHTS = [
  ['subscribe', 'receive messages'],
  ['publish', 'send messages'],
  ['seePresence', 'see who is here'],
  ['participatePresence', 'show up as present'],
] as const;
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** defaultMode's three values, said in the presets' words (one vocabulary on the page). */
const MODES = {
  participation: 'Contributions: everyone reads and adds, people change their own',
  read_only: 'Managed: everyone reads, owners and editors write',
  collaboration: 'Collaborative: everyone writes',
};
interface Start {
  preset: string;
  publish: string;
  audience: string;
}
/** What a new entry starts as, by defaultMode (spec: only the dashboard's starting choice). */
const STARTS: Partial<Record<string, Start>> = {
  read_only: { preset: 'managed', publish: 'editors', audience: 'editors' },
  participation: { preset: 'contributions', publish: 'viewers', audience: 'viewers' },
  collaboration: { preset: 'collaborative', publish: 'viewers', audience: 'viewers' },
};
/**
 * With no defaultMode: collections and file groups start as Contributions,
 * which fits a poll or a sign-up sheet; channels and Connections start
 * closed to all but owners and editors (widening those is a choice).
 */
const UNSET_START: Start = { preset: 'contributions', publish: 'editors', audience: 'editors' };
const KINDS: Array<[KindName, string, string]> = [
  ['collections', 'Collections', 'collection'],
  ['fileGroups', 'File groups', 'file group'],
  ['channels', 'Realtime channels', 'channel'],
  ['connections', 'Connections', 'connection'],
];

function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  return e;
}

let ids = 0;
/** A label for `control` by id (so its accessible name is the label's words alone), both in one span. */
function labelled(text: string, control: HTMLElement): HTMLSpanElement {
  control.id = `pf-${++ids}`;
  const label = el('label', text + ' ');
  label.htmlFor = control.id;
  const wrap = el('span');
  wrap.className = 'field';
  wrap.append(label, control);
  return wrap;
}

/** A labelled <select> of [value, words] pairs that calls `onChange(value)`; `select` is the control itself. */
function choice(
  label: string,
  options: Array<readonly [string, string | undefined]>,
  value: string | undefined,
  onChange: (value: string) => void,
): { field: HTMLSpanElement; select: HTMLSelectElement } {
  const select = el('select');
  for (const [v, words] of options) {
    const o = el('option', words ?? v);
    o.value = v;
    o.selected = v === value;
    select.append(o);
  }
  select.addEventListener('change', () => onChange(select.value));
  return { field: labelled(label, select), select };
}

/**
 * Renders `state.doc` into `container`. `presets` (what each preset grants,
 * from the server) may be null until it arrives; `changed()` is called after
 * every edit.
 */
export function renderPolicyForm(container: HTMLElement, state: PolicyState, presets: PresetRights | null, changed: () => void): void {
  const doc = state.doc;
  const edit: Edit = (fn, redraw = false) => {
    fn();
    changed();
    if (redraw) renderPolicyForm(container, state, presets, changed);
  };
  container.replaceChildren();
  container.append(
    choice('New entries start as', [['', 'Not set: Contributions'], ...Object.entries(MODES)], doc.defaultMode || '', (v) =>
      edit(() => {
        if (v) doc.defaultMode = v;
        else delete doc.defaultMode;
      }),
    ).field,
  );
  const start = (doc.defaultMode && STARTS[doc.defaultMode]) || UNSET_START;
  for (const [kind, title, one] of KINDS) {
    const section = el('fieldset');
    section.className = 'policy-kind';
    section.dataset.kind = kind;
    section.append(el('legend', title));
    const entries = doc[kind] || {};
    for (const [name, policy] of Object.entries(entries)) section.append(entry(kind, name, policy, presets, edit, doc));
    if (Object.keys(entries).length === 0) section.append(el('p', `No ${one} has a policy.`));
    const add = el('form');
    add.className = 'policy-add';
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
        doc[kind] = { ...doc[kind], [name]: fresh(kind, start) };
      }, true);
    });
    section.append(add);
    container.append(section);
  }
}

function fresh(kind: KindName, start: Start): EntryPolicy {
  if (kind === 'channels') return { subscribe: 'viewers', publish: start.publish, seePresence: 'viewers', participatePresence: 'viewers' };
  if (kind === 'connections') return { audience: start.audience };
  return { preset: start.preset };
}

function entry(
  kind: KindName,
  name: string,
  policy: EntryPolicy,
  presets: PresetRights | null,
  edit: Edit,
  doc: PolicyDoc,
): HTMLFieldSetElement {
  const box = el('fieldset');
  box.className = 'policy-entry';
  box.dataset.name = name;
  box.append(el('legend', name));
  const remove = el('button', `Remove ${name}`);
  remove.type = 'button';
  remove.addEventListener('click', () =>
    edit(() => {
      const entries = doc[kind];
      if (!entries) return;
      delete entries[name];
      if (Object.keys(entries).length === 0) delete doc[kind];
    }, true),
  );
  if (kind === 'channels') {
    for (const [right, verb] of CHANNEL_RIGHTS)
      box.append(
        choice(
          `Who may ${verb}`,
          AUDIENCE.map((a) => [a, WHO[a]] as const),
          policy[right],
          (v) => edit(() => (policy[right] = v)),
        ).field,
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
      ).field,
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

function presetControls(box: HTMLFieldSetElement, kind: KindName, policy: EntryPolicy, presets: PresetRights | null, edit: Edit): void {
  const granted = (preset: string | undefined) => (preset && presets ? presets[preset] : undefined);
  const why = el('p', (policy.preset && PRESETS[policy.preset]) || '');
  why.className = 'muted';
  const summary = el('p');
  summary.className = 'policy-summary';
  const showSummary = () => {
    const base = granted(policy.preset);
    if (!base) return;
    const rights: Partial<Record<string, string>> = { ...base, ...policy.overrides };
    summary.textContent = 'In effect: ' + OPERATIONS.map(([op, verb]) => `${verb}: ${WHO[rights[op] ?? '']}`).join('; ') + '.';
  };
  box.append(
    choice(
      'Preset',
      Object.keys(PRESETS).map((p) => [p, p] as const),
      policy.preset,
      (v) =>
        edit(() => {
          policy.preset = v;
          why.textContent = PRESETS[v] ?? '';
          const rights = granted(v);
          for (const [op] of OPERATIONS) {
            const first = box.querySelector(`select[data-op="${op}"] option`);
            if (first && rights) first.textContent = `as the preset: ${WHO[rights[op]]}`;
          }
          showSummary();
        }),
    ).field,
    why,
  );
  const overrides = el('div');
  overrides.className = 'policy-overrides';
  for (const [op, verb] of OPERATIONS) {
    const rights = granted(policy.preset);
    const inherited = rights ? `as the preset: ${WHO[rights[op]]}` : 'as the preset';
    const allowed = op === 'create' ? CREATE_RIGHTS : RIGHTS;
    const { field, select } = choice(
      `Who may ${verb}`,
      [['', inherited], ...allowed.map((r) => [r, WHO[r]] as const)],
      policy.overrides?.[op] || '',
      (v) =>
        edit(() => {
          const o = { ...policy.overrides };
          if (v) o[op] = v;
          else delete o[op];
          if (Object.keys(o).length) policy.overrides = o;
          else delete policy.overrides;
          showSummary();
        }),
    );
    select.dataset.op = op;
    overrides.append(field);
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
      ).field,
    );
  }
  box.append(summary);
  showSummary();
}
