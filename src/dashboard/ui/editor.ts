// The dashboard's editor (#/canvas/<id>/edit; issue 18 item 4): the person's
// own draft of a canvas, file by file in CodeMirror, previewed on the
// canvas's origin, published as a new version. A draft made stale by someone
// else's deploy shows what changed (base against live, side by side) and
// offers rebase or discard. Loaded on demand by app.ts (its own bundle), which passes
// its one API client; every server string is set as text.
import { css } from '@codemirror/lang-css';
import { html } from '@codemirror/lang-html';
import { javascript } from '@codemirror/lang-javascript';
import { json } from '@codemirror/lang-json';
import { MergeView } from '@codemirror/merge';
import { EditorState, type Extension } from '@codemirror/state';
import { keymap } from '@codemirror/view';
import { basicSetup, EditorView } from 'codemirror';
import { refusalCode } from './canvas-deps.ts';
import { editorColours } from './editor-colours.ts';
import type { Api, ApiAnswer, Problem } from './ui.ts';

/** What app.ts lends the editor: its API client and refusal words. */
interface Deps {
  api: Api;
  problem: Problem;
}

/** The canvas being edited, as GET /api/canvases/{id} gives it (the parts used here). */
interface EditedCanvas {
  id: string;
  title: string;
  url: string;
}

interface DraftFile {
  path: string;
  size: number;
  hash: string | null;
  edited: boolean;
  text: boolean;
}

interface DraftChange {
  path: string;
  change: 'added' | 'removed' | 'modified';
  editedInDraft: boolean;
}

interface Draft {
  baseVersion: number | null;
  liveVersion: number | null;
  stale: { version: number; changes: DraftChange[] } | null;
  editedCount: number;
  files: DraftFile[];
  /** The draft on the canvas's origin; its path carries the credential (no session reaches a cross-site frame). */
  previewUrl: string;
}

/** A file saved to the draft: the draft as it is now, and what the key scan found. */
interface Saved {
  draft: Draft;
  warnings: string[];
}

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const enc = encodeURIComponent;

let deps: Deps;
let canvas: EditedCanvas | null = null;
let draft: Draft | null = null;
let selected: string | null = null;
/** The selected file's content as last saved (or loaded): the editor differs from it when there are unsaved changes. */
let saved = '';
let view: EditorView | null = null;
let merge: MergeView | null = null;
let wired = false;

const path = (suffix = '') => `/api/canvases/${enc(canvas!.id)}/draft${suffix}`;
const fileQuery = (p: string) => `?path=${enc(p)}`;

function showError(res: ApiAnswer | null, message?: string): void {
  const el = $('ed-error');
  el.textContent = message ?? (res ? deps.problem(res) : '');
  el.hidden = !el.textContent;
}

function languageOf(p: string): Extension[] {
  if (/\.html?$/i.test(p) || /\.svg$/i.test(p)) return [html()];
  if (/\.css$/i.test(p)) return [css()];
  if (/\.(m?js|cjs|jsx)$/i.test(p)) return [javascript()];
  if (/\.(ts|tsx)$/i.test(p)) return [javascript({ typescript: true })];
  if (/\.(json|webmanifest)$/i.test(p)) return [json()];
  return [];
}

/**
 * CodeMirror lives in a shadow root: there its styles are constructed sheets,
 * which the dashboard's CSP (style-src 'self', no inline styles) allows; in
 * the document itself it would need a <style> element.
 */
function shadowOf(host: HTMLElement): ShadowRoot {
  return host.shadowRoot ?? host.attachShadow({ mode: 'open' });
}

/** Sizes that the dashboard's style sheet cannot reach inside a shadow root. */
const frame = (height: string) =>
  EditorView.theme({ '&': { height, border: '1px solid var(--line)' }, '.cm-scroller': { overflow: 'auto' } });

const dirty = () => view !== null && view.state.doc.toString() !== saved;

function showDirty(): void {
  const isDirty = dirty();
  $('ed-dirty').textContent = isDirty ? 'unsaved changes' : '';
  $('editor-page').dataset.dirty = String(isDirty);
}

function editorFor(p: string, text: string): void {
  view?.destroy();
  const root = shadowOf($('ed-code'));
  view = new EditorView({
    root,
    parent: root,
    state: EditorState.create({
      doc: text,
      extensions: [
        basicSetup,
        ...editorColours,
        frame('28rem'),
        ...languageOf(p),
        keymap.of([{ key: 'Mod-s', preventDefault: true, run: () => (void save(), true) }]),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) showDirty();
        }),
        // An explicit tabindex: axe (and some assistive tools) do not count a contenteditable as focusable content of its scroller.
        EditorView.contentAttributes.of({ 'aria-label': `Content of ${p}`, tabindex: '0' }),
      ],
    }),
  });
}

