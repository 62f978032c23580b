// The canvas page's "Transfer ownership" form (PUT /api/canvases/{id}/owner):
// shown to the owner and to instance admins; asks for confirmation, then
// reopens the page, where the caller is now an editor (or still an admin).
// canvas-page.ts starts it and shows it for each canvas it opens.
import type { CanvasSectionDeps, CanvasView } from './canvas-deps.ts';
import { byId, field } from './elements.ts';
import { showError, toast } from './ui.ts';

let deps: CanvasSectionDeps;
let canvas: CanvasView | null = null;

async function transfer(e: SubmitEvent): Promise<void> {
  e.preventDefault();
  const form = byId('cp-transfer', HTMLFormElement);
  const email = field(form, 'email').value.trim();
  const c = canvas;
  if (!email || !c) return;
  if (
    !confirm(
      `Give "${c.title}" to ${email}? They become its owner; you stay on its list as an editor, and only they (or an admin) can give it back.`,
    )
  )
    return;
  const res = await deps.api('PUT', `/api/canvases/${encodeURIComponent(c.id)}/owner`, { email });
  if (res.status !== 200) return showError('cp-transfer-error', res, deps.problem);
  showError('cp-transfer-error', null, deps.problem);
  form.reset();
  toast(`"${c.title}" now belongs to ${email}.`, 'done', `owner-${c.id}`);
  await Promise.all([deps.reopen(c.id), deps.loadCanvases()]);
}

/** `given`: the canvas page's deps plus `reopen(id)`. */
export function startOwner(given: CanvasSectionDeps): void {
  deps = given;
  byId('cp-transfer', HTMLFormElement).addEventListener('submit', (e) => void transfer(e));
}

/** Only the owner and admins may give a canvas away. */
export function showOwner(c: CanvasView): void {
  canvas = c;
  byId('cp-transfer').hidden = c.role !== 'owner' && c.role !== 'admin';
  showError('cp-transfer-error', null, deps.problem);
}
