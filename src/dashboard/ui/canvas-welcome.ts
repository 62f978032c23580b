// A canvas with nothing published yet opens on deploying its first version:
// the Deploy block (its drop zone) moves to the top of the canvas page, and
// right after Create the deploy key for CI is there too, shown this once.
// Once a version is live the block goes back to its place. canvas-page.js
// calls show() for each canvas it opens; app.js calls created() after Create.
// @ts-nocheck -- moved from plain JS; typed file by file next
export const easelCanvasWelcome = (() => {
  const $ = (id) => document.getElementById(id);
  /** The canvas just created here, with its key (kept in memory only, shown once). */
  let fresh = null;
  /** Where the Deploy block lives when it is not first (the element it comes before). */
  let home = null;

  function showKey(canvas) {
    const box = $('cp-welcome-key');
    if (!fresh || fresh.id !== canvas.id) {
      box.hidden = true;
      $('cp-welcome-key-value').textContent = '';
      $('cp-welcome-curl').textContent = '';
      return;
    }
    const deploy = new URL(`/v1/canvases/${encodeURIComponent(canvas.id)}/deploy`, location.origin).href;
    $('cp-welcome-key-value').textContent = fresh.apiKey;
    $('cp-welcome-curl').textContent =
      `curl -X PUT --data-binary @site.zip \\\n  -H "Authorization: Bearer ${fresh.apiKey}" \\\n  ${deploy}`;
    box.hidden = false;
  }

  return {
    /** Right after Create: this canvas's page shows its key (for CI) once. */
    created(canvas, apiKey) {
      fresh = { id: canvas.id, apiKey };
    },
    show(canvas) {
      const box = $('cp-deploy-box');
      home ??= box.nextElementSibling;
      const first = canvas.publicationState !== 'published' && canvas.status === 'active' && canvas.role !== 'viewer';
      if (first) $('cp-title').after(box);
      else home.before(box);
      box.classList.toggle('welcome', first);
      $('cp-deploy-title').textContent = first ? 'Deploy its first version' : 'Deploy';
      $('cp-welcome-text').hidden = !first;
      showKey(canvas);
      // Fresh from Create: the person lands on the drop zone, ready to drop or pick a folder.
      if (first && fresh?.id === canvas.id) $('cp-drop').focus();
    },
  };
})();

document
  .getElementById('cp-welcome-copy-key')
  .addEventListener('click', () => navigator.clipboard?.writeText(document.getElementById('cp-welcome-key-value').textContent));
