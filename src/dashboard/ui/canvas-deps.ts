// What the canvas page's modules share beyond ui.ts's client types: the
// canvas as the API shows it (the server's own type, src/canvases/view.ts,
// type only: nothing of the server reaches the bundle), the deps of the
// sections that reopen the page, and the refusal's code.
import type { CanvasView } from '../../canvases/view.ts';
import type { ApiAnswer, CanvasPageDeps } from './ui.ts';

export type { CanvasView };

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
