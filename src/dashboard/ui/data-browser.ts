// The Data section's browser: one kind of a canvas's data at a time (shared
// keys, a collection, a submissions collection, the files) as a table a page
// at a time from GET …/data/{kind}/items, with a search and "Load more", and
// a Delete per row (DELETE …/items/{item}) after a confirmation naming what
// goes. The server decides what may be read and deleted (the runtime API's
// rules); a refusal is shown as the server words it. Every server string is
// set as text, never as HTML.
import { byId, field } from './elements.ts';
import { type Api, type ApiAnswer, button, bytes, cell } from './ui.ts';

const enc = encodeURIComponent;
const PAGE = 50;
/** Values longer than this show their beginning; the whole opens below it. */
const SHORT = 80;

const problem = (res: ApiAnswer): string => {
  const d: unknown = res.data;
  if (typeof d === 'object' && d !== null) {
    if ('message' in d && typeof d.message === 'string' && d.message) return d.message;
    if ('code' in d && typeof d.code === 'string' && d.code) return d.code;
  }
  return `HTTP ${res.status}`;
};

/** Every item of a page says whether this person may delete it (the server decides). */
interface Item {
  deletable: boolean;
}
/** The rows of …/data/{kind}/items (src/canvas-data: their fixed columns, then `value`). */
interface KvItem extends Item {
  key: string;
  value: unknown;
}
interface RecordItem extends Item {
  id: string;
  authorId: string;
  name: string | null;
  email: string | null;
  updatedAt: string;
  value: unknown;
}
interface SubmissionItem extends Item {
  userId: string;
  name: string | null;
  email: string | null;
  updatedAt: string;
  value: unknown;
}
interface FileItem extends Item {
  id: string;
  name: string;
  size: number;
  mime: string;
  uploadedBy: string;
  uploaderName: string | null;
  uploaderEmail: string | null;
  createdAt: string;
}

/** What a kind lists: its columns, how a row is drawn, its item's path segment, and the words for a delete. */
interface Kind<T extends Item> {
  columns: string[];
  draw(row: HTMLTableRowElement, item: T): void;
  item(item: T): string;
  what(item: T): string;
}

/** One listed item, its kind's functions already applied. */
interface Entry {
  deletable: boolean;
  draw(row: HTMLTableRowElement): void;
  /** Its path segment under …/items. */
  item: string;
  what: string;
}

type Page = { ok: true; entries: Entry[]; next: string | null } | { ok: false; res: ApiAnswer };

/** A kind as the browser uses it, whatever its items are. */
interface Lister {
  columns: string[];
  page(api: Api, url: string): Promise<Page>;
}

function lister<T extends Item>(kind: Kind<T>): Lister {
  return {
    columns: kind.columns,
    async page(api, url) {
      const res = await api<{ items: T[]; next: string | null }>('GET', url);
      if (res.status !== 200) return { ok: false, res };
      const entries = res.data.items.map((e) => ({
        deletable: e.deletable,
        draw: (row: HTMLTableRowElement) => kind.draw(row, e),
        item: kind.item(e),
        what: kind.what(e),
      }));
      return { ok: true, entries, next: res.data.next };
    },
  };
}

/** "3 minutes ago", the exact time on hover (and in `datetime`). */
function timeCell(row: HTMLTableRowElement, iso: string): void {
  const td = document.createElement('td');
  const time = document.createElement('time');
  const at = new Date(iso);
  time.dateTime = iso;
  time.title = at.toLocaleString();
  time.textContent = relative(at.getTime() - Date.now());
  td.append(time);
  row.append(td);
}

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 24 * 3600e3],
  ['month', 30 * 24 * 3600e3],
  ['day', 24 * 3600e3],
  ['hour', 3600e3],
  ['minute', 60e3],
];
function relative(ms: number): string {
  const words = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  for (const [unit, size] of UNITS) if (Math.abs(ms) >= size) return words.format(Math.round(ms / size), unit);
  return 'just now';
}

/** A JSON value: short ones whole; long ones their beginning, the whole (indented) on expand. */
function valueCell(row: HTMLTableRowElement, value: unknown): void {
  const td = document.createElement('td');
  const text = JSON.stringify(value);
  if (text.length <= SHORT) {
    const code = document.createElement('code');
    code.textContent = text;
    td.append(code);
  } else {
    const details = document.createElement('details');
    const summary = document.createElement('summary');
    summary.textContent = `${text.slice(0, SHORT)}…`;
    const pre = document.createElement('pre');
    pre.textContent = JSON.stringify(value, null, 2);
    details.append(summary, pre);
    td.append(details);
  }
  row.append(td);
}

/** A person by name, their email on hover; the id when neither is known. */
function personCell(row: HTMLTableRowElement, id: string, name: string | null, email: string | null): void {
  const td = cell(row, name || email || id);
  td.title = email || id;
}

const KINDS = {
  kv: lister<KvItem>({
    columns: ['Key', 'Value'],
    draw: (row, e) => {
      cell(row, e.key);
      valueCell(row, e.value);
    },
    item: (e) => e.key,
    what: (e) => `the shared key "${e.key}"`,
  }),
  collection: lister<RecordItem>({
    columns: ['Record', 'Author', 'Updated', 'Value'],
    draw: (row, r) => {
      cell(row, r.id).title = r.id;
      personCell(row, r.authorId, r.name, r.email);
      timeCell(row, r.updatedAt);
      valueCell(row, r.value);
    },
    item: (r) => r.id,
    what: (r) => `record ${r.id} by ${r.name || r.email || r.authorId}`,
  }),
  submissions: lister<SubmissionItem>({
    columns: ['Person', 'Updated', 'Value'],
    draw: (row, s) => {
      personCell(row, s.userId, s.name, s.email);
      timeCell(row, s.updatedAt);
      valueCell(row, s.value);
    },
    item: (s) => s.userId,
    what: (s) => `the submission of ${s.name || s.email || s.userId}`,
  }),
  files: lister<FileItem>({
    columns: ['Name', 'Size', 'Type', 'Uploaded by', 'Uploaded'],
    draw: (row, f) => {
      cell(row, f.name);
      cell(row, bytes(f.size));
      cell(row, f.mime);
      personCell(row, f.uploadedBy, f.uploaderName, f.uploaderEmail);
      timeCell(row, f.createdAt);
    },
    item: (f) => f.id,
    what: (f) => `the file "${f.name}" (${bytes(f.size)})`,
  }),
};

