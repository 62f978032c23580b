// The canvas page's live preview (issue 38 item 2): the canvas's live page
// in a frame at the top of the Overview, sandboxed as the editor's preview
// is, loaded lazily; the canvas's address right below it opens it in a new
// tab (a link of its own here made three to the same page). When its
// address answers nothing (nothing published yet, or archived) the frame
// gives way to words saying so, never a blank box. The dashboard's CSP lets
// it frame the canvas (frame-src: its own origin in path mode, the canvas
// hosts in subdomain mode; src/dashboard/routes.ts). A canvas on another
// site than the dashboard that needs sign-in (or its password) cannot be
// framed: its sign-in sets a SameSite=Lax cookie, which a browser neither
// sends to nor accepts from a frame of another site (the handoff answers
// HANDOFF_INVALID in it). Such a canvas gets words and a link to its live
// page in a new tab instead, where the sign-in works.
//
// The frame loads only once asked, per canvas and browser (then it always
// does): the live page runs as the person looking, so a page that saves on
// load wrote to the canvas's data, and counted a view, each time its owner
// merely opened this page.
import type { CanvasView } from './canvas-deps.ts';
import { byId } from './elements.ts';
import { sameSite } from './same-site.ts';

/** Why nothing answers at the canvas's address, or null when its live page does. */
function silence(canvas: CanvasView): string | null {
  if (canvas.status !== 'active') return `Its address does not answer while it is ${canvas.status}.`;
  if (canvas.publicationState !== 'published') return 'Nothing published yet — drop a folder below';
  return null;
}

/** True when the live page can show in a frame here: on the dashboard's site, or open to anyone without a password. */
export function frameable(canvas: Pick<CanvasView, 'url' | 'accessMode' | 'hasPassword'>, dashboard: URL): boolean {
  if (canvas.accessMode === 'public_link' && !canvas.hasPassword) return true;
  return sameSite(new URL(canvas.url), dashboard);
}

const SHOWN_KEY = (canvasId: string) => `easel.preview.${canvasId}`;

/** Whether the live page of this canvas was asked for in this browser (storage that refuses: ask again). */
function asked(canvasId: string): boolean {
  try {
    return localStorage.getItem(SHOWN_KEY(canvasId)) === 'shown';
  } catch {
    return false;
  }
}

/** The canvas on show (the button's), and whether the button listens yet. */
let shownCanvas: CanvasView | null = null;
let listening = false;

/**
 * Shows `canvas`'s live page, or why there is none, or the button that
 * shows it. The frame loads again when `reload` (a deploy or a rollback
 * changed what is live) or when the address moved (a new slug); otherwise it
 * is left as it is.
 */
export function showPreview(canvas: CanvasView, reload: boolean): void {
  shownCanvas = canvas;
  if (!listening) {
    listening = true;
    byId('cp-preview-show').addEventListener('click', () => {
      if (!shownCanvas) return;
      try {
        localStorage.setItem(SHOWN_KEY(shownCanvas.id), 'shown');
      } catch {
        // Storage refused: shown this once.
      }
      showPreviewOf(shownCanvas, true, true);
      // The button is gone: focus goes to what it showed.
      byId('cp-preview-frame').focus();
    });
  }
  showPreviewOf(canvas, reload, false);
}

function showPreviewOf(canvas: CanvasView, reload: boolean, askedNow: boolean): void {
  const frame = byId('cp-preview-frame', HTMLIFrameElement);
  const empty = byId('cp-preview-empty');
  const elsewhere = byId('cp-preview-elsewhere');
  const ask = byId('cp-preview-ask');
  const why = silence(canvas);
  const canFrame = why === null && frameable(canvas, new URL(location.href));
  const framed = canFrame && (askedNow || asked(canvas.id));
  empty.textContent = why ?? '';
  empty.hidden = why === null;
  elsewhere.hidden = why !== null || canFrame;
  ask.hidden = !canFrame || framed;
  frame.hidden = !framed;
  if (!framed) {
    frame.removeAttribute('src');
    delete frame.dataset.url;
    if (why === null) {
      byId('cp-preview-host').textContent = new URL(canvas.url).host;
      byId('cp-preview-elsewhere-open', HTMLAnchorElement).href = canvas.url;
    }
    return;
  }
  if (reload || frame.dataset.url !== canvas.url) {
    frame.dataset.url = canvas.url;
    frame.src = canvas.url;
  }
}