async function open(id: string, given: Deps): Promise<void> {
  deps = given;
  wire();
  const page = $('editor-page');
  delete page.dataset.ready;
  const c = await deps.api<EditedCanvas>('GET', `/api/canvases/${enc(id)}`);
  if (c.status !== 200) {
    showError(c);
    return;
  }
  canvas = c.data;
  $('ed-title').textContent = `Editing ${c.data.title}`;
  $<HTMLAnchorElement>('ed-back').href = `#/canvas/${enc(c.data.id)}`;
  await loadDraft();
  const files = draft?.files ?? [];
  const first = files.find((f) => f.path === 'index.html') ?? files.find((f) => f.text && f.hash) ?? null;
  await select(first?.path ?? null);
  page.dataset.ready = c.data.id;
}

async function loadDraft(): Promise<void> {
  const res = await deps.api<Draft>('GET', path());
  if (res.status !== 200) {
    showError(res);
    return;
  }
  render(res.data);
}

function render(next: Draft): void {
  draft = next;
  const base = next.baseVersion === null ? 'a new canvas (nothing published yet)' : `version ${next.baseVersion}`;
  const edits = next.editedCount === 0 ? 'no unpublished edits' : `${next.editedCount} edited file${next.editedCount === 1 ? '' : 's'}`;
  $('ed-status').textContent = `Your draft, started from ${base}: ${edits}.`;
  renderStale(next);
  const list = $('ed-files');
  list.replaceChildren();
  for (const f of next.files) {
    const li = document.createElement('li');
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = f.path;
    b.dataset.path = f.path;
    if (f.edited) b.classList.add('edited');
    if (f.hash === null) {
      b.classList.add('deleted');
      b.title = 'deleted in your draft';
    }
    b.setAttribute('aria-current', String(f.path === selected));
    b.addEventListener('click', () => void select(f.path));
    li.append(b);
    list.append(li);
  }
  $<HTMLButtonElement>('ed-publish').disabled = next.stale !== null;
}

function renderStale(next: Draft): void {
  const box = $('ed-stale');
  box.hidden = next.stale === null;
  $('ed-compare').hidden = true;
  merge?.destroy();
  merge = null;
  if (!next.stale) return;
  $('ed-stale-text').textContent =
    `Version ${next.stale.version} went live after your draft started (from version ${next.baseVersion ?? '–'}). ` +
    'Your edits are kept and were not overwritten. What changed in the live version:';
  const list = $('ed-changes');
  list.replaceChildren();
  for (const c of next.stale.changes) {
    const li = document.createElement('li');
    const what = c.change === 'added' ? 'added' : c.change === 'removed' ? 'removed' : 'changed';
    li.textContent = `${c.path}: ${what}${c.editedInDraft ? ' (you edited it too)' : ''} `;
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = 'Show the change';
    b.addEventListener('click', () => void compare(c));
    li.append(b);
    list.append(li);
  }
}

/** The live version's change to one file, against the version the draft started from. */
async function compare(c: DraftChange): Promise<void> {
  const read = async (from: 'base' | 'live') => {
    if ((from === 'base' && c.change === 'added') || (from === 'live' && c.change === 'removed')) return '';
    const res = await deps.api('GET', path(`/file${fileQuery(c.path)}&from=${from}`));
    return res.status === 200 ? res.text : '';
  };
  const [before, after] = await Promise.all([read('base'), read('live')]);
  merge?.destroy();
  const extensions = [
    basicSetup,
    ...editorColours,
    EditorView.lineWrapping,
    EditorView.editable.of(false),
    EditorState.readOnly.of(true),
    ...languageOf(c.path),
  ];
  const root = shadowOf($('ed-merge'));
  merge = new MergeView({
    a: { doc: before, extensions },
    b: { doc: after, extensions },
    parent: root,
    root,
  });
  $('ed-compare-title').textContent = `${c.path}: left, as your draft started; right, as it is live now.`;
  $('ed-compare').hidden = false;
}

async function select(p: string | null): Promise<void> {
  if (dirty() && !(await save())) return;
  selected = p;
  showError(null);
  for (const b of document.querySelectorAll<HTMLButtonElement>('#ed-files button'))
    b.setAttribute('aria-current', String(b.dataset.path === p));
  $('ed-path').textContent = p ?? '';
  const file = draft?.files.find((f) => f.path === p) ?? null;
  const editable = file !== null && file.hash !== null && file.text;
  $('ed-binary').hidden = file === null || editable || file.hash === null;
  $<HTMLButtonElement>('ed-save').disabled = !editable;
  $<HTMLButtonElement>('ed-delete').disabled = file === null || file.hash === null;
  $<HTMLButtonElement>('ed-revert').disabled = !file?.edited;
  if (!editable) {
    view?.destroy();
    view = null;
    saved = '';
  } else {
    const res = await deps.api('GET', path(`/file${fileQuery(p!)}`));
    if (res.status !== 200) return showError(res);
    saved = res.text;
    editorFor(p!, saved);
  }
  showDirty();
  refreshPreview();
}

