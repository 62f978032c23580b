// The canvas page's "Transfer ownership" form (PUT /api/canvases/{id}/owner):
// shown to the owner and to instance admins; asks for confirmation, then
// reopens the page, where the caller is now an editor (or still an admin).
// canvas-page.js starts it and shows it for each canvas it opens.
// @ts-nocheck -- moved from plain JS; typed file by file next
import { easelUi } from './ui.ts';

export const easelCanvasOwner = (() => {
  const $ = (id) => document.getElementById(id);
  let deps = null;
  let canvas = null;

  async function transfer(e) {
    e.preventDefault();
    const form = e.target;
    const email = form.email.value.trim();
    if (!email || !canvas) return;
    if (
      !confirm(
        `Give "${canvas.title}" to ${email}? They become its owner; you stay on its list as an editor, and only they (or an admin) can give it back.`,
      )
    )
      return;
    const res = await deps.api('PUT', `/api/canvases/${encodeURIComponent(canvas.id)}/owner`, { email });
    if (res.status !== 200) return easelUi.showError('cp-transfer-error', res, deps.problem);
    easelUi.showError('cp-transfer-error', null, deps.problem);
    form.reset();
    deps.notice(`"${canvas.title}" now belongs to ${email}.`);
    await Promise.all([deps.reopen(canvas.id), deps.loadCanvases()]);
  }

  return {
    /** `given`: the canvas page's deps plus `reopen(id)`. */
    start(given) {
      deps = given;
      $('cp-transfer').addEventListener('submit', transfer);
    },
    /** Only the owner and admins may give a canvas away. */
    show(c) {
      canvas = c;
      $('cp-transfer').hidden = c.role !== 'owner' && c.role !== 'admin';
      easelUi.showError('cp-transfer-error', null, deps.problem);
    },
  };
})();
