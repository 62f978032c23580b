// The canvas page's danger zone: Archive (asked in a dialog), Restore when
// archived, and Delete, which asks in a dialog for the canvas's slug typed
// out (the slug, not the title: it is unique, short and what the CLI asks
// for too). Shown to the owner and to admins, the only ones the API lets do
// these. canvas-page.ts starts it and shows it for each canvas it opens.
import type { CanvasSectionDeps, CanvasView } from './canvas-deps.ts';
import { byId, field, find } from './elements.ts';
import { type ApiAnswer, ask, showError as showErrorIn, toast } from './ui.ts';

let deps: CanvasSectionDeps;
let canvas: CanvasView | null = null;
const path = (c: CanvasView) => `/api/canvases/${encodeURIComponent(c.id)}`;
const showError = (res: ApiAnswer | null) => showErrorIn('cp-danger-error', res, deps.problem);
const deleteForm = () => byId('cp-delete-form', HTMLFormElement);

/** Opens dialog `id` modally (focus stays inside, Escape cancels); resolves with the button's value, focus back on `from`. */
function askAbout(c: CanvasView, id: string, from: EventTarget | null): Promise<unknown> {
  const dialog = byId(id, HTMLDialogElement);
  for (const name of dialog.querySelectorAll('.cp-danger-name')) name.textContent = `"${c.title}"`;
  return ask(dialog, from instanceof HTMLElement ? from : byId('cp-danger'));
}

async function archive(e: Event): Promise<void> {
  const c = canvas;
  if (!c || (await askAbout(c, 'cp-archive-dialog', e.currentTarget)) !== 'archive') return;
  const res = await deps.api('POST', `${path(c)}/archive`);
  if (res.status !== 200) return showError(res);
  showError(null);
  toast(`"${c.title}" is archived: its address no longer answers. Restore brings it back.`, 'done', `danger-${c.id}`);
  await Promise.all([deps.reopen(c.id), deps.loadCanvases()]);
}

async function restore(): Promise<void> {
  const c = canvas;
  if (!c) return;
  const res = await deps.api('POST', `${path(c)}/restore`);
  if (res.status !== 200) return showError(res);
  showError(null);
  // Restoring brings back what was live: a canvas that never published anything still has no page.
  const said = c.publicationState === 'published' ? 'is restored and answers again.' : 'is restored; it has nothing published yet.';
  toast(`"${c.title}" ${said}`, 'done', `danger-${c.id}`);
  await Promise.all([deps.reopen(c.id), deps.loadCanvases()]);
}

async function remove(e: Event): Promise<void> {
  const c = canvas;
  if (!c) return;
  const form = deleteForm();
  form.reset();
  byId('cp-delete-confirm', HTMLButtonElement).disabled = true;
  byId('cp-delete-slug').textContent = c.slug;
  if ((await askAbout(c, 'cp-delete-dialog', e.currentTarget)) !== 'delete') return;
  // The Delete button (also what Enter presses) is enabled only once the slug matches; checked again all the same.
  if (field(form, 'confirm').value.trim() !== c.slug) return;
  const res = await deps.api('DELETE', path(c));
  if (res.status !== 200) return showError(res);
  showError(null);
  location.hash = '#/';
  toast(`"${c.title}" is deleted.`, 'done', `danger-${c.id}`);
  await deps.loadCanvases();
}

function wireDialogs(): void {
  for (const id of ['cp-archive-dialog', 'cp-delete-dialog']) {
    const dialog = byId(id, HTMLDialogElement);
    find(dialog, '.dialog-cancel', HTMLButtonElement).addEventListener('click', () => dialog.close('cancel'));
  }
  const typed = field(deleteForm(), 'confirm');
  typed.addEventListener('input', () => {
    byId('cp-delete-confirm', HTMLButtonElement).disabled = typed.value.trim() !== canvas?.slug;
  });
}

/** `given`: the canvas page's deps plus `reopen(id)`. */
export function startDanger(given: CanvasSectionDeps): void {
  deps = given;
  byId('cp-archive').addEventListener('click', (e) => void archive(e));
  byId('cp-restore').addEventListener('click', () => void restore());
  byId('cp-delete').addEventListener('click', (e) => void remove(e));
  wireDialogs();
}

export function showDanger(c: CanvasView): void {
  canvas = c;
  const mayAct = c.role === 'owner' || c.role === 'admin';
  const archived = c.status === 'archived';
  byId('cp-danger').hidden = !mayAct;
  byId('cp-archived-note').hidden = !archived;
  byId('cp-archive').hidden = archived;
  byId('cp-restore').hidden = !archived;
  showError(null);
}
