// What the canvas page's modules get from the dashboard (app.ts passes them
// in): its one API client, its ways of wording a refusal and of telling the
// person something, and the list's refresh. The canvas as the API shows it
// is the server's own type (src/canvases/view.ts, type only: nothing of the
// server reaches the bundle).
import type { CanvasView } from '../../canvases/view.ts';

export type { CanvasView };

/**
 * An answer of the dashboard's client: `data` is the body parsed as JSON
 * (null when it is not JSON). It is a `T` when the status is the route's
 * success; otherwise it is the refusal (see refusalCode).
 */
export interface ApiAnswer<T = unknown> {
  status: number;
  data: T;
  text: string;
}

/** The dashboard's client (app.ts): `body` goes as JSON; `T` names what the route answers. */
export type Api = <T = unknown>(method: string, path: string, body?: unknown) => Promise<ApiAnswer<T>>;

/** The refusal's words for people ({code, message} bodies). */
export type Problem = (res: ApiAnswer) => string;

export interface CanvasPageDeps {
  api: Api;
  problem: Problem;
  /** Says something to the person in the page's notice line. */
  notice(text: string): void;
  /** A table cell holding `text` (ui.ts's). */
  cell(row: HTMLTableRowElement, text: string): HTMLTableCellElement;
  /** Refreshes the home list of canvases. */
  loadCanvases(): Promise<void>;
  /** Opens the guest links panel for `canvas` right after `near`. */
  openGuests(canvas: CanvasView, near: HTMLElement): Promise<void>;
}

/** The page's deps as the owner and danger-zone modules take them: plus reopening the page. */
export interface CanvasSectionDeps extends CanvasPageDeps {
  reopen(id: string): Promise<void>;
}

/** The `code` of a refused answer's body ({code, message, …}), when it has one. */
export function refusalCode(res: ApiAnswer): string | undefined {
  const d: unknown = res.data;
  return typeof d === 'object' && d !== null && 'code' in d && typeof d.code === 'string' ? d.code : undefined;
}

/** A refusal made here (nothing was sent, or the answer was not the API's): worded like the server's. */
export function localRefusal(status: number, message: string): ApiAnswer {
  return { status, data: { message }, text: '' };
}
