// A canvas with nothing published yet opens on deploying its first version:
// the Deploy block (its drop zone) moves to the top of the canvas page, and
// right after Create the deploy key for CI is there too, shown this once.
// Once a version is live the block goes back to its place. canvas-page.ts
// calls showWelcome() for each canvas it opens; app.ts calls welcomeCreated()
// after Create.
import type { CanvasView } from './canvas-deps.ts';
import { byId } from './elements.ts';

/** The canvas just created here, with its key (kept in memory only, shown once). */
let fresh: { id: string; apiKey: string } | null = null;
/** Where the Deploy block lives when it is not first (the element it comes before). */
let home: Element | null = null;

function showKey(canvas: CanvasView): void {
  const box = byId('cp-welcome-key');
  if (!fresh || fresh.id !== canvas.id) {
    box.hidden = true;
    byId('cp-welcome-key-value').textContent = '';
    byId('cp-welcome-curl').textContent = '';
    return;
  }
  const deploy = new URL(`/v1/canvases/${encodeURIComponent(canvas.id)}/deploy`, location.origin).href;
  byId('cp-welcome-key-value').textContent = fresh.apiKey;
  byId('cp-welcome-curl').textContent =
    `curl -X PUT --data-binary @site.zip \\\n  -H "Authorization: Bearer ${fresh.apiKey}" \\\n  ${deploy}`;
  box.hidden = false;
}

/** Right after Create: this canvas's page shows its key (for CI) once. */
export function welcomeCreated(canvas: Pick<CanvasView, 'id'>, apiKey: string): void {
  fresh = { id: canvas.id, apiKey };
}

/** Each canvas the page opens: the Deploy block first while nothing is published. */
export function showWelcome(canvas: CanvasView): void {
  const box = byId('cp-deploy-box');
  home ??= box.nextElementSibling;
  const first = canvas.publicationState !== 'published' && canvas.status === 'active' && canvas.role !== 'viewer';
  // Right below the preview, whose empty state points down to it.
  if (first) byId('cp-preview').after(box);
  else home?.before(box);
  box.classList.toggle('welcome', first);
  byId('cp-deploy-title').textContent = first ? 'Deploy its first version' : 'Deploy';
  byId('cp-welcome-text').hidden = !first;
  showKey(canvas);
  // Fresh from Create: the person lands on the drop zone, ready to drop or pick a folder.
  if (first && fresh?.id === canvas.id) byId('cp-drop').focus();
}

byId('cp-welcome-copy-key').addEventListener(
  'click',
  () => void navigator.clipboard?.writeText(byId('cp-welcome-key-value').textContent ?? ''),
);
