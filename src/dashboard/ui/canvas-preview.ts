// The canvas page's live preview (issue 38 item 2): the canvas's live page
// in a frame at the top of the Overview, sandboxed as the editor's preview
// is, loaded lazily, with a link that opens it in a new tab. When its
// address answers nothing (nothing published yet, or archived) the frame
// gives way to words saying so, never a blank box. The dashboard's CSP lets
// it frame the canvas (frame-src: its own origin in path mode, the canvas
// hosts in subdomain mode; src/dashboard/routes.ts).
import type { CanvasView } from './canvas-deps.ts';
import { byId } from './elements.ts';

/** Why nothing answers at the canvas's address, or null when its live page does. */
function silence(canvas: CanvasView): string | null {
  if (canvas.status !== 'active') return `Its address does not answer while it is ${canvas.status}.`;
  if (canvas.publicationState !== 'published') return 'Nothing published yet — drop a folder below';
  return null;
}

/**
 * Shows `canvas`'s live page, or why there is none. The frame loads again
 * when `reload` (a deploy or a rollback changed what is live) or when the
 * address moved (a new slug); otherwise it is left as it is.
 */
export function showPreview(canvas: CanvasView, reload: boolean): void {
  const frame = byId('cp-preview-frame', HTMLIFrameElement);
  const empty = byId('cp-preview-empty');
  const open = byId('cp-preview-open', HTMLAnchorElement);
  const why = silence(canvas);
  empty.textContent = why ?? '';
  empty.hidden = why === null;
  frame.hidden = open.hidden = why !== null;
  if (why !== null) {
    frame.removeAttribute('src');
    delete frame.dataset.url;
    return;
  }
  open.href = canvas.url;
  if (reload || frame.dataset.url !== canvas.url) {
    frame.dataset.url = canvas.url;
    frame.src = canvas.url;
  }
}