/** What the browser lists: kv, collection, submissions, files. */
export type BrowseKind = keyof typeof KINDS;

/** The browser's state: which list, the search, where the next page starts. */
interface State {
  api: Api;
  kind: Lister;
  path: string;
  label: string;
  onChange: () => Promise<void>;
  q: string;
  next: string | null;
}
let state: State | null = null;
let wired = false;

const rows = () => byId('cp-browse-rows');
const search = () => field(byId('cp-browse-search', HTMLFormElement), 'q');
const more = () => byId('cp-browse-more', HTMLButtonElement);

function showError(res: ApiAnswer | null, doing = ''): void {
  const el = byId('cp-browse-error');
  el.textContent = res ? `${doing}: ${problem(res)}` : '';
  el.hidden = !res;
}

function status(s: State): void {
  const count = rows().children.length;
  const searched = s.q ? ` holding "${s.q}"` : '';
  byId('cp-browse-status').textContent =
    count === 0
      ? s.q
        ? `Nothing here holds "${s.q}".`
        : `${s.label} holds nothing yet.`
      : `Showing ${count.toLocaleString()} ${count === 1 ? 'item' : 'items'}${searched}${s.next === null ? '' : '; there are more'}.`;
  more().hidden = s.next === null;
}

async function loadPage(mine: State): Promise<void> {
  const query = new URLSearchParams({ limit: String(PAGE) });
  if (mine.q) query.set('q', mine.q);
  if (mine.next) query.set('after', mine.next);
  more().disabled = true;
  const page = await mine.kind.page(mine.api, `${mine.path}?${query}`);
  more().disabled = false;
  // Another list or search was opened meanwhile: this answer is no longer wanted.
  if (state !== mine) return;
  if (!page.ok) {
    showError(page.res, 'Could not load');
    return;
  }
  showError(null);
  for (const entry of page.entries) {
    const row = document.createElement('tr');
    entry.draw(row);
    const td = document.createElement('td');
    // The server says what this person may delete (a collection's policy may keep others' records from them).
    if (entry.deletable) {
      const del = button('Delete', () => void remove(row, entry, del));
      del.setAttribute('aria-label', `Delete ${entry.what}`);
      del.classList.add('danger');
      td.append(del);
    } else {
      td.textContent = 'Only its author may delete it';
      td.className = 'muted';
    }
    row.append(td);
    rows().append(row);
  }
  mine.next = page.next;
  status(mine);
  byId('cp-data-browser').dataset.loaded = String(rows().children.length);
}

async function remove(row: HTMLTableRowElement, entry: Entry, del: HTMLButtonElement): Promise<void> {
  const mine = state;
  if (!mine || !confirm(`Delete ${entry.what}? It is gone for everyone, as if the canvas had deleted it.`)) return;
  del.disabled = true;
  const res = await mine.api('DELETE', `${mine.path}/${enc(entry.item)}`);
  del.disabled = false;
  if (res.status !== 200) {
    showError(res, `Could not delete ${entry.what}`);
    return;
  }
  showError(null);
  // Focus stays in the table: on the next row's Delete, else the search box.
  const next = row.nextElementSibling || row.previousElementSibling;
  row.remove();
  (next?.querySelector('button') || search()).focus();
  if (state === mine) status(mine);
  await mine.onChange();
}

function wire(): void {
  if (wired) return;
  wired = true;
  byId('cp-browse-search', HTMLFormElement).addEventListener('submit', (e) => {
    e.preventDefault();
    if (!state) return;
    state = { ...state, q: search().value, next: null };
    rows().replaceChildren();
    void loadPage(state);
  });
  more().addEventListener('click', () => {
    if (state) void loadPage(state);
  });
  byId('cp-browse-close').addEventListener('click', closeDataBrowser);
}

export function closeDataBrowser(): void {
  state = null;
  byId('cp-data-browser').hidden = true;
}

/**
 * Opens the list of `kind` at `path` (…/data/{kind}[/{name}]/items) under
 * the heading `label`; `onChange` runs after a delete (the section's counts).
 */
export function openDataBrowser(api: Api, kind: BrowseKind, path: string, label: string, onChange: () => Promise<void>): Promise<void> {
  wire();
  const chosen = KINDS[kind];
  const mine: State = { api, kind: chosen, path, label, onChange, q: '', next: null };
  state = mine;
  byId('cp-browse-title').textContent = label;
  search().value = '';
  const head = document.createElement('tr');
  for (const name of [...chosen.columns, '']) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = name;
    head.append(th);
  }
  byId('cp-browse-head').replaceChildren(head);
  rows().replaceChildren();
  byId('cp-browse-status').textContent = 'Loading…';
  showError(null);
  delete byId('cp-data-browser').dataset.loaded;
  byId('cp-data-browser').hidden = false;
  byId('cp-browse-title').focus();
  return loadPage(mine);
}
