// The canvas page's danger zone: Archive (asked in a dialog), Restore when
// archived, and Delete, which asks in a dialog for the canvas's slug typed
// out (the slug, not the title: it is unique, short and what the CLI asks
// for too). Shown to the owner and to admins, the only ones the API lets do
// these. canvas-page.js starts it and shows it for each canvas it opens.
// @ts-nocheck -- moved from plain JS; typed file by file next
import { easelUi } from './ui.ts';

export const easelCanvasDanger = (() => {
  const $ = (id) => document.getElementById(id);
  let deps = null;
  let canvas = null;
  const path = () => `/api/canvases/${encodeURIComponent(canvas.id)}`;
  const showError = (res) => easelUi.showError('cp-danger-error', res, deps.problem);

  /** Opens `dialog` modally (focus stays inside, Escape cancels); resolves with the button's value, focus back on `from`. */
  function ask(dialog, from) {
    for (const name of dialog.querySelectorAll('.cp-danger-name')) name.textContent = `"${canvas.title}"`;
    return easelUi.ask(dialog, from);
  }

  async function archive(e) {
    if ((await ask($('cp-archive-dialog'), e.currentTarget)) !== 'archive') return;
    const res = await deps.api('POST', `${path()}/archive`);
    if (res.status !== 200) return showError(res);
    showError(null);
    deps.notice(`"${canvas.title}" is archived: its address no longer answers. Restore brings it back.`);
    await Promise.all([deps.reopen(canvas.id), deps.loadCanvases()]);
  }

  async function restore() {
    const res = await deps.api('POST', `${path()}/restore`);
    if (res.status !== 200) return showError(res);
    showError(null);
    deps.notice(`"${canvas.title}" is restored and answers again.`);
    await Promise.all([deps.reopen(canvas.id), deps.loadCanvases()]);
  }

  async function remove(e) {
    const form = $('cp-delete-form');
    form.reset();
    $('cp-delete-confirm').disabled = true;
    $('cp-delete-slug').textContent = canvas.slug;
    if ((await ask($('cp-delete-dialog'), e.currentTarget)) !== 'delete') return;
    // The Delete button (also what Enter presses) is enabled only once the slug matches; checked again all the same.
    if (form.confirm.value.trim() !== canvas.slug) return;
    const res = await deps.api('DELETE', path());
    if (res.status !== 200) return showError(res);
    showError(null);
    const title = canvas.title;
    location.hash = '#/';
    deps.notice(`"${title}" is deleted.`);
    await deps.loadCanvases();
  }

  function wireDialogs() {
    for (const dialog of [$('cp-archive-dialog'), $('cp-delete-dialog')]) {
      dialog.querySelector('.dialog-cancel').addEventListener('click', () => dialog.close('cancel'));
    }
    const form = $('cp-delete-form');
    form.confirm.addEventListener('input', () => {
      $('cp-delete-confirm').disabled = form.confirm.value.trim() !== canvas.slug;
    });
  }

  return {
    /** `given`: the canvas page's deps plus `reopen(id)`. */
    start(given) {
      deps = given;
      $('cp-archive').addEventListener('click', archive);
      $('cp-restore').addEventListener('click', restore);
      $('cp-delete').addEventListener('click', remove);
      wireDialogs();
    },
    show(c) {
      canvas = c;
      const mayAct = c.role === 'owner' || c.role === 'admin';
      const archived = c.status === 'archived';
      $('cp-danger').hidden = !mayAct;
      $('cp-archived-note').hidden = !archived;
      $('cp-archive').hidden = archived;
      $('cp-restore').hidden = !archived;
      showError(null);
    },
  };
})();
