// The dashboard's small DOM helpers and the types its views share: every
// server string goes in as text (textContent), never as HTML. Element
// look-ups are in elements.ts.
import { byId, find } from './elements.ts';

/**
 * One answer of the dashboard's API client: `status`, the body parsed as JSON
 * in `data` (null when it is not JSON), and the body as received in `text`.
 * `T` is what the route answers on success: check `status` before reading it.
 */
export interface ApiAnswer<T = unknown> {
  status: number;
  data: T;
  text: string;
}

/** The one client every view calls: `body` goes as JSON, `options.raw` as the bytes themselves. */
export type Api = <T = unknown>(method: string, path: string, body?: unknown, options?: { raw?: BodyInit }) => Promise<ApiAnswer<T>>;

/** A refusal in words: the server's message, else its code, else the HTTP status. */
export type Problem = (res: ApiAnswer) => string;

/** What app.ts lends each view it starts. */
export interface Deps {
  api: Api;
  problem: Problem;
  cell: typeof cell;
}

/** A canvas as the guest links panel needs it. */
export interface GuestCanvas {
  id: string;
  title: string;
}

/** What app.ts lends the canvas page: the common helpers, a refresh of the home list, and the guest links panel (opened after `near`). */
export interface CanvasPageDeps extends Deps {
  loadCanvases: () => Promise<void>;
  openGuests: (canvas: GuestCanvas, near?: HTMLElement) => Promise<void>;
}

/** The table's body, emptied, for a fresh set of rows. */
export function emptyBody(table: HTMLElement): HTMLTableSectionElement {
  const tbody = find(table, 'tbody', HTMLTableSectionElement);
  tbody.replaceChildren();
  return tbody;
}

/** A byte count for people: 512 B, 3.2 KB, 41.0 MB, 1.5 GB. */
export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(1)} GB`;
}

/** A moment as people say it ("3 hours ago", "yesterday", "12 Mar"), with the exact time for a hover title. */
export function when(ms: number, now = Date.now()): { text: string; exact: string } {
  const exact = new Date(ms).toLocaleString();
  const s = Math.round((now - ms) / 1000);
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  let text: string;
  if (s < 45) text = 'just now';
  else if (s < 3600) text = rtf.format(-Math.round(s / 60), 'minute');
  else if (s < 86400) text = rtf.format(-Math.round(s / 3600), 'hour');
  else if (s < 7 * 86400) text = rtf.format(-Math.round(s / 86400), 'day');
  else text = new Date(ms).toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: s > 300 * 86400 ? 'numeric' : undefined });
  return { text, exact };
}

/** A table cell holding a moment in words, the exact time on hover (and for screen readers, in a <time>). */
export function whenCell(row: HTMLTableRowElement, ms: number | null | undefined): HTMLTableCellElement {
  const td = document.createElement('td');
  if (ms) {
    const { text, exact } = when(ms);
    const time = document.createElement('time');
    time.dateTime = new Date(ms).toISOString();
    time.title = exact;
    time.textContent = text;
    td.append(time);
  }
  row.append(td);
  return td;
}

/** A table cell holding `text`. */
export function cell(row: HTMLTableRowElement, text: string): HTMLTableCellElement {
  const td = document.createElement('td');
  td.textContent = text;
  row.append(td);
  return td;
}

/** A table cell holding a link; `newTab` opens it beside the dashboard. */
export function linkCell(row: HTMLTableRowElement, href: string, text: string, newTab = false): HTMLTableCellElement {
  const td = document.createElement('td');
  const a = document.createElement('a');
  a.href = href;
  a.textContent = text;
  if (newTab) {
    a.target = '_blank';
    a.rel = 'noopener';
  }
  td.append(a);
  row.append(td);
  return td;
}

/** Opens `dialog` modally (focus stays inside, Escape cancels); resolves with the button's value it closed with, focus back on `from`. */
export function ask(dialog: HTMLDialogElement, from: HTMLElement): Promise<string> {
  dialog.returnValue = '';
  return new Promise((resolve) => {
    dialog.addEventListener(
      'close',
      () => {
        from.focus();
        resolve(dialog.returnValue);
      },
      { once: true },
    );
    dialog.showModal();
  });
}

/** A plain button. */
export function button(text: string, onClick: (event: MouseEvent) => unknown): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = text;
  b.addEventListener('click', onClick);
  return b;
}

/** The refusal of `res` in the error line `id` (next to the control that caused it); null clears it. */
export function showError(id: string, res: ApiAnswer | null, problem: Problem): void {
  const el = byId(id);
  el.textContent = res ? problem(res) : '';
  el.hidden = !res;
}

/** done: an action worked (hides itself); error: it did not (stays until dismissed); note: anything else to say (stays). */
export type ToastKind = 'done' | 'error' | 'note';

/** Long enough to read a sentence twice; hovering or focusing a toast holds it. */
const TOAST_MS = 6000;
/** More than this and the oldest goes: a stack of old results is noise. */
const TOAST_MAX = 3;

/**
 * Says the result of an action in a toast: in the page's polite live region
 * (#notice, in index.html from the start, so screen readers announce what is
 * added to it), with a Dismiss button. A toast with the same `topic` as one
 * shown replaces it, so "Token created" takes the place of an earlier
 * "Could not create the token". Returns the toast.
 */
export function toast(text: string, kind: ToastKind = 'done', topic?: string): HTMLElement {
  const region = byId('notice');
  const box = document.createElement('div');
  box.className = `toast toast-${kind}`;
  if (topic) {
    box.dataset.topic = topic;
    for (const old of region.querySelectorAll<HTMLElement>('.toast')) if (old.dataset.topic === topic) old.remove();
  }
  const words = document.createElement('p');
  words.textContent = text;
  const close = button('Dismiss', () => box.remove());
  close.className = 'toast-close';
  box.append(words, close);
  region.append(box);
  const shown = region.querySelectorAll('.toast');
  for (let i = 0; i < shown.length - TOAST_MAX; i++) shown[i]?.remove();
  if (kind === 'done') {
    let timer = setTimeout(() => box.remove(), TOAST_MS);
    const hold = () => clearTimeout(timer);
    const resume = () => {
      if (box.matches(':hover') || box.contains(document.activeElement)) return;
      clearTimeout(timer);
      timer = setTimeout(() => box.remove(), TOAST_MS);
    };
    box.addEventListener('mouseenter', hold);
    box.addEventListener('focusin', hold);
    box.addEventListener('mouseleave', resume);
    box.addEventListener('focusout', resume);
  }
  return box;
}

/**
 * Toasts stand over the bottom of the page. While some are shown the page
 * gets that much room below its end, and focus scrolls clear of them
 * (style.css, --toasts-room): what lies last on a phone (the email choices)
 * stayed under an error toast until it was dismissed.
 */
export function keepRoomForToasts(): void {
  const region = byId('notice');
  const measure = () => {
    const room = region.offsetHeight > 0 ? Math.ceil(window.innerHeight - region.getBoundingClientRect().top) : 0;
    document.documentElement.style.setProperty('--toasts-room', `${room}px`);
  };
  new ResizeObserver(measure).observe(region);
  window.addEventListener('resize', measure);
}

/** Takes every toast away (`topic`: only that topic's). */
export function clearToasts(topic?: string): void {
  for (const old of byId('notice').querySelectorAll<HTMLElement>('.toast')) if (!topic || old.dataset.topic === topic) old.remove();
}