/** Saves the open file; false when the server refused (the error is shown). */
async function save(): Promise<boolean> {
  if (!view || selected === null) return true;
  const text = view.state.doc.toString();
  const res = await deps.api<Saved>('PUT', path(`/file${fileQuery(selected)}`), undefined, { raw: text });
  if (res.status !== 200) {
    showError(res);
    return false;
  }
  saved = text;
  showError(null);
  showWarnings(res.data.warnings);
  render(res.data.draft);
  $<HTMLButtonElement>('ed-revert').disabled = !res.data.draft.files.find((f) => f.path === selected)?.edited;
  showDirty();
  refreshPreview();
  return true;
}

function showWarnings(warnings: string[]): void {
  const list = $('ed-warnings');
  list.replaceChildren();
  for (const w of warnings) {
    const li = document.createElement('li');
    li.textContent = w;
    list.append(li);
  }
}

/** The draft's page for the selected HTML file (else its root), on the canvas's origin. */
function refreshPreview(): void {
  if (!canvas) return;
  const page = selected && /\.html?$/i.test(selected) && draft?.files.find((f) => f.path === selected)?.hash ? selected : '';
  if (!draft) return;
  const url = `${draft.previewUrl}${page.split('/').map(enc).join('/')}`;
  const frame = $<HTMLIFrameElement>('ed-preview');
  frame.src = `${url}${url.includes('?') ? '&' : '?'}t=${Date.now()}`;
  $<HTMLAnchorElement>('ed-preview-open').href = url;
}

async function act(method: string, suffix: string, body?: unknown): Promise<boolean> {
  const res = await deps.api<Draft>(method, path(suffix), body);
  if (res.status !== 200) {
    showError(res);
    return false;
  }
  render(res.data);
  return true;
}

function wire(): void {
  if (wired) return;
  wired = true;
  $('ed-save').addEventListener('click', () => void save());
  $('ed-refresh').addEventListener('click', () => refreshPreview());
  $('ed-revert').addEventListener('click', async () => {
    if (selected === null || !confirm(`Undo your changes to ${selected}?`)) return;
    saved = '';
    view?.destroy();
    view = null;
    if (await act('POST', '/revert', { path: selected })) await select(draft?.files.some((f) => f.path === selected) ? selected : null);
  });
  $('ed-delete').addEventListener('click', async () => {
    if (selected === null || !confirm(`Delete ${selected} from your draft?`)) return;
    view?.destroy();
    view = null;
    if (await act('DELETE', `/file${fileQuery(selected)}`)) await select(null);
  });
  $('ed-new').addEventListener('submit', async (event) => {
    event.preventDefault();
    const input = (event.target as HTMLFormElement).querySelector('input') as HTMLInputElement;
    const name = input.value.trim();
    if (draft?.files.some((f) => f.path === name && f.hash !== null)) return void select(name);
    const res = await deps.api<Saved>('PUT', path(`/file${fileQuery(name)}`), undefined, { raw: '' });
    if (res.status !== 200) return showError(res);
    input.value = '';
    render(res.data.draft);
    await select(name);
  });
  $('ed-rebase').addEventListener('click', async () => {
    if (await act('POST', '/rebase')) await select(selected);
  });
  $('ed-discard').addEventListener('click', async () => {
    if (!confirm('Discard your draft and every unpublished edit in it?')) return;
    const res = await deps.api('DELETE', path());
    if (res.status !== 204) return showError(res);
    view?.destroy();
    view = null;
    saved = '';
    await loadDraft();
    await select(draft?.files.some((f) => f.path === selected) ? selected : null);
  });
  $('ed-publish').addEventListener('click', async () => {
    if (dirty() && !(await save())) return;
    const status = $('ed-publish-status');
    status.textContent = 'Publishing…';
    const res = await deps.api<{ version: number; warnings: string[] }>('POST', path('/publish'), {});
    if (res.status !== 200) {
      status.textContent = '';
      showError(res);
      if (refusalCode(res) === 'DRAFT_STALE') await loadDraft();
      return;
    }
    await loadDraft();
    $<HTMLButtonElement>('ed-revert').disabled = true;
    showWarnings(res.data.warnings);
    status.textContent = `Published as version ${res.data.version}.`;
  });
}

/** Leaving the editor: unsaved changes go to the draft first (a refusal keeps them on screen, with the error). */
async function close(): Promise<void> {
  if (dirty() && !(await save())) return;
  view?.destroy();
  view = null;
  merge?.destroy();
  merge = null;
  canvas = null;
  draft = null;
  selected = null;
  saved = '';
  $<HTMLIFrameElement>('ed-preview').removeAttribute('src');
}

/** Whether leaving would lose unsaved changes (the router asks before navigating away). */
const hasUnsavedChanges = () => dirty();

(window as unknown as { easelEditor: unknown }).easelEditor = { open, close, hasUnsavedChanges };
